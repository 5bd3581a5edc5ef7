package wiring_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

// ledgerEntries reads every ledger entry by id.
func (h *harness) ledgerEntries() map[string]intake.LedgerEntry {
	h.t.Helper()
	snaps, err := h.db.Collection("ledger").Documents(context.Background()).GetAll()
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]intake.LedgerEntry{}
	for _, s := range snaps {
		var e intake.LedgerEntry
		if err := s.DataTo(&e); err != nil {
			h.t.Fatal(err)
		}
		e.ID = s.Ref.ID
		out[s.Ref.ID] = e
	}
	return out
}

// TestEachRefusalRecordsWhatValidationLearnt: the ledger entry of every
// kind of refusal says what the content rules found — FAIL with the codes
// when they refused, PASS when they passed and a later check refused,
// UNKNOWN when the refusal came before them — never PASS for content that
// was refused or never checked. Each case makes exactly one refusal entry
// (tallies flushed at once).
func TestEachRefusalRecordsWhatValidationLearnt(t *testing.T) {
	h := newHarness(t, map[string]string{"FLOOD_LIMIT": "3", "RATE_LIMIT_IP_PER_HOUR": "3", "RATE_LIMIT_EMAIL_PER_HOUR": "1"})
	h.quietDay()
	guess := func(from, move string) response {
		return h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/"+move, map[string]string{"token": strings.Repeat("G", 43)}, fromAddress(from)...)
	}
	spent := h.solved()
	var kept map[string]any // the draft case "a revision" revises
	cases := []struct {
		name   string
		send   func() response
		status int
		result intake.Validation
		codes  []intake.Code
		abuse  intake.AbuseState
		tally  bool
	}{
		{"the flood layer (a draft)", func() response {
			for range 3 {
				guess("198.51.100.101", "confirmation")
			}
			return h.postJSON("/api/introductions", h.draftBody(nil), fromAddress("198.51.100.101")...)
		}, http.StatusTooManyRequests, intake.ValidationUnknown, []intake.Code{}, intake.AbuseRateLimited, true},
		{"the flood layer (a confirmation)", func() response {
			for range 3 {
				guess("198.51.100.102", "withdrawal")
			}
			return guess("198.51.100.102", "confirmation")
		}, http.StatusTooManyRequests, intake.ValidationUnknown, []intake.Code{}, intake.AbuseRateLimited, true},
		{"a malformed Idempotency-Key", func() response {
			return h.postJSON("/api/introductions", h.draftBody(nil), append(fromAddress("198.51.100.103"), "Idempotency-Key", "bad")...)
		}, http.StatusBadRequest, intake.ValidationUnknown, []intake.Code{}, intake.AbuseClean, true},
		{"an unknown form version", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"formVersion": "9"}), fromAddress("198.51.100.104")...)
		}, http.StatusUnprocessableEntity, intake.ValidationUnknown, []intake.Code{}, intake.AbuseClean, true},
		{"the content rules", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"name": "  ", "email": "ada@localhost"}), fromAddress("198.51.100.105")...)
		}, http.StatusUnprocessableEntity, intake.ValidationFail, []intake.Code{intake.CodeNameInvalid, intake.CodeEmailInvalid}, intake.AbuseContentRejected, false},
		{"the content rules, honeypot filled", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"website": "https://spam.example", "message": "\u200b"}), fromAddress("198.51.100.106")...)
		}, http.StatusUnprocessableEntity, intake.ValidationFail, []intake.Code{intake.CodeMessageInvalid}, intake.AbuseContentRejected, false},
		{"the honeypot: a decoy", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"website": "https://spam.example"}), fromAddress("198.51.100.107")...)
		}, http.StatusCreated, intake.ValidationPass, []intake.Code{}, intake.AbuseHoneypot, false},
		{"the proof of work", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": "eyJhbGdvcml0aG0iOiJTSEEtMjU2In0="}), fromAddress("198.51.100.108")...)
		}, http.StatusUnprocessableEntity, intake.ValidationPass, []intake.Code{}, intake.AbusePowFailed, false},
		{"a spent proof of work", func() response {
			if r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": spent, "email": "first@example.com"}), fromAddress("198.51.100.109")...); r.status != http.StatusCreated {
				t.Fatalf("the first use of the solution: %d %s", r.status, r.body)
			}
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": spent}), fromAddress("198.51.100.110")...)
		}, http.StatusUnprocessableEntity, intake.ValidationPass, []intake.Code{}, intake.AbusePowFailed, false},
		{"the authoritative email limit", func() response {
			body := map[string]any{"email": "limited@example.com"}
			if r := h.postJSON("/api/introductions", h.draftBody(body), fromAddress("198.51.100.111")...); r.status != http.StatusCreated {
				t.Fatalf("the first draft: %d %s", r.status, r.body)
			}
			return h.postJSON("/api/introductions", h.draftBody(body), fromAddress("198.51.100.111")...)
		}, http.StatusTooManyRequests, intake.ValidationPass, []intake.Code{}, intake.AbuseRateLimited, false},
		{"the email limit remembered", func() response {
			return h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "limited@example.com"}), fromAddress("198.51.100.111")...)
		}, http.StatusTooManyRequests, intake.ValidationUnknown, []intake.Code{}, intake.AbuseRateLimited, true},
		{"a revision the content rules refuse", func() response {
			r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": "reviser@example.com"}), fromAddress("198.51.100.112")...)
			if r.status != http.StatusCreated {
				t.Fatalf("the draft: %d %s", r.status, r.body)
			}
			kept = r.json(t)
			return h.postJSON("/api/introductions/"+kept["id"].(string)+"/revision", revision(kept["token"].(string), map[string]any{"message": "https://a.example https://b.example https://c.example https://d.example"}), fromAddress("198.51.100.112")...)
		}, http.StatusUnprocessableEntity, intake.ValidationFail, []intake.Code{intake.CodeMessageTooManyLinks}, intake.AbuseContentRejected, true},
		{"the flood layer (a revision)", func() response {
			for range 3 {
				guess("198.51.100.113", "confirmation")
			}
			return h.postJSON("/api/introductions/"+kept["id"].(string)+"/revision", revision(kept["token"].(string), nil), fromAddress("198.51.100.113")...)
		}, http.StatusTooManyRequests, intake.ValidationUnknown, []intake.Code{}, intake.AbuseRateLimited, true},
	}
	for _, tc := range cases {
		before := h.ledgerEntries()
		r := tc.send()
		if r.status != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.name, r.status, r.body, tc.status)
		}
		if err := h.svc.Flow.FlushRefusals(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		var refused []intake.LedgerEntry
		for id, e := range h.ledgerEntries() {
			if _, ok := before[id]; !ok && e.Decision == intake.DecisionRejected {
				refused = append(refused, e)
			}
		}
		if len(refused) != 1 {
			t.Fatalf("%s: %d new refusal entries, want 1: %+v", tc.name, len(refused), refused)
		}
		e := refused[0]
		if e.Validation.Result != tc.result || !slices.Equal(e.Validation.Codes, tc.codes) || e.Abuse.State != tc.abuse || (e.Refusals != nil) != tc.tally {
			t.Errorf("%s: validation %s %v, abuse %s, a tally %v; want %s %v, %s, %v", tc.name,
				e.Validation.Result, e.Validation.Codes, e.Abuse.State, e.Refusals != nil, tc.result, tc.codes, tc.abuse, tc.tally)
		}
	}
	h.ledgerMatchesSchema()
}
