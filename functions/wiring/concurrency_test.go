package wiring_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/testsupport"
)

const rounds = 3

func TestConcurrentConfirmationsMakeOneTransition(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "100", "FLOOD_LIMIT": "1000"})
	unknown := h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": strings.Repeat("C", 43)})
	for round := 0; round < rounds; round++ {
		d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"email": fmt.Sprintf("c%d@example.com", round)})).json(t)
		id, token := d["id"].(string), d["token"].(string)
		results := make([]response, 50)
		testsupport.AtOnce(50, func(i int) {
			tok := token
			if i%2 == 1 {
				tok = strings.Repeat("W", 43)
			}
			results[i] = h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": tok})
		})
		var success []byte
		for i, r := range results {
			if i%2 == 1 {
				if r.status != http.StatusNotFound || !bytes.Equal(r.body, unknown.body) {
					t.Fatalf("round %d: a wrong token must be answered like an unknown id: %d %s", round, r.status, r.body)
				}
				continue
			}
			if r.status != http.StatusOK {
				t.Fatalf("round %d: right token: %d %s", round, r.status, r.body)
			}
			if success == nil {
				success = r.body
			} else if !bytes.Equal(success, r.body) {
				t.Fatalf("round %d: every right-token caller gets the same success: %s vs %s", round, success, r.body)
			}
		}
	}
	// Exactly one transition per draft: the ledger holds one confirmed
	// entry per draft (HANDOFF_COMPLETE at commit: the admin inbox is the
	// one destination here), and one outbox per draft.
	confirmed := 0
	for _, doc := range h.docs("ledger") {
		confirmed += strings.Count(doc, `"HANDOFF_COMPLETE"`)
	}
	if confirmed != rounds {
		t.Fatalf("%d ledger entries confirmed, want %d", confirmed, rounds)
	}
	if n := h.count("envelopes"); n != rounds {
		t.Fatalf("%d envelopes, want one (the admin inbox) per confirmed draft: %d", n, rounds)
	}
}

func TestConcurrentDraftsSpendOneSolutionOnce(t *testing.T) {
	h := newHarness(t, map[string]string{"FLOOD_LIMIT": "1000"})
	for round := 0; round < rounds; round++ {
		solution := h.solved()
		statuses := make([]int, 20)
		testsupport.AtOnce(20, func(i int) {
			r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": solution, "email": fmt.Sprintf("s%d-%d@example.com", round, i)}), fromAddress(addr(round*20+i))...)
			statuses[i] = r.status
		})
		kept := 0
		for _, s := range statuses {
			switch s {
			case http.StatusCreated:
				kept++
			case http.StatusUnprocessableEntity:
			default:
				t.Fatalf("round %d: unexpected status %d", round, s)
			}
		}
		if kept != 1 {
			t.Fatalf("round %d: %d drafts kept with one solution, want exactly 1", round, kept)
		}
	}
	if n := h.count("introductions"); n != rounds {
		t.Fatalf("%d introductions stored, want %d", n, rounds)
	}
}

func TestConcurrentDraftsFromOneAddressKeepTen(t *testing.T) {
	// Escalation off: the limit is what this counts.
	h := newHarness(t, map[string]string{"FLOOD_LIMIT": "1000", "POW_MAX_ESCALATED": "3000"})
	for round := 0; round < rounds; round++ {
		source := fmt.Sprintf("192.0.2.%d", 100+round)
		bodies := make([]map[string]any, 30)
		for i := range bodies {
			bodies[i] = h.draftBody(map[string]any{"email": fmt.Sprintf("r%d-%d@example.com", round, i)})
		}
		results := make([]response, 30)
		testsupport.AtOnce(30, func(i int) { results[i] = h.postJSON("/api/introductions", bodies[i], fromAddress(source)...) })
		kept, limited := 0, 0
		for _, r := range results {
			switch r.status {
			case http.StatusCreated:
				kept++
			case http.StatusTooManyRequests:
				if r.header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
				limited++
			default:
				t.Fatalf("round %d: unexpected %d %s", round, r.status, r.body)
			}
		}
		if kept != 10 || limited != 20 {
			t.Fatalf("round %d: kept %d, limited %d; want 10 and 20", round, kept, limited)
		}
	}
}

func TestConcurrentIdenticalIdempotentRequestsMakeOneDraft(t *testing.T) {
	h := newHarness(t, map[string]string{"FLOOD_LIMIT": "1000"})
	for round := 0; round < rounds; round++ {
		body := h.draftBody(map[string]any{"email": fmt.Sprintf("i%d@example.com", round)})
		key := fmt.Sprintf("round-%d-6f1d2a7e-93b4", round)
		results := make([]response, 20)
		testsupport.AtOnce(20, func(i int) { results[i] = h.postJSON("/api/introductions", body, "Idempotency-Key", key) })
		ids := map[string]bool{}
		for _, r := range results {
			switch r.status {
			case http.StatusCreated:
				ids[r.json(t)["id"].(string)] = true
			case http.StatusConflict:
				if r.code(t) != "IDEMPOTENCY_IN_FLIGHT" {
					t.Fatalf("409 with code %s", r.code(t))
				}
			default:
				t.Fatalf("round %d: unexpected %d %s", round, r.status, r.body)
			}
		}
		if len(ids) != 1 {
			t.Fatalf("round %d: %d distinct drafts, want 1", round, len(ids))
		}
		// After the rush, a retry replays the same draft.
		r := h.postJSON("/api/introductions", body, "Idempotency-Key", key)
		if r.status != http.StatusCreated || !ids[r.json(t)["id"].(string)] {
			t.Fatalf("round %d: retry after the rush: %d %s", round, r.status, r.body)
		}
	}
	if n := h.count("introductions"); n != rounds {
		t.Fatalf("%d introductions stored, want %d", n, rounds)
	}
}
