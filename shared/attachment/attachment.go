// Package attachment receives the one file a visitor may attach: it checks
// the declared type and sniffs the bytes as they stream, through a reader
// limited to the size allowed, to Files, which keeps the object only when
// every check passed; it cleans the name into a display name. It imports
// no cloud SDK. README.md has the rules.
package attachment

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// Files keeps attachments' bytes under names the caller chooses. Errors
// are *intake.Error: UNAVAILABLE, and NOT_FOUND from Open.
type Files interface {
	// Create starts writing object, which must not exist yet.
	Create(ctx context.Context, object, contentType string) (Upload, error)
	// Open reads object.
	Open(ctx context.Context, object string) (io.ReadCloser, error)
	// Delete deletes object; one that does not exist is no error.
	Delete(ctx context.Context, object string) error
	// DeleteUnder deletes every object under prefix and returns how many.
	DeleteUnder(ctx context.Context, prefix string) (int, error)
	// Objects calls visit with every object; visit's error stops it and is returned.
	Objects(ctx context.Context, visit func(name string, created time.Time) error) error
}

// Upload is one object being written.
type Upload interface {
	io.Writer
	// Commit ends the write and keeps the object.
	Commit() error
	// Abort ends the write and leaves no object.
	Abort()
}

// Received is what Receive kept.
type Received struct {
	Type   string
	Size   int64
	SHA256 string
}

// copyBuffer is how much of the body is held at once while it streams.
const copyBuffer = 32 << 10

// Receive reads body (declared as contentType, at most maxBytes) into
// object of files and returns what it kept; a refused body leaves no
// object. Errors: ATTACHMENT_TYPE_REFUSED (a type not allowed, or bytes not
// wholly that type), ATTACHMENT_TOO_LARGE (read no further than
// maxBytes+1), ATTACHMENT_EMPTY, UNREADABLE_BODY, UNAVAILABLE.
func Receive(ctx context.Context, files Files, object, contentType string, body io.Reader, maxBytes int64) (Received, error) {
	typ, err := Declared(contentType)
	if err != nil {
		return Received{}, err
	}
	limited := &io.LimitedReader{R: body, N: maxBytes + 1}
	in := newInspector(typ)
	head := make([]byte, headSize)
	n, err := io.ReadFull(limited, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Received{}, unreadable(err)
	}
	head = head[:n]
	if n == 0 {
		return Received{}, intake.Errorf(intake.CodeAttachmentEmpty, "The file is empty.")
	}
	if int64(n) > maxBytes {
		return Received{}, TooLarge(maxBytes)
	}
	in.write(head)
	if err := in.headVerdict(); err != nil {
		return Received{}, err
	}

	w, err := files.Create(ctx, object, typ)
	if err != nil {
		return Received{}, err
	}
	kept := false
	defer func() {
		if !kept {
			w.Abort() // a refused file is never kept
		}
	}()
	if _, err := w.Write(head); err != nil {
		return Received{}, stored(err)
	}
	buf := make([]byte, copyBuffer)
	for {
		n, rerr := limited.Read(buf)
		if n > 0 {
			in.write(buf[:n])
			if in.size > maxBytes {
				return Received{}, TooLarge(maxBytes)
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return Received{}, stored(err)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return Received{}, unreadable(rerr)
		}
	}
	if err := in.verdict(); err != nil {
		return Received{}, err
	}
	if err := w.Commit(); err != nil {
		return Received{}, stored(err)
	}
	kept = true
	return Received{Type: typ, Size: in.size, SHA256: hex.EncodeToString(in.hash.Sum(nil))}, nil
}

// TooLarge is ATTACHMENT_TOO_LARGE for a file over maxBytes.
func TooLarge(maxBytes int64) error {
	return intake.Errorf(intake.CodeAttachmentTooLarge, "The file is larger than %s, the most an attachment may be.", HumanSize(maxBytes))
}

func unreadable(err error) error {
	return &intake.Error{Code: intake.CodeUnreadableBody, Detail: "The file could not be read to its end; please send it again.", Cause: err}
}

// stored is a Files failure as it is when an *intake.Error, else UNAVAILABLE.
func stored(err error) error {
	var e *intake.Error
	if errors.As(err, &e) {
		return e
	}
	return intake.Unavailable(err, 5*time.Second)
}

// HumanSize states n bytes in English as the page does: "5.3 MiB", "300 KiB", "12 bytes".
func HumanSize(n int64) string {
	switch {
	case n >= 1<<20:
		tenths := (n*10 + 1<<19) >> 20
		if tenths%10 == 0 {
			return fmt.Sprintf("%d MiB", tenths/10)
		}
		return fmt.Sprintf("%d.%d MiB", tenths/10, tenths%10)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
