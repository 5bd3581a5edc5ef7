// Package contentrules applies the content rules and the consent rule to a
// submission, against the form version it was made on: each failing field
// yields one intake.FieldError (the first rule it fails) with the field's
// code and a client-safe detail. README.md lists the rules.
package contentrules

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// ConsentsField is the body field consent problems are reported on.
const ConsentsField = "consents"

// Check applies version v's content and consent rules to s: kept is s as stored (normalised,
// a field v does not have dropped), errs one FieldError per failing field in v's order, then
// one CONSENT_REQUIRED on "consents". Only when errs is nil may kept be stored; Check(v, kept)
// returns it unchanged.
func Check(v *formregistry.Version, s intake.Submission) (kept intake.Submission, errs []intake.FieldError) {
	kept = s
	kept.Consents = append([]intake.ConsentClaim(nil), s.Consents...)
	kept.Added = nil
	f := &kept.Fields
	carried := map[string]*string{"name": &f.Name, "company": &f.Company, "role": &f.Role, "email": &f.Email,
		"message": &f.Message, "conversation": &kept.Conversation}
	// Each field of v in its order, carried or added (kept in Added).
	values := map[string]*string{}
	for i := range v.Fields {
		f := &v.Fields[i]
		value := carried[f.Name]
		if value == nil {
			value = new(string)
			*value = s.Added[f.Name]
		}
		values[f.Name] = value
		var fe *intake.FieldError
		if *value, fe = checkField(f, *value); fe != nil {
			errs = append(errs, *fe)
		}
		if carried[f.Name] == nil && *value != "" {
			if kept.Added == nil {
				kept.Added = map[string]string{}
			}
			kept.Added[f.Name] = *value
		}
	}
	for name, value := range carried {
		if values[name] == nil {
			*value = ""
		}
	}
	if fe := checkConsents(v, kept, values); fe != nil {
		errs = append(errs, *fe)
	}
	return kept, errs
}

// checkField normalises one field's value and applies its rules.
func checkField(f *formregistry.Field, raw string) (string, *intake.FieldError) {
	kept := normalise(raw)
	if f.Type == formregistry.FieldEmail {
		kept = norm.NFKC.String(kept)
	}
	fail := func(code intake.Code, format string, args ...any) (string, *intake.FieldError) {
		return kept, &intake.FieldError{Field: f.Name, Code: code, Detail: fmt.Sprintf(format, args...)}
	}
	if !utf8.ValidString(raw) {
		return fail(f.Code, "This holds bytes that are not readable text. Please type it again rather than pasting it.")
	}
	if detail := textrules.BadCharacter(kept, f.Type.Multiline()); detail != "" {
		return fail(f.Code, "%s", detail)
	}
	if kept == "" {
		if f.Required {
			return fail(f.Code, "Please fill this in; it is required.")
		}
		return kept, nil
	}
	if f.Required && !hasLetterOrDigit(kept) {
		return fail(f.Code, "This needs at least one letter or digit; please write it out in words.")
	}
	if !hasVisible(kept) {
		return fail(f.Code, "This holds only characters that do not show. Please remove them or write something.")
	}
	if n := utf8.RuneCountInString(kept); n > f.MaxLength {
		return fail(f.TooLongCode, "This is %d characters long and the limit is %d. Please shorten it by %d %s.", n, f.MaxLength, n-f.MaxLength, plural(n-f.MaxLength, "character"))
	}
	if f.Type == formregistry.FieldEmail {
		if detail := checkEmail(kept); detail != "" {
			return fail(f.Code, "%s", detail)
		}
	}
	if f.Type.Multiline() {
		if n := textrules.CountLinks(kept); n > f.MaxLinks {
			return fail(f.TooManyLinksCode, "This holds %d links and at most %d are allowed. Please remove %d %s (a link is anything starting with http://, https://, // or www., or a domain followed by a path such as example.com/page).", n, f.MaxLinks, n-f.MaxLinks, plural(n-f.MaxLinks, "link"))
		}
	}
	return kept, nil
}

// newlines maps line breaks to LF and the tab to a space.
var newlines = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n", "\t", " ")

