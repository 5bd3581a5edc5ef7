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

// MaxNameLength is the most characters a display name keeps.
const MaxNameLength = intake.MaxAttachmentNameLength

// NameFrom returns the display name a Content-Disposition header gives
// (filename* in UTF-8, else filename), cleaned by CleanName; "" for none.
func NameFrom(contentDisposition string) string {
	_, params, _ := mime.ParseMediaType(contentDisposition) // decodes filename* into filename
	return CleanName(params["filename"])
}

// maxRawName bounds, in bytes, how much of a visitor's file name is cleaned.
const maxRawName = 1024

// CleanName makes a visitor's file name a display name: what follows the
// last / or \, valid UTF-8, without what textrules.WithoutRefused removes,
// leading dots or surrounding spaces, at most MaxNameLength characters
// (the extension kept where it fits). It is never a path.
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

// SaveName is the name a download of type typ saves as: the display name
// (or "attachment-<id>") with typ's extension, whatever extension the
// visitor gave, so a saved file never opens as a page.
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
