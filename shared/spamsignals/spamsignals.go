// Package spamsignals names what makes a kept draft look like spam, without
// keeping its content, and scores the names into likely spam. A likely-spam
// introduction is kept and handed on like any other (README.md).
package spamsignals

import (
	_ "embed"
	"maps"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// The signals; the store decides RepeatedMessage.
const (
	Gibberish       = "gibberish"        // a name, company or message that looks like random letters
	FilledFast      = "filled-fast"      // the page reports less than FastFill from render to Review
	Automation      = "automation"       // the page reports navigator.webdriver or a headless browser
	RepeatedMessage = "repeated-message" // the same message (RepeatKey) from another email within RepeatWindow
	MixedScript     = "mixed-script"     // a word mixes Latin, Cyrillic or Greek letters
	ShortenedLink   = "shortened-link"   // a link through a known link shortener
	DisposableEmail = "disposable-email" // an address at a known throwaway domain
)

const (
	FastFill  = 3000 // the fill time, in milliseconds, under which a draft is filled-fast
	Threshold = 3    // the score at which an introduction is likely spam
)

// weights is each signal's part of the score: only automation, a repeated message or a mixed
// script reach Threshold alone.
var weights = map[string]int{Automation: 3, RepeatedMessage: 3, MixedScript: 3, Gibberish: 2, DisposableEmail: 2, FilledFast: 2, ShortenedLink: 1}

// Known reports whether name is a spam signal.
func Known(name string) bool {
	_, ok := weights[name]
	return ok
}

// Likely reports whether the weights of signals add up to Threshold.
func Likely(signals []string) bool {
	n := 0
	for _, s := range signals {
		n += weights[s]
	}
	return n >= Threshold
}

// Of returns a submission's spam signals in a fixed order, RepeatedMessage aside.
func Of(sub intake.Submission) []string {
	f := sub.Fields
	var out []string
	if gibberishName(f.Name) || gibberishName(f.Company) || gibberishText(f.Message) {
		out = append(out, Gibberish)
	}
	if sub.Page.Reported && sub.Page.FillMillis < FastFill {
		out = append(out, FilledFast)
	}
	if sub.Page.Automation {
		out = append(out, Automation)
	}
	texts := []string{f.Name, f.Company, f.Role, f.Message}
	for _, name := range slices.Sorted(maps.Keys(sub.Added)) {
		texts = append(texts, sub.Added[name])
	}
	if slices.ContainsFunc(texts, mixedScript) {
		out = append(out, MixedScript)
	}
	if slices.ContainsFunc(append(texts, sub.Conversation), shortened) {
		out = append(out, ShortenedLink)
	}
	if disposable(f.Email) {
		out = append(out, DisposableEmail)
	}
	return out
}

// RepeatKey is the normal form whose keyed hash names a message for RepeatedMessage: NFKC,
// case folded, without invisibles, digits and punctuation, spaces collapsed; "" with fewer
// than RepeatMinLetters letters.
func RepeatKey(message string) string {
	s := norm.NFKC.String(strings.Map(textrules.DropInvisible, message))
	s = cases.Fold().String(s)
	var b strings.Builder
	letters := 0
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			letters++
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsDigit(r):
			space = true
		}
	}
	if letters < RepeatMinLetters {
		return ""
	}
	return b.String()
}

const (
	RepeatMinLetters = 40           // the fewest letters a message needs to be compared
	RepeatWindow     = 24 * 60 * 60 // seconds a message is remembered for RepeatedMessage
)

//go:embed disposable-domains.txt
var disposableList string

//go:embed link-shorteners.txt
var shortenerList string

var (
	disposableDomains = domainSet(disposableList)
	shorteners        = domainSet(shortenerList)
)

func domainSet(list string) map[string]bool {
	set := map[string]bool{}
	for line := range strings.Lines(list) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			set[line] = true
		}
	}
	return set
}

// listed reports whether host or a parent domain of it is in set.
func listed(set map[string]bool, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for host != "" {
		if set[host] {
			return true
		}
		dot := strings.IndexByte(host, '.')
		if dot < 0 {
			return false
		}
		host = host[dot+1:]
	}
	return false
}

func disposable(email string) bool {
	e := contentrules.NormaliseEmail(email)
	at := strings.LastIndexByte(e, '@')
	return at >= 0 && listed(disposableDomains, e[at+1:])
}

func shortened(text string) bool {
	for _, host := range textrules.LinkHosts(text) {
		if listed(shorteners, strings.TrimPrefix(host, "www.")) {
			return true
		}
	}
	return false
}

// mixedScript reports a word with letters of two of Latin, Cyrillic and Greek.
func mixedScript(text string) bool {
	text = norm.NFKC.String(text)
	var seen [3]bool
	flush := func() bool {
		mixed := seen[0] && seen[1] || seen[0] && seen[2] || seen[1] && seen[2]
		seen = [3]bool{}
		return mixed
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Latin, r):
			seen[0] = true
		case unicode.Is(unicode.Cyrillic, r):
			seen[1] = true
		case unicode.Is(unicode.Greek, r):
			seen[2] = true
		case unicode.IsLetter(r) || unicode.IsMark(r):
		default:
			if flush() {
				return true
			}
		}
	}
	return flush()
}

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
