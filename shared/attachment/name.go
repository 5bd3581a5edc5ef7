package attachment

import (
	"mime"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// MaxNameLength is the most characters a display name keeps
// (intake.MaxAttachmentNameLength, which the store's check holds it to).
const MaxNameLength = intake.MaxAttachmentNameLength

// NameFrom returns the display name a Content-Disposition header gives
// (its filename* in UTF-8, else its filename), cleaned by CleanName; ""
// when the header is absent or names no file.
func NameFrom(contentDisposition string) string {
	if contentDisposition == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentDisposition)
	if err != nil {
		return ""
	}
	return CleanName(params["filename"]) // mime decodes filename* into filename
}

// CleanName makes a visitor's file name a display name: only what
// follows the last path separator (/ or \), valid UTF-8, without the
// characters the text rules refuse (textrules.WithoutRefused: a
// zero-width non-joiner between letters, as Persian spells, stays),
// without leading dots or surrounding spaces, at most MaxNameLength
// characters (the extension kept where it fits). It is never a path, and
// "" when nothing is left.
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
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
	if utf8.RuneCountInString(name) > MaxNameLength {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 10 {
			ext = ""
		}
		base := []rune(strings.TrimSuffix(name, ext))
		name = textrules.WithoutRefused(strings.TrimSpace(string(base[:MaxNameLength-utf8.RuneCountInString(ext)])) + ext)
	}
	return name
}

// extensions is the extension a saved file of each type takes.
var extensions = map[string]string{TypePDF: ".pdf", TypePNG: ".png", TypeJPEG: ".jpg", TypeText: ".txt"}

// SaveName is the name the owner's download saves a file of type typ as:
// the display name with the extension of the type its bytes were verified
// as, whatever extension the visitor gave (a PDF named cv.html saves as
// cv.pdf, so the saved file never opens as a page), or "attachment-<id>"
// with that extension when there is no display name.
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
