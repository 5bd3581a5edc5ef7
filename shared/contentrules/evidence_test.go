package contentrules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

func TestEvidence(t *testing.T) {
	v := v1(t)
	p, _ := v.Purpose("attach-conversation")
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	const withdrawal = "/api/introductions/abc/withdrawal"
	given := intake.ConsentEvidence{
		Purpose: "attach-conversation", Basis: intake.BasisConsent,
		TextVersion: "attach-conversation/1", TextSHA256: p.Consent.SHA256, Control: "consent-attach-conversation",
		ActivelyChecked: true, GivenAt: at, WithdrawalPath: withdrawal,
	}
	records := func(conversation bool) []intake.PurposeRecord {
		return []intake.PurposeRecord{
			{ID: "introduction", Basis: intake.BasisLegitimateInterests, Required: true, Granted: true},
			{ID: "attach-conversation", Basis: intake.BasisConsent, Required: false, Granted: conversation},
		}
	}
	tests := []struct {
		name         string
		conversation string
		consents     []intake.ConsentClaim
		evidence     []intake.ConsentEvidence
		records      []intake.PurposeRecord
	}{
		{"conversation attached with consent", "Guide: Hello.", []intake.ConsentClaim{attach}, []intake.ConsentEvidence{given}, records(true)},
		{"consent given without a conversation", "", []intake.ConsentClaim{attach}, []intake.ConsentEvidence{given}, records(true)},
		{"no consent", "", nil, nil, records(false)},
		{"consent refused", "", []intake.ConsentClaim{{Purpose: "attach-conversation", TextVersion: "attach-conversation/1"}}, nil, records(false)},
		{"consent to another text is no evidence", "", []intake.ConsentClaim{{Purpose: "attach-conversation", TextVersion: "attach-conversation/0", Given: true}}, nil, records(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			s.Conversation = tt.conversation
			s.Consents = tt.consents
			evidence, purposes := Evidence(v, s, at, withdrawal)
			if !slices.Equal(evidence, tt.evidence) {
				t.Errorf("evidence = %+v\nwant %+v", evidence, tt.evidence)
			}
			if !slices.Equal(purposes, tt.records) {
				t.Errorf("purposes = %+v\nwant %+v", purposes, tt.records)
			}
		})
	}
	if len(p.Consent.SHA256) != 64 {
		t.Fatalf("registry consent hash %q is not a SHA-256", p.Consent.SHA256)
	}
}

func TestEvidenceMatches(t *testing.T) {
	v := v1(t)
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	s := good()
	s.Consents = []intake.ConsentClaim{attach}
	evidence, _ := Evidence(v, s, at, "/w")
	if len(evidence) != 1 {
		t.Fatalf("evidence = %+v", evidence)
	}
	tests := []struct {
		name   string
		change func(e *intake.ConsentEvidence)
		want   bool
	}{
		{"as recorded", func(e *intake.ConsentEvidence) {}, true},
		{"text hash changed", func(e *intake.ConsentEvidence) { e.TextSHA256 = strings.Repeat("0", 64) }, false},
		{"text version changed", func(e *intake.ConsentEvidence) { e.TextVersion = "attach-conversation/2" }, false},
		{"basis changed", func(e *intake.ConsentEvidence) { e.Basis = intake.BasisLegitimateInterests }, false},
		{"control changed", func(e *intake.ConsentEvidence) { e.Control = "other" }, false},
		{"purpose unknown", func(e *intake.ConsentEvidence) { e.Purpose = "future-roles" }, false},
		{"purpose without consent", func(e *intake.ConsentEvidence) { e.Purpose = "introduction" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := evidence[0]
			tt.change(&e)
			if got := EvidenceMatches(v, e); got != tt.want {
				t.Errorf("EvidenceMatches = %v, want %v", got, tt.want)
			}
		})
	}
}
