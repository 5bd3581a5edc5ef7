package contentrules

import (
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Evidence returns the consent evidence of a submission that passed Check:
// one ConsentEvidence per consent given under the version's current text,
// v being the version in the language the visitor was shown (purpose,
// basis, language, text version, the SHA-256 of that language's text from
// the registry, the checkbox, actively checked, given at, and the
// withdrawal path), and one
// PurposeRecord per purpose of the version, granted when the purpose is
// required or its consent was given. ActivelyChecked is true because the
// page's consent boxes start unticked and a claim is given only by a tick;
// ConfirmedAt is left for the confirm step.
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

// EvidenceMatches reports whether stored consent evidence still matches the
// registry's version it was given under, in the language it names (the
// version file's when it names none): a consent purpose of v with the same
// basis, text version, text SHA-256 in that language, and control. It only
// reports: acting on a mismatch is the caller's business. Look v up with
// (*formregistry.Registry).Find, which keeps retired versions.
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
