// Package attachment receives the one file a visitor may attach: it checks
// the declared type and sniffs the bytes as they stream to Files, which keeps
// the object only when every check passed, and cleans the display name.
// README.md has the rules.
package attachment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
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

const copyBuffer = 32 << 10 // how much of the body is held at once while it streams

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

// The media types an attachment may have.
const (
	TypePDF  = "application/pdf"
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
	TypeText = "text/plain"
)

// Types are the allowed media types, in the order the page names them.
var Types = intake.AttachmentTypes

// typeNames are the names the page and the notice give each type.
var typeNames = map[string]string{TypePDF: "PDF", TypePNG: "PNG", TypeJPEG: "JPEG", TypeText: "plain text"}

// TypeNames names the allowed types for people: "PDF, PNG, JPEG or plain text".
func TypeNames() string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = typeNames[t]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Declared returns the media type a Content-Type header declares when it
// is one of Types (text/plain only as UTF-8 or ASCII), else ATTACHMENT_TYPE_REFUSED.
func Declared(contentType string) (string, error) {
	typ, params, err := mime.ParseMediaType(contentType)
	refused := intake.Errorf(intake.CodeAttachmentTypeRefused, "An attachment must be %s; declare its type in Content-Type.", TypeNames())
	if err != nil || typeNames[typ] == "" {
		return "", refused
	}
	for k, v := range params {
		if typ != TypeText || k != "charset" || (!strings.EqualFold(v, "utf-8") && !strings.EqualFold(v, "us-ascii")) {
			return "", refused
		}
	}
	return typ, nil
}

const (
	headSize = 1024 // how much of a file is sniffed before anything is written (a browser sniffs 512)
	tailSize = 1024 // how much of a file's end is kept to check its format's end
)

// magic is how each binary type begins.
var magic = map[string][]byte{
	TypePDF:  []byte("%PDF-"),
	TypePNG:  []byte("\x89PNG\r\n\x1a\n"),
	TypeJPEG: {0xff, 0xd8, 0xff},
}

// polyglotMarks mark a second format (HTML, SVG, ZIP) that no file's head may hold.
var polyglotMarks = [][]byte{
	[]byte("<!doctype"), []byte("<html"), []byte("<head"), []byte("<body"), []byte("<script"),
	[]byte("<iframe"), []byte("<svg"), []byte("pk\x03\x04"),
}

// markup refuses what HTML reads as a tag, a comment or a declaration.
const markup = "it holds markup (a < followed by a letter, /, ! or ?)"

// inspector sees every byte of a file once, keeping its head, tail and hash.
type inspector struct {
	typ     string
	size    int64
	hash    hash.Hash
	head    []byte
	tail    []byte // the last tailSize bytes
	lt      bool   // whether the last byte seen was "<" (text only)
	partial []byte // an unfinished UTF-8 sequence at the end of the last chunk
	bad     string // why the bytes are not plain text; "" while they are
}

func newInspector(typ string) *inspector {
	return &inspector{typ: typ, hash: sha256.New(), tail: make([]byte, 0, tailSize)}
}

func (in *inspector) write(p []byte) {
	in.size += int64(len(p))
	in.hash.Write(p)
	if room := headSize - len(in.head); room > 0 {
		in.head = append(in.head, p[:min(room, len(p))]...)
	}
	if len(p) >= tailSize {
		in.tail = append(in.tail[:0], p[len(p)-tailSize:]...)
	} else {
		keep := min(len(in.tail), tailSize-len(p))
		in.tail = append(in.tail[:0], in.tail[len(in.tail)-keep:]...)
		in.tail = append(in.tail, p...)
	}
	if in.typ == TypeText && in.bad == "" {
		in.checkText(p)
	}
}

// checkText applies the plain-text rules to the next chunk: valid UTF-8,
// no control characters but \t \n \f \r, no markup.
func (in *inspector) checkText(p []byte) {
	for _, b := range p {
		if in.lt && (b == '/' || b == '!' || b == '?' || 'a' <= b|0x20 && b|0x20 <= 'z') {
			in.bad = markup
			return
		}
		in.lt = b == '<'
	}
	text := append(in.partial, p...)
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(text) {
				break // finished by the next chunk, or refused at the end
			}
			in.bad = "it is not UTF-8 text"
			return
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\f' && r != '\r' || r == 0x7f {
			in.bad = "it holds control characters"
			return
		}
		text = text[size:]
	}
	in.partial = append([]byte(nil), text...)
}

// typeRefused is the refusal of bytes that are not the declared type.
func typeRefused(typ, why string) error {
	return intake.Errorf(intake.CodeAttachmentTypeRefused, "The file is not %s as declared: %s.", article(typeNames[typ]), why)
}

func article(name string) string {
	if name == "plain text" {
		return name
	}
	return "a " + name
}

