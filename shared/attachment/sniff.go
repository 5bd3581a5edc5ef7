package attachment

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
)

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

// headSize is how much of a file is sniffed before anything is written (a browser sniffs 512).
const headSize = 1024

// tailSize is how much of a file's end is kept to check its format's end.
const tailSize = 1024

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

// markup is why text holding a "<" then an ASCII letter, "/", "!" or "?"
// is refused: what HTML reads as a tag, a comment or a declaration.
const markup = "it holds markup (a < followed by a letter, /, ! or ?)"

// inspector sees every byte of a file once, keeping its head, tail and hash.
type inspector struct {
	typ  string
	size int64
	hash hash.Hash
	head []byte
	tail []byte // the last tailSize bytes
	lt   bool   // whether the last byte seen was "<" (text only)
	// partial is an unfinished UTF-8 sequence at the end of the last chunk.
	partial []byte
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
