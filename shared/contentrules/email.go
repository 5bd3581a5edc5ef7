package contentrules

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/textrules"
)

// checkEmail accepts an email address as the form does, returning "", or
// returns a detail saying what is wrong with it. An address holds nothing
// invisible (no default-ignorable or format character, not even the
// directional marks or joiners other fields allow: an address is typed, and
// an invisible character would make one address look like another); it has
// exactly one @; a local part of 1 to 64 bytes without whitespace, without
// any of ( ) < > [ ] \ , ; : " and without a leading, trailing or doubled
// dot, nor a ? or % (legal in an address, unused in practice, and what
// turns an address in a mailto: link into header fields or escapes); and a
// domain of at most 253 bytes with at least one dot, whose labels
// are each 1 to 63 bytes of letters (any script), digits and inner hyphens,
// the last one not all digits. It is a sanity check, not proof the address
// receives mail.
func checkEmail(s string) string {
	const example = " An address looks like name@example.com."
	for _, r := range s {
		if textrules.IsInvisible(r) || textrules.IsTag(r) || unicode.Is(unicode.Co, r) || textrules.IsNoncharacter(r) || !unicode.IsGraphic(r) {
			return fmt.Sprintf("The address holds an invisible or unusual character (U+%04X). Please type it again rather than pasting it.", r)
		}
	}
	if strings.Count(s, "@") != 1 {
		return "An email address has exactly one @." + example
	}
	local, domain, _ := strings.Cut(s, "@")
	switch {
	case local == "":
		return "The part before the @ is missing." + example
	case len(local) > 64:
		return "The part before the @ is too long (at most 64 characters)."
	case strings.ContainsFunc(local, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`()<>[]\,;:"`, r) }),
		strings.HasPrefix(local, "."), strings.HasSuffix(local, "."), strings.Contains(local, ".."):
		return "The part before the @ holds characters or dots an address cannot have. Please check it for typos."
	case strings.ContainsAny(local, "?%"):
		return "The part before the @ holds a ? or %, which this form does not take in an address. Please check it for typos."
	case domain == "":
		return "The domain after the @ is missing." + example
	case !strings.Contains(domain, "."):
		return "The domain after the @ needs a dot, as in example.com."
	case len(domain) > 253 || !validDomain(domain):
		return "The domain after the @ is not a valid domain. Please check it for typos."
	}
	return ""
}

// validDomain checks the labels of a dotted domain.
func validDomain(domain string) bool {
	labels := strings.Split(domain, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return false
		}
		for _, r := range l {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.ContainsFunc(last, func(r rune) bool { return !unicode.IsDigit(r) })
}

// NormaliseEmail returns the one normal form of an address used for the
// email rate key (a data subject's records are found by SubjectAddress's
// form, which tells ß from ss): surrounding whitespace
// trimmed, invisible characters (default-ignorable and format characters)
// removed, Unicode normalisation form NFKC (full-width "ａｄａ" is "ada"),
// Unicode case folding (so "ADA", "Ada" and "ada" are one), and a +tag
// removed from the local part, so that " Ada+jobs@Example.com",
// "ａｄａ@example.com" and "ada@example.com" are one sender. It is for keys
// and look-ups only; the address is stored as Check keeps it.
func NormaliseEmail(email string) string {
	s := strings.TrimSpace(norm.NFKC.String(strings.Map(textrules.DropInvisible, email)))
	s = norm.NFKC.String(cases.Fold().String(s)) // a Caser is stateful: one per call
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return s
	}
	local, domain := s[:at], s[at:]
	if plus := strings.IndexByte(local, '+'); plus > 0 {
		local = local[:plus]
	}
	return local + domain
}
