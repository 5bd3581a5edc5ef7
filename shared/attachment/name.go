package attachment

import (
	"mime"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
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
// follows the last path separator (/ or \), without control, format
// (bidirectional overrides, zero-width characters) or other invisible
// characters, without leading dots or surrounding spaces, valid UTF-8, at
// most MaxNameLength characters (the extension kept where it fits). It
// is never a path, and "" when nothing is left.
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r),
			r == utf8.RuneError:
			return -1
		}
		return r
	}, name)
	name = strings.Join(strings.Fields(name), " ")
	name = strings.TrimLeft(name, ". ")
	if utf8.RuneCountInString(name) > MaxNameLength {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 10 {
			ext = ""
		}
		base := []rune(strings.TrimSuffix(name, ext))
		name = strings.TrimSpace(string(base[:MaxNameLength-utf8.RuneCountInString(ext)])) + ext
	}
	return name
}
