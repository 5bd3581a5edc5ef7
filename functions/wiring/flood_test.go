package wiring_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/iterator"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// refusalEntries returns the aggregated refusal entries of the ledger.
func (h *harness) refusalEntries() []intake.LedgerEntry {
	h.t.Helper()
	it := h.db.Collection("ledger").Documents(context.Background())
	defer it.Stop()
	var out []intake.LedgerEntry
	for {
		d, err := it.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			h.t.Fatal(err)
		}
		var e intake.LedgerEntry
		if err := d.DataTo(&e); err != nil {
			h.t.Fatal(err)
		}
		if e.Refusals != nil {
			out = append(out, e)
		}
	}
}

// TestAFloodCostsMemoryNotWrites floods the service three ways — drafts
// from one address past the flood layer, malformed drafts from many IPv6
// networks, guessed-id confirmations from one address — and counts the
// service's Firestore calls: none for any refusal before the checks while
// the window lasts, then one write per source and window, once.
func TestAFloodCostsMemoryNotWrites(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "2", "FLOOD_LIMIT": "5", "FLOOD_WINDOW": "10m"})
	h.quietDay()
	now := h.clock.Now()
	h.clock.Advance(now.Truncate(10 * time.Minute).Add(11 * time.Minute).Sub(now)) // a minute into a flood window
	forged := map[string]any{"altcha": "eyJhbGdvcml0aG0iOiJTSEEtMjU2In0="}
	const flooder = "198.51.100.60"
	for i := range 5 {
		if r := h.postJSON("/api/introductions", h.draftBody(forged), fromAddress(flooder)...); r.status != 422 {
			t.Fatalf("draft %d under the flood limit: %d %s", i+1, r.status, r.body)
		}
	}

	h.rpcs.Reset()
	for i := range 200 {
		if r := h.postJSON("/api/introductions", h.draftBody(forged), fromAddress(flooder)...); r.status != 429 {
			t.Fatalf("flood draft %d: %d %s", i+1, r.status, r.body)
		}
	}
	for i := range 50 {
		r := h.postJSON("/api/introductions", h.draftBody(forged), append(fromAddress(fmt.Sprintf("2001:db8:%x::1", i)), "Idempotency-Key", "bad")...)
		if r.status != 400 {
			t.Fatalf("malformed draft %d: %d %s", i+1, r.status, r.body)
		}
	}
	const guesser = "198.51.100.61"
	for i := range 100 {
		r := h.postJSON(fmt.Sprintf("/api/introductions/%022d/confirmation", i), map[string]string{"token": strings.Repeat("B", 43)}, fromAddress(guesser)...)
		if want := map[bool]int{true: 404, false: 429}[i < 5]; r.status != want {
			t.Fatalf("guessed confirmation %d: %d %s, want %d", i+1, r.status, r.body, want)
		}
	}
	if n := h.rpcs.Count(); n != 5 {
		t.Fatalf("the flood made %d Firestore calls; want 5 (the five guesses under the flood limit, one read each)", n)
	}
	if got := h.refusalEntries(); len(got) != 0 {
		t.Fatalf("refusal counts written before their window ended: %d", len(got))
	}

	h.clock.Advance(10 * time.Minute)
	h.rpcs.Reset()
	if err := h.svc.Flow.FlushRefusals(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if n := h.rpcs.Count(); n != 52 {
		t.Fatalf("flushing made %d Firestore calls; want 52 (one per source: the flooder, 50 networks, the guesser)", n)
	}
	entries := h.refusalEntries()
	if len(entries) != 52 {
		t.Fatalf("%d refusal entries, want 52", len(entries))
	}
	counts := map[int]int{}
	for _, e := range entries {
		r := e.Refusals
		counts[r.Count]++
		if r.KeyHash == "" || r.Sources != 1 || r.WindowSeconds != 600 || e.Decision != intake.DecisionRejected {
			t.Fatalf("entry %+v", e)
		}
		switch r.Count {
		case 200:
			if !slices.Equal(r.Codes, []intake.Code{intake.CodeRateLimited}) || !slices.Equal(r.Moves, []string{"draft"}) || e.Abuse.State != intake.AbuseRateLimited {
				t.Fatalf("the flooder's entry: %+v %+v", r, e.Abuse)
			}
		case 95:
			if !slices.Equal(r.Moves, []string{"confirmation"}) {
				t.Fatalf("the guesser's entry: %+v", r)
			}
		case 1:
			if !slices.Equal(r.Codes, []intake.Code{intake.CodeIdempotencyKeyInvalid}) {
				t.Fatalf("a network's entry: %+v", r)
			}
		}
	}
	if counts[200] != 1 || counts[95] != 1 || counts[1] != 50 {
		t.Fatalf("counts by entry: %v", counts)
	}
	for _, doc := range h.docs("ledger") {
		for _, canary := range []string{flooder, guesser, "2001:db8"} {
			if strings.Contains(doc, canary) {
				t.Fatalf("a ledger entry holds the raw address %s: %s", canary, doc)
			}
		}
	}

	h.ledgerMatchesSchema()

	h.rpcs.Reset()
	if err := h.svc.Flow.FlushRefusals(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if n := h.rpcs.Count(); n != 0 {
		t.Fatalf("a second flush made %d calls: each window is written once", n)
	}
}

// quietDay moves the clock to five minutes into the next UTC day and lets
// that day's background sweep (started by its first draft) run to its end
// on each instance, so that Firestore calls counted afterwards are the
// requests' own.
func (h *harness) quietDay(instances ...*harness) {
	h.t.Helper()
	now := h.clock.Now()
	h.clock.Advance(now.Truncate(24 * time.Hour).Add(24*time.Hour + 5*time.Minute).Sub(now))
	for _, i := range append([]*harness{h}, instances...) {
		i.postJSON("/api/introductions", map[string]any{"formId": "introduction", "formVersion": "1"}, fromAddress("192.0.2.254")...)
		i.svc.Sweeps.Wait()
	}
}

// ledgerMatchesSchema validates every ledger entry in the database against
// the ledger's JSON Schema (intake.LedgerSchema).
func (h *harness) ledgerMatchesSchema() {
	h.t.Helper()
	schema := testsupport.LedgerSchema(h.t, "")
	it := h.db.Collection("ledger").Documents(context.Background())
	defer it.Stop()
	for {
		d, err := it.Next()
		if err == iterator.Done {
			return
		}
		if err != nil {
			h.t.Fatal(err)
		}
		var e intake.LedgerEntry
		if err := d.DataTo(&e); err != nil {
			h.t.Fatal(err)
		}
		e.ID = d.Ref.ID
		testsupport.MatchesSchema(h.t, schema, "ledger entry "+d.Ref.ID, e)
	}
}
