// Package attachment receives the one file a visitor may attach: it checks
// the declared type and sniffs the bytes as they stream to Files, which keeps
// the object only when every check passed, and cleans the display name.
// README.md has the rules.
package attachment

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// Files keeps attachments' bytes under names the caller chooses. Errors are *intake.Error:
// UNAVAILABLE, and NOT_FOUND from Open.
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

// Upload is one object being written: Commit keeps it, Abort leaves no object.
type Upload interface {
	io.Writer
	Commit() error
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

// NameFrom returns the display name a Content-Disposition header gives
// (filename* in UTF-8, else filename), cleaned by CleanName; "" for none.
func NameFrom(contentDisposition string) string {
	_, params, _ := mime.ParseMediaType(contentDisposition) // decodes filename* into filename
	return CleanName(params["filename"])
}

// maxRawName bounds, in bytes, how much of a visitor's file name is cleaned.
const maxRawName = 1024

// CleanName makes a visitor's file name a display name, never a path: what follows the last /
// or \, valid UTF-8, without what textrules.WithoutRefused removes, leading dots or
// surrounding spaces, at most intake.MaxAttachmentNameLength characters (extension kept).
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if len(name) > maxRawName {
		name = strings.ToValidUTF8(name[:maxRawName], "") // no file system names a file longer
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case r == utf8.RuneError:
			return -1
		}
		return r
	}, name)
	name = strings.Join(strings.Fields(textrules.WithoutRefused(name)), " ")
	name = strings.TrimLeft(name, ". ")
	if utf8.RuneCountInString(name) > intake.MaxAttachmentNameLength {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 10 {
			ext = ""
		}
		base := []rune(strings.TrimSuffix(name, ext))
		name = textrules.WithoutRefused(strings.TrimSpace(string(base[:intake.MaxAttachmentNameLength-utf8.RuneCountInString(ext)])) + ext)
	}
	return name
}

// extensions is the extension a saved file of each type takes.
var extensions = map[string]string{TypePDF: ".pdf", TypePNG: ".png", TypeJPEG: ".jpg", TypeText: ".txt"}

// SaveName is the name a download of type typ saves as: the display name (or
// "attachment-<id>") with typ's extension, so a saved file never opens as a page.
func SaveName(id, displayName, typ string) string {
	ext := extensions[typ]
	base := strings.TrimSuffix(displayName, path.Ext(displayName))
	if strings.EqualFold(path.Ext(displayName), ext) || typ == TypeJPEG && strings.EqualFold(path.Ext(displayName), ".jpeg") {
		base, ext = displayName, ""
	}
	if strings.Trim(base, ". ") == "" {
		base = "attachment-" + id
	}
	return base + ext
}
