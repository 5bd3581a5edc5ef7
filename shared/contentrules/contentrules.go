// Package contentrules applies the content rules and the consent rule to a
// submission, against the form version it was made on: each failing field
// yields one intake.FieldError (the first rule it fails) with the field's
// code and a client-safe detail. README.md lists the rules.
package contentrules

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/textrules"
)

// ConsentsField is the body field consent problems are reported on.
const ConsentsField = "consents"

// Check applies version v's content and consent rules to s. It returns s
// as it would be stored (normalised; a field v does not have dropped) and
// one FieldError per failing field in v's order, then one CONSENT_REQUIRED
// on "consents". errs is nil exactly when s passes; only then may kept be
// stored, and Check(v, kept) returns it unchanged.
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

// Evidence returns a checked submission's consent evidence under v as shown
// (one per consent given; ActivelyChecked, as boxes start unticked;
// ConfirmedAt left to the confirmation) and one PurposeRecord per purpose,
// granted when required or consented to.
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
