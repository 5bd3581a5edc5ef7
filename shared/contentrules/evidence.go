package contentrules

import (
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

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
