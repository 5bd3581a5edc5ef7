// Package textrules holds the character and link rules for a visitor's
// words: which invisible, bidi, tag and private-use characters a text may
// hold (BadCharacter), and how many links it holds as a reader would see
// them (CountLinks). The content rules (shared/contentrules) apply them to
// each field of a submission, and the store's re-check before every write
// (intake.CheckStorable*) applies them again, so that a bug upstream cannot
// store what the API refuses. It imports nothing of the module.
package textrules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IsBidiControl reports the bidirectional embedding, override and isolate controls.
func IsBidiControl(r rune) bool {
	return (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069')
}

// isBidiMark reports the directional marks U+200E, U+200F and U+061C.
func isBidiMark(r rune) bool { return r == '\u200E' || r == '\u200F' || r == '\u061C' }

// IsTag reports the tag characters U+E0000–E007F.
func IsTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// IsNoncharacter reports the 66 code points Unicode never assigns.
func IsNoncharacter(r rune) bool { return (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE }

// IsInvisible reports a Default_Ignorable_Code_Point or another format character (Cf), but
// not the visible prepended concatenation marks (U+0600 and friends).
func IsInvisible(r rune) bool {
	if unicode.Is(unicode.Prepended_Concatenation_Mark, r) {
		return false
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// isJoinable reports a letter, mark, digit or symbol.
func isJoinable(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.S)
}

// takesSelector reports whether base takes the variation selector vs right after it (never
// after a selector): an emoji, a standardized variant's base, an ideograph, a Mongolian letter.
func takesSelector(base, vs rune) bool {
	switch {
	case vs >= 0x180B && vs <= 0x180F:
		return unicode.Is(unicode.Mongolian, base) && unicode.IsLetter(base)
	case vs >= 0xE0100:
		return unicode.Is(unicode.Ideographic, base)
	case vs == 0xFE0E || vs == 0xFE0F:
		return unicode.In(base, unicode.Sm, unicode.So) || base >= '0' && base <= '9' || base == '#' || base == '*' ||
			base == '\u203C' || base == '\u2049' || base == '\u2139' || base == '\u3030' || base == '\u303D'
	default:
		return unicode.In(base, unicode.Sm, unicode.So) || base == '0' || unicode.Is(unicode.Ideographic, base) ||
			unicode.IsPunct(base) && (base >= '\u3000' && base <= '\u303F' || base >= '\uFF00' && base <= '\uFF65') ||
			unicode.IsLetter(base) && unicode.In(base, unicode.Myanmar, unicode.Phags_Pa, unicode.Manichaean, unicode.Egyptian_Hieroglyphs)
	}
}

// BadCharacter returns a detail naming the first character of s the rules refuse, or "". It
// allows only what writing needs: LF when multiline; the directional marks; ZWNJ between
// letters or marks; ZWJ between joinable characters; one variation selector after a base that
// takes it; tag characters in an emoji tag sequence (U+1F3F4 … U+E007F). Every other
// invisible, control, bidi control, private-use character and noncharacter is refused.
func BadCharacter(s string, multiline bool) string {
	_, detail := firstBad([]rune(s), 0, multiline)
	return detail
}

// WithoutRefused returns s without what BadCharacter refuses on one line.
func WithoutRefused(s string) string {
	rs := []rune(s)
	for from := 0; ; {
		i, detail := firstBad(rs, from, false)
		if detail == "" {
			return string(rs)
		}
		rs = append(rs[:i], rs[i+1:]...)
		from = max(0, i-1) // only the rune before looks at the one removed
	}
}

// firstBad returns the index of the first refused rune of rs at or after
// from, with its detail, or -1 and "".
func firstBad(rs []rune, from int, multiline bool) (int, string) {
	for i := from; i < len(rs); i++ {
		r := rs[i]
		switch {
		case IsBidiControl(r):
			return i, fmt.Sprintf("This holds an invisible character that changes the direction of text (U+%04X). Please remove it, or type it again rather than pasting it.", r)
		case r == '\n' && !multiline:
			return i, "This must fit on one line. Please remove the line breaks."
		case r == '\n':
		case unicode.IsControl(r):
			return i, fmt.Sprintf("This holds an invisible control character (U+%04X). Please remove it, or type it again rather than pasting it.", r)
		case unicode.Is(unicode.Co, r):
			return i, fmt.Sprintf("This holds a private-use character (U+%04X), which shows differently on every device. Please remove it.", r)
		case IsNoncharacter(r):
			return i, fmt.Sprintf("This holds a character that is not meant for text (U+%04X). Please remove it, or type it again rather than pasting it.", r)
		case r == 0x1F3F4 && i+1 < len(rs) && IsTag(rs[i+1]):
			n, ok := tagSequence(rs[i+1:])
			if !ok {
				return i + 1, fmt.Sprintf("This holds hidden tag characters (U+%04X) that can carry invisible text. Please remove them, or type it again rather than pasting it.", rs[i+1])
			}
			i += n
		case IsTag(r):
			return i, fmt.Sprintf("This holds hidden tag characters (U+%04X) that can carry invisible text. Please remove them, or type it again rather than pasting it.", r)
		case isBidiMark(r):
		case r == '\u200C':
			if i == 0 || i+1 == len(rs) || !unicode.In(rs[i-1], unicode.L, unicode.M) || !unicode.In(rs[i+1], unicode.L, unicode.M) {
				return i, invisibleDetail(r)
			}
		case r == '\u200D':
			if i == 0 || i+1 == len(rs) || !attachesTo(rs[:i]) || !isJoinable(rs[i+1]) {
				return i, invisibleDetail(r)
			}
		case unicode.Is(unicode.Variation_Selector, r):
			if i == 0 || !takesSelector(rs[i-1], r) {
				return i, invisibleDetail(r)
			}
		case IsInvisible(r):
			return i, invisibleDetail(r)
		}
	}
	return -1, ""
}

// attachesTo reports whether a joiner may follow before.
func attachesTo(before []rune) bool {
	last := before[len(before)-1]
	if isJoinable(last) {
		return true
	}
	return unicode.Is(unicode.Variation_Selector, last) && len(before) >= 2 && isJoinable(before[len(before)-2])
}

// tagSequence returns how many runes the tags after U+1F3F4 take, up to CANCEL TAG.
func tagSequence(rs []rune) (int, bool) {
	for i, r := range rs {
		switch {
		case r == 0xE007F:
			return i + 1, i > 0
		case (r >= 0xE0030 && r <= 0xE0039) || (r >= 0xE0061 && r <= 0xE007A):
		default:
			return 0, false
		}
	}
	return 0, false
}

func invisibleDetail(r rune) string {
	return fmt.Sprintf("This holds an invisible character (U+%04X) that hides what the text says. Please remove it, or type it again rather than pasting it.", r)
}

// CountLinks returns how many links s holds, read as a browser would (linkText): a scheme of
// two or more letters, ":" and slashes ("hxxp://" too); "//host.tld"; "www." at a word's start;
// or a domain with a path ("example.com/page"), each starting where it cannot continue a host,
// address or path ("https://www.example.com" is one link; a bare domain none).
func CountLinks(s string) int {
	n := 0
	eachLink(linkText(s), func(string) { n++ })
	return n
}

// LinkHosts returns the host of each link CountLinks counts in s, in order, as it reads them.
func LinkHosts(s string) []string {
	var hosts []string
	eachLink(linkText(s), func(host string) { hosts = append(hosts, host) })
	return hosts
}

// eachLink calls found with the host of each link of t, a linkText.
func eachLink(t string, found func(host string)) {
	for i := 0; i < len(t); {
		prev := rune(-1)
		if i > 0 {
			prev, _ = utf8.DecodeLastRuneInString(t[:i])
		}
		end, hostStart := 0, i
		switch {
		case !continues(prev, "+-.") && schemeLink(t, i) > 0:
			end = schemeLink(t, i)
			hostStart = end
		case !continues(prev, ":/") && schemeRelativeLink(t, i) > 0:
			end = schemeRelativeLink(t, i)
			hostStart = i + 2
		case !continues(prev, ".-_/@") && strings.HasPrefix(t[i:], "www."):
			end = i + len("www.")
		case !continues(prev, ".-_/@") && domainWithPath(t, i) > 0:
			end = domainWithPath(t, i)
		}
		if end > 0 {
			hostEnd := domain(t, hostStart)
			if hostEnd == 0 {
				hostEnd = hostStart + strings.IndexFunc(t[hostStart:]+" ", func(r rune) bool {
					return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-')
				})
			}
			found(t[hostStart:hostEnd])
			i = end
			continue
		}
		i++
	}
}

// linkText is s as links are counted on it: NFKC, invisibles dropped, the full stops browsers
// accept and defanged "[.]", "(.)", "[:]" as "." and ":", "\\" as "/", lower case.
func linkText(s string) string {
	s = norm.NFKC.String(strings.Map(DropInvisible, s))
	s = strings.Map(func(r rune) rune {
		switch {
		case IsInvisible(r) || IsTag(r):
			return -1
		case r == '\u3002' || r == '\uFF0E' || r == '\uFF61':
			return '.'
		case r == '\\':
			return '/'
		}
		return unicode.ToLower(r)
	}, s)
	return defanged.Replace(s)
}

// DropInvisible is a strings.Map function removing invisible and tag characters.
func DropInvisible(r rune) rune {
	if IsInvisible(r) || IsTag(r) {
		return -1
	}
	return r
}

// defanged reads the usual "defanged" spellings of a link as the link.
var defanged = strings.NewReplacer("[.]", ".", "(.)", ".", "{.}", ".", "[dot]", ".", "(dot)", ".", "[:]", ":", "[://]", "://")

// continues reports whether a link cannot start after prev (prev < 0: the text's start).
func continues(prev rune, also string) bool {
	return prev >= 0 && (unicode.IsLetter(prev) || unicode.IsDigit(prev) || strings.ContainsRune(also, prev))
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isHostStart(t string, i int) bool {
	if i >= len(t) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// schemeLink returns the end of "scheme:/" + host start at i, or 0.
func schemeLink(t string, i int) int {
	if t[i] < 'a' || t[i] > 'z' {
		return 0
	}
	j := i + 1
	for j < len(t) && isSchemeByte(t[j]) {
		j++
	}
	if j-i < 2 || j >= len(t) || t[j] != ':' {
		return 0
	}
	k := j + 1
	for k < len(t) && t[k] == '/' {
		k++
	}
	if k == j+1 || !isHostStart(t, k) {
		return 0
	}
	return k
}

// schemeRelativeLink returns the end of "//host.tld" at i, or 0.
func schemeRelativeLink(t string, i int) int {
	if !strings.HasPrefix(t[i:], "//") {
		return 0
	}
	return domain(t, i+2)
}

// domainWithPath returns the end of "host.tld/" at i, or 0.
func domainWithPath(t string, i int) int {
	end := domain(t, i)
	if end == 0 || end >= len(t) || t[end] != '/' {
		return 0
	}
	return end + 1
}

// domain returns the end of a dotted host name starting at i, or 0.
func domain(t string, i int) int {
	labels, lastLetters, lastLen := 0, true, 0
	j := i
	for {
		start := j
		letters := true
		for j < len(t) {
			r, size := utf8.DecodeRuneInString(t[j:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || (r == '-' && j > start)) {
				break
			}
			if !unicode.IsLetter(r) {
				letters = false
			}
			j += size
		}
		if j == start {
			break
		}
		labels++
		lastLetters, lastLen = letters, utf8.RuneCountInString(t[start:j])
		if j+1 < len(t) && t[j] == '.' && isHostStart(t, j+1) {
			j++
			continue
		}
		break
	}
	if labels < 2 || !lastLetters || lastLen < 2 {
		return 0
	}
	return j
}
