package contentrules

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// checkEmail returns "" for an address the form accepts, else what is
// wrong: nothing invisible, one @; a local part of 1 to 64 bytes without
// whitespace, any of ( ) < > [ ] \ , ; : " ? %, or an outer or doubled dot;
// a dotted domain of at most 253 bytes, labels of 1 to 63 letters, digits
// and inner hyphens, the last not all digits.
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

// NormaliseEmail returns the address's form for the email rate key:
// trimmed, invisible characters dropped, NFKC, case-folded, +tag removed
// (" Ada+jobs@Example.com" and "ａｄａ@example.com" are "ada@example.com").
// It is for keys only; the address is stored as Check keeps it.
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

// SubjectKey names the data subject behind an address: the hex SHA-256 of
// "subject/v2", a NUL and SubjectAddress(email). It is stored beside the
// address, never in the ledger, so that one query finds a subject's
// introductions.
func SubjectKey(email string) string {
	return subjectHash("subject/v2", SubjectAddress(email))
}

// legacySubjectKey is the v1 key introductions kept before v2 still carry.
func legacySubjectKey(email string) string {
	return subjectHash("subject/v1", NormaliseEmail(email))
}

func subjectHash(version, address string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + address))
	return hex.EncodeToString(sum[:])
}

// Subject is the data subject behind email, for an access or erasure
// request: found under either key, owned when the stored address has
// their SubjectKey.
func Subject(email string) intake.SubjectQuery {
	key := SubjectKey(email)
	return intake.SubjectQuery{
		Keys: []string{key, legacySubjectKey(email)},
		Owns: func(stored string) bool { return SubjectKey(stored) == key },
	}
}

// SubjectAddress returns the form of an address that names its subject:
// trimmed, invisible characters dropped, NFKC; the local part simple-case-
// folded (ß and ss apart) without a +tag; the domain in IDNA ASCII form,
// else NFKC in lower case.
func SubjectAddress(email string) string {
	s := strings.TrimSpace(norm.NFKC.String(strings.Map(textrules.DropInvisible, email)))
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return norm.NFKC.String(strings.Map(simpleFold, s))
	}
	local, domain := norm.NFKC.String(strings.Map(simpleFold, s[:at])), s[at+1:]
	if plus := strings.IndexByte(local, '+'); plus > 0 {
		local = local[:plus]
	}
	if ascii, err := idna.Lookup.ToASCII(domain); err == nil {
		domain = ascii
	} else {
		domain = norm.NFKC.String(strings.Map(simpleFold, domain))
	}
	return local + "@" + domain
}

// simpleFold maps r to one member of its simple case-folding orbit, the
// same for every member ("K" and the Kelvin sign are "k"; "ẞ" is "ß").
func simpleFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	lower := unicode.ToLower(least)
	for f := unicode.SimpleFold(least); ; f = unicode.SimpleFold(f) {
		if f == lower {
			return lower
		}
		if f == least {
			return least
		}
	}
}
