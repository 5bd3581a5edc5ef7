package contentrules

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

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
