package contentrules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

func TestEvidence(t *testing.T) {
	v := v1(t)
	p, _ := v.Purpose("attach-conversation")
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	const withdrawal = "/api/introductions/abc/withdrawal"
	given := intake.ConsentEvidence{
		Purpose: "attach-conversation", Basis: intake.BasisConsent, Lang: "en",
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
		{"evidence from before it named its language", func(e *intake.ConsentEvidence) { e.Lang = "" }, true},
		{"a language the version is not shown in", func(e *intake.ConsentEvidence) { e.Lang = "fa" }, false},
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

// TestPersianEvidence: evidence of a consent given in Persian names fa and
// the Persian text's SHA-256, matches the registry in Persian only, and
// stops matching when the Persian text it names is not the registry's.
func TestPersianEvidence(t *testing.T) {
	base, ok := testsupport.Forms(t).Find("introduction", "2")
	if !ok {
		t.Fatal("no introduction/2")
	}
	fa, ok := base.In("fa")
	if !ok {
		t.Fatal("introduction/2 has no Persian texts")
	}
	s := good()
	s.FormVersion = "2"
	s.Consents = []intake.ConsentClaim{{Purpose: "future-roles", TextVersion: "future-roles/1", Given: true}}
	evidence, _ := Evidence(fa, s, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), "/w")
	p, _ := fa.Purpose("future-roles")
	if len(evidence) != 1 || evidence[0].Lang != "fa" || evidence[0].TextSHA256 != formregistry.TextSHA256(p.Consent.Text) {
		t.Fatalf("evidence = %+v, want fa and the Persian text's hash", evidence)
	}
	if !EvidenceMatches(base, evidence[0]) {
		t.Error("Persian evidence does not match the registry")
	}
	en := evidence[0]
	en.Lang = "en"
	if EvidenceMatches(base, en) {
		t.Error("the Persian text's hash matched the English text")
	}
}