// headVerdict judges the head alone: the type's magic and no polyglot mark.
func (in *inspector) headVerdict() error {
	if m := magic[in.typ]; m != nil && !bytes.HasPrefix(in.head, m) {
		return typeRefused(in.typ, "its bytes do not begin as one does")
	}
	lower := bytes.ToLower(in.head)
	for _, m := range polyglotMarks {
		if bytes.Contains(lower, m) {
			return typeRefused(in.typ, "it also holds markup or an archive (a polyglot)")
		}
	}
	if in.bad != "" {
		return typeRefused(in.typ, in.bad)
	}
	return nil
}

// verdict judges the whole file: text to its end, nothing after a format's end marker.
func (in *inspector) verdict() error {
	if err := in.headVerdict(); err != nil {
		return err
	}
	switch in.typ {
	case TypeText:
		if len(in.partial) > 0 {
			return typeRefused(in.typ, "it is not UTF-8 text")
		}
	case TypePNG:
		if !bytes.HasSuffix(in.tail, []byte("IEND\xaeB`\x82")) {
			return typeRefused(in.typ, "data follows its end, or it is cut short")
		}
	case TypeJPEG:
		if !bytes.HasSuffix(in.tail, []byte{0xff, 0xd9}) {
			return typeRefused(in.typ, "data follows its end, or it is cut short")
		}
	case TypePDF:
		i := bytes.LastIndex(in.tail, []byte("%%EOF"))
		if i < 0 || len(bytes.TrimRight(in.tail[i+5:], "\r\n\t \x00")) > 0 {
			return typeRefused(in.typ, "data follows its end, or it is cut short")
		}
	}
	return nil
}

// ClassAttachments is the class a sweep run counts deleted attachments under.
const ClassAttachments = "attachments"

// Grace is how old an object its live introduction does not name must be before the sweep
// deletes it (an upload is named after it streams).
const Grace = 15 * time.Minute

const lookupBatch = 100 // how many introductions one lookup reads

// Kept tells which object each live introduction's attachment is kept under.
type Kept interface {
	// AttachmentObjects maps each of ids live at now to its attachment's object ("" for none).
	// Errors: UNAVAILABLE.
	AttachmentObjects(ctx context.Context, ids []string, now time.Time) (map[string]string, error)
}

// SweepTask deletes every object whose introduction is gone or, older than Grace, no longer
// names it. It reads the whole bucket, so it runs on the Scheduler's sweep only.
type SweepTask struct {
	files  Files
	kept   Kept
	logger *slog.Logger
}

// NewSweepTask returns the task, or an error naming a missing part.
func NewSweepTask(files Files, kept Kept, logger *slog.Logger) (*SweepTask, error) {
	if files == nil || kept == nil || logger == nil {
		return nil, errors.New("attachment.NewSweepTask: files, kept and logger are required")
	}
	return &SweepTask{files: files, kept: kept, logger: logger}, nil
}

// Name is the task's name in a run's record.
func (t *SweepTask) Name() string { return "attachments" }

type object struct {
	name    string
	created time.Time
}

// Run deletes what no live introduction names. Errors: UNAVAILABLE.
func (t *SweepTask) Run(ctx context.Context, now time.Time) (intake.SweepTaskResult, error) {
	res := intake.SweepTaskResult{Deleted: map[string]int{ClassAttachments: 0}}
	byID := map[string][]object{}
	var ids []string
	err := t.files.Objects(ctx, func(name string, created time.Time) error {
		id, _, _ := strings.Cut(name, "/")
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], object{name, created})
		return nil
	})
	if err != nil {
		return res, err
	}
	for len(ids) > 0 {
		batch := ids[:min(lookupBatch, len(ids))]
		ids = ids[len(batch):]
		kept, err := t.kept.AttachmentObjects(ctx, batch, now)
		if err != nil {
			return res, err
		}
		for _, id := range batch {
			named, live := kept[id]
			for _, o := range byID[id] {
				if live && (o.name == named || now.Sub(o.created) < Grace) {
					continue
				}
				if err := t.files.Delete(ctx, o.name); err != nil {
					return res, err
				}
				res.Deleted[ClassAttachments]++
			}
		}
	}
	if n := res.Deleted[ClassAttachments]; n > 0 {
		t.logger.InfoContext(ctx, "sweep deleted attachments", slog.Int("attachments", n))
	}
	return res, nil
}

const deleteBound = 10 * time.Second // how long DeleteIntroduction waits for the bucket

// DeleteIntroduction deletes every object introduction id ever had and returns how many,
// within deleteBound even when ctx ends. A failure is logged (id and code), not returned: the
// sweep deletes what is left.
func DeleteIntroduction(ctx context.Context, files Files, logger *slog.Logger, id string) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteBound)
	defer cancel()
	n, err := files.DeleteUnder(ctx, intake.AttachmentPrefix(id))
	if err != nil {
		logger.WarnContext(ctx, "attachment not deleted; the sweep deletes it", slog.String("submissionId", id),
			slog.String("code", string(intake.CodeOf(err))))
	}
	return n
}
