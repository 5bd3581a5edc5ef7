package contentrules

import (
	"unicode"
	"unicode/utf8"
)

// CountLinks returns how many links s holds. A link is, ignoring ASCII case:
//
//   - each occurrence of "http://" or "https://", anywhere, and
//   - each "www." that starts the text or follows a character that is not a
//     letter, digit, '.', '-', '_', '/' or '@' (so "https://www.example.com"
//     is one link, and "awww." none).
//
// A bare domain such as "example.com" is not a link: it is not clickable in
// the owner's inbox, and counting it would refuse ordinary sentences.
func CountLinks(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case hasPrefixFold(s[i:], "http://"), hasPrefixFold(s[i:], "https://"):
			n++
		case hasPrefixFold(s[i:], "www.") && wordStart(s, i):
			n++
		}
	}
	return n
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case; prefix is lower
// case ASCII.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// wordStart reports whether a "www." at byte i starts a link.
func wordStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	switch {
	case unicode.IsLetter(r), unicode.IsDigit(r):
		return false
	case r == '.', r == '-', r == '_', r == '/', r == '@':
		return false
	}
	return true
}
