package contentrules

import "unicode"

// isBlankLookalike reports visible-looking blanks that are not whitespace
// (U+2800 BRAILLE PATTERN BLANK): they never count as content.
func isBlankLookalike(r rune) bool { return r == '\u2800' }

// hasLetterOrDigit reports whether s holds a letter or digit of any script.
func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// hasVisible reports whether s holds anything that shows: a letter, digit,
// punctuation or symbol, blank look-alikes aside.
func hasVisible(s string) bool {
	for _, r := range s {
		if !isBlankLookalike(r) && unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S) {
			return true
		}
	}
	return false
}
