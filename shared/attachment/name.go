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
// characters — except a zero-width (non-)joiner between two letters, which
// Persian and other scripts spell with —, without leading dots or surrounding spaces, valid UTF-8, at
// most MaxNameLength characters (the extension kept where it fits). It
// is never a path, and "" when nothing is left.
func CleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		switch {
		case unicode.IsSpace(r):
			b.WriteRune(' ')
		case joinerBetweenLetters(runes, i):
			b.WriteRune(r)
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r),
			r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
	name = b.String()
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

// joinerBetweenLetters reports whether runes[i] is a zero-width non-joiner
// (U+200C) or joiner (U+200D) with a letter on each side: part of a word's
// spelling (رزومه‌ام), not a way to hide a character.
func joinerBetweenLetters(runes []rune, i int) bool {
	if r := runes[i]; r != '\u200c' && r != '\u200d' {
		return false
	}
	return i > 0 && i+1 < len(runes) && unicode.IsLetter(runes[i-1]) && unicode.IsLetter(runes[i+1])
}