// normalise returns s as stored: valid UTF-8 (U+FFFD for invalid bytes,
// which are refused), LF line breaks, tabs as spaces, trimmed.
func normalise(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = newlines.Replace(s)
	return strings.TrimSpace(s)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// checkConsents applies the consent rule: each claim names a consent
// purpose of v at its current text version, once; data for a consent
// purpose comes with that consent given.
func checkConsents(v *formregistry.Version, kept intake.Submission, values map[string]*string) *intake.FieldError {
	fail := func(detail string) *intake.FieldError {
		return &intake.FieldError{Field: ConsentsField, Code: intake.CodeConsentRequired, Detail: detail}
	}
	purposes := map[string]*formregistry.Purpose{}
	for i := range v.Purposes {
		purposes[v.Purposes[i].ID] = &v.Purposes[i]
	}
	seen := map[string]bool{}
	for _, c := range kept.Consents {
		p := purposes[c.Purpose]
		if p == nil || p.Consent == nil || c.TextVersion != p.Consent.TextVersion {
			return fail("The consent text has changed since this page was loaded. Please reload the page, read the text again, and send your introduction again.")
		}
		if seen[c.Purpose] {
			return fail("A consent was sent more than once. Please reload the page and send your introduction again.")
		}
		seen[c.Purpose] = true
	}
	for _, f := range v.Fields {
		if f.Purpose == "" || *values[f.Name] == "" || given(purposes[f.Purpose], kept) {
			continue
		}
		return fail(fmt.Sprintf("“%s” is sent only with your consent. Please tick the box that allows it, or leave it empty.", f.Label))
	}
	return nil
}

// given reports whether kept consents to p (nil: none) at its current text.
func given(p *formregistry.Purpose, kept intake.Submission) bool {
	if p == nil || p.Consent == nil {
		return false
	}
	for _, c := range kept.Consents {
		if c.Purpose == p.ID && c.Given && c.TextVersion == p.Consent.TextVersion {
			return true
		}
	}
	return false
}

// hasLetterOrDigit reports whether s holds a letter or digit of any script.
func hasLetterOrDigit(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// hasVisible reports whether s holds a letter, digit, punctuation or symbol
// (U+2800 BRAILLE PATTERN BLANK, a blank look-alike, aside).
func hasVisible(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\u2800' && unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S) })
}

// Evidence returns a checked submission's consent evidence under v as shown (one per consent
// given, ActivelyChecked; ConfirmedAt left to the confirmation) and one PurposeRecord per
// purpose, granted when required or consented to.
func Evidence(v *formregistry.Version, kept intake.Submission, at time.Time, withdrawalPath string) ([]intake.ConsentEvidence, []intake.PurposeRecord) {
	var evidence []intake.ConsentEvidence
	records := make([]intake.PurposeRecord, 0, len(v.Purposes))
	for _, p := range v.Purposes {
		g := given(&p, kept)
		records = append(records, intake.PurposeRecord{ID: p.ID, Basis: p.Basis, Required: p.Required, Granted: p.Required || g})
		if !g {
			continue
		}
		evidence = append(evidence, intake.ConsentEvidence{
			Purpose:         p.ID,
			Basis:           p.Basis,
			Lang:            v.Lang,
			TextVersion:     p.Consent.TextVersion,
			TextSHA256:      p.Consent.SHA256,
			Control:         p.Consent.Control,
			ActivelyChecked: true,
			GivenAt:         at,
			WithdrawalPath:  withdrawalPath,
		})
	}
	return evidence, records
}

// EvidenceMatches reports whether stored evidence still matches v (from
// Registry.Find) in the language it names (else v's first): a consent
// purpose with the same basis, text version, text SHA-256 and control.
func EvidenceMatches(v *formregistry.Version, e intake.ConsentEvidence) bool {
	if e.Lang != "" {
		in, ok := v.In(e.Lang)
		if !ok {
			return false
		}
		v = in
	} else if in, ok := v.In(v.Langs()[0]); ok {
		v = in
	}
	p, ok := v.Purpose(e.Purpose)
	if !ok || p.Consent == nil {
		return false
	}
	return p.Basis == e.Basis && p.Consent.TextVersion == e.TextVersion &&
		p.Consent.SHA256 == e.TextSHA256 && p.Consent.Control == e.Control
}

// checkEmail returns "" for an address the form accepts, else what is wrong: nothing
// invisible, one @; a local part of 1 to 64 bytes without whitespace, ( ) < > [ ] \ , ; : " ? %
// or an outer or doubled dot; a dotted domain of at most 253 bytes, labels of 1 to 63 letters,
// digits and inner hyphens, the last not all digits.
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

// NormaliseEmail returns the address's form for the email rate key only: trimmed, invisibles
// dropped, NFKC, case-folded, +tag removed (" Ada+jobs@Example.com" is "ada@example.com").
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

// SubjectKey names the data subject behind an address: the hex SHA-256 of "subject/v2", a NUL
// and SubjectAddress(email), stored beside the address (never in the ledger) for one query.
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

// Subject is the data subject behind email, for an access or erasure request: found under
// either key, owned when the stored address has their SubjectKey.
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
