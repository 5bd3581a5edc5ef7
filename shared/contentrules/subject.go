package contentrules

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/ownersite/introductions/shared/textrules"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/intake"
)

// SubjectKey names the data subject behind an email address: the SHA-256,
// in hex, of "subject/v2", a NUL and the address as SubjectAddress makes
// it, so that "Ada@Example.com", "ada+jobs@example.com " and
// "ada@EXAMPLE.com" name one person, "straße@example.com" and
// "strasse@example.com" two, and "ada@bücher.example" and
// "ada@xn--bcher-kva.example" one. It is stored beside the address (never
// instead of it, and never in the ledger) so that a data subject's request
// finds every introduction of theirs with one indexed query. It is no
// secret: whoever reads the introduction reads the address.
func SubjectKey(email string) string {
	return subjectHash("subject/v2", SubjectAddress(email))
}

// legacySubjectKey is the key introductions kept before SubjectKey's v2
// carry: the hash of "subject/v1" and NormaliseEmail's form, whose full
// case folding merges ß with ss and which leaves an internationalised
// domain as typed. No stored key is rewritten: an introduction kept before
// v2 keeps this key until its retention deletes it.
func legacySubjectKey(email string) string {
	return subjectHash("subject/v1", NormaliseEmail(email))
}

func subjectHash(version, address string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + address))
	return hex.EncodeToString(sum[:])
}

// Subject is the data subject behind email, for an access or erasure
// request: their introductions are stored under SubjectKey or, kept
// before it, under the v1 key, and an introduction found is theirs when
// its stored address has their SubjectKey (so a v1 key that merged
// "strasse@" into "straße@" finds only the one asked about).
func Subject(email string) intake.SubjectQuery {
	key := SubjectKey(email)
	return intake.SubjectQuery{
		Keys: []string{key, legacySubjectKey(email)},
		Owns: func(stored string) bool { return SubjectKey(stored) == key },
	}
}

// SubjectAddress returns the normal form of an address that names its
// data subject: surrounding whitespace trimmed, invisible characters
// removed, NFKC; the local part compared without case (Unicode simple
// case folding, which leaves ß and ss apart, as mail servers that fold
// case do) and without a +tag; the domain in its IDNA ASCII form
// (UTS #46 lookup, nontransitional: lower case, punycode), or, when the
// domain is no valid IDN, its NFKC form in lower case.
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

// simpleFold maps r to one member of its case orbit under Unicode simple
// case folding (unicode.SimpleFold), the same for every member: the
// orbit's lower-case form where its smallest member lowers into the orbit,
// else that smallest member. "K", "k" and the Kelvin sign are "k"; "ß" and
// "ẞ" are "ß" (never "ss"); "İ" and "ı", which fold to no other letter,
// stay themselves.
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
