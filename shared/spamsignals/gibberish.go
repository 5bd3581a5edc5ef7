package spamsignals

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A Latin word looks random with caseSwitches lower-to-upper changes, minRandomLen letters and
// no vowel, or a run of consonantRun consonants. Other scripts are never gibberish.
const (
	caseSwitches = 3
	minRandomLen = 5
	consonantRun = 7
)

// gibberishName reports a name or company with a random-looking word.
func gibberishName(s string) bool {
	for _, w := range latinWords(s) {
		if randomWord(w) {
			return true
		}
	}
	return false
}

// gibberishText reports two random-looking words, or one in at most three words, links and
// addresses aside.
func gibberishText(s string) bool {
	var words, random int
	for _, tok := range strings.Fields(s) {
		if isLinkish(tok) {
			continue
		}
		for _, w := range latinWords(tok) {
			words++
			if randomWord(w) {
				random++
			}
		}
	}
	return random >= 2 || random == 1 && words <= 3
}

// isLinkish reports a token that is, or holds, a link or an address.
func isLinkish(tok string) bool {
	t := strings.TrimFunc(tok, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
	return strings.ContainsAny(t, "/@.:_=?&#")
}

// latinWords returns the runs of letters of s that are all Latin.
func latinWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(norm.NFC.String(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }) {
		latin := true
		for _, r := range w {
			if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
				latin = false
				break
			}
		}
		if latin {
			out = append(out, w)
		}
	}
	return out
}

func randomWord(w string) bool {
	switches, letters, vowels, run, longest := 0, 0, 0, 0, 0
	var prev rune
	base := strings.ToLower(strings.ReplaceAll(strings.ToLower(norm.NFD.String(w)), "sch", "s"))
	for _, r := range w {
		if unicode.IsLower(prev) && unicode.IsUpper(r) {
			switches++
		}
		prev = r
	}
	for _, r := range base {
		if !unicode.IsLetter(r) {
			continue // combining marks of NFD
		}
		letters++
		if strings.ContainsRune("aeiouyæøœ", r) {
			vowels++
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return switches >= caseSwitches || letters >= minRandomLen && vowels == 0 || longest >= consonantRun
}
