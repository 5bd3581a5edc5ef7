package textrules

import (
	"fmt"
	"unicode"
)

// The threat these rules defend against: text that reads one way on the
// page and another way to whatever handles it later. Invisible characters
// make a required field look filled while holding nothing, make two
// addresses look alike while counting as different senders, split a link so
// a counter no longer sees it, or — with the tag characters U+E0000–E007F —
// carry a whole hidden sentence to a program (or a language model) that
// reads the stored text. Private-use characters show as something different
// on every device. Each of these is refused where it has no legitimate use,
// and allowed only in the narrow places real writing needs it.

// IsBidiControl reports the bidirectional embedding, override and isolate
// controls.
func IsBidiControl(r rune) bool {
	return (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069')
}

// isBidiMark reports the directional marks U+200E, U+200F and U+061C, which
// right-to-left names legitimately need.
func isBidiMark(r rune) bool { return r == '\u200E' || r == '\u200F' || r == '\u061C' }

// IsTag reports the tag characters U+E0000–E007F.
func IsTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// IsNoncharacter reports the 66 code points Unicode promises never to
// assign.
func IsNoncharacter(r rune) bool { return (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE }

// IsInvisible reports a character that shows nothing of itself: Unicode's
// Default_Ignorable_Code_Point (zero-width spaces and joiners, the soft
// hyphen, the word joiner, the byte-order mark, variation selectors, the
// Hangul fillers, …) and every other format character (category Cf), but
// not the prepended concatenation marks (U+0600 and friends), which are
// visible signs.
func IsInvisible(r rune) bool {
	if unicode.Is(unicode.Prepended_Concatenation_Mark, r) {
		return false
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// isJoinable reports a character a joiner may follow or precede: a letter,
// mark, digit or symbol (emoji are symbols).
func isJoinable(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.S)
}

// takesSelector reports whether base takes the variation selector vs
// directly after it. The threat: 256 distinct selectors, each invisible,
// stacked after any letter spell out hidden bytes. Unicode defines a
// variation sequence as one base and one selector, and each range of
// selectors has its own bases:
//
//   - U+FE0E and U+FE0F (text and emoji presentation) follow an emoji: a
//     symbol, a keycap base (0–9, '#', '*'), or one of the few emoji that
//     are letters or punctuation (‼ ⁉ ℹ 〰 〽);
//   - U+FE00–FE0D (standardized variants) follow a symbol, an ideograph,
//     the digit zero, a CJK full stop, comma or the like, or a letter of
//     the scripts that have them (Myanmar, Phags-pa, Manichaean, Egyptian
//     hieroglyphs);
//   - U+E0100–E01EF (ideographic variation sequences) follow an ideograph;
//   - U+180B–180F (Mongolian free variation selectors) follow a Mongolian
//     letter.
//
// A selector is never a base, so two in a row are refused.
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

// BadCharacter returns a detail naming the first character of s that the
// rules refuse, or "". It allows, as real writing needs them:
//
//   - LF in multi-line fields;
//   - the directional marks U+200E, U+200F, U+061C (right-to-left names);
//   - ZERO WIDTH NON-JOINER (U+200C) between two letters or marks
//     (Persian, Kurdish, Indic scripts);
//   - ZERO WIDTH JOINER (U+200D) between two joinable characters, a
//     variation selector counting as its base (emoji sequences such as
//     👩‍💻 and ❤️‍🔥, Indic conjuncts);
//   - one variation selector right after a base that takes it (emoji
//     presentation, ideographic variants: see takesSelector);
//   - tag characters only as an emoji tag sequence: U+1F3F4 WAVING BLACK
//     FLAG, then tag letters or digits, then U+E007F CANCEL TAG (the flags
//     of England, Scotland, Wales).
//
// Everything else invisible, every control character, bidi embedding,
// override and isolate controls, private-use characters and
// noncharacters are refused.
func BadCharacter(s string, multiline bool) string {
	_, detail := firstBad([]rune(s), multiline)
	return detail
}

// WithoutRefused returns s without the characters BadCharacter refuses on
// one line, so that what is left passes it: a joiner stays only where it
// joins what is left on each side.
func WithoutRefused(s string) string {
	rs := []rune(s)
	for {
		i, detail := firstBad(rs, false)
		if detail == "" {
			return string(rs)
		}
		rs = append(rs[:i], rs[i+1:]...)
	}
}

// firstBad returns the index of the first refused rune of rs and its
// detail, or -1 and "".
func firstBad(rs []rune, multiline bool) (int, string) {
	for i := 0; i < len(rs); i++ {
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

// attachesTo reports whether a joiner may follow before: its last rune is
// joinable, or a variation selector right after a joinable rune.
func attachesTo(before []rune) bool {
	last := before[len(before)-1]
	if isJoinable(last) {
		return true
	}
	return unicode.Is(unicode.Variation_Selector, last) && len(before) >= 2 && isJoinable(before[len(before)-2])
}

// tagSequence checks the tags after U+1F3F4: one or more tag letters or
// digits then CANCEL TAG. It returns how many runes the sequence takes.
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
