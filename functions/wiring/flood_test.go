package wiring_test

import (
	"context"
	"fmt"
	"net/http"
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

// TestRefusedRevisionsCostATallyNotADocument: one real draft, then 200
// revisions with its token that the content rules refuse, and 200 with a
// wrong token from another address. A refused revision counts toward the
// draft's 20 (then 429 until it expires), the route sits behind the flood
// layer (429 from the 61st request of an address, with no Firestore call),
// and no refusal writes a ledger document of its own: after the window,
// one entry per source and window (FAIL with the codes for the content
// refusals, bound to the draft; UNKNOWN for the flood layer's).
func TestRefusedRevisionsCostATallyNotADocument(t *testing.T) {
	h := newHarness(t, map[string]string{"FLOOD_LIMIT": "60", "FLOOD_WINDOW": "10m"})
	h.quietDay()
	now := h.clock.Now()
	h.clock.Advance(now.Truncate(10 * time.Minute).Add(11 * time.Minute).Sub(now)) // a minute into a flood window
	const visitor, guesser = "198.51.100.70", "198.51.100.71"
	created := h.postJSON("/api/introductions", h.draftBody(nil), fromAddress(visitor)...)
	d := created.json(t)
	id, token := d["id"].(string), d["token"].(string)
	path := "/api/introductions/" + id + "/revision"
	ledger := h.count("ledger")

	for i := 1; i <= 200; i++ { // with the draft, the 59th revision is the visitor's 60th request
		r := h.postJSON(path, revision(token, map[string]any{"name": "  "}), fromAddress(visitor)...)
		want, code := http.StatusUnprocessableEntity, "NAME_INVALID"
		if i > intake.MaxRevisions {
			want, code = http.StatusTooManyRequests, "RATE_LIMITED"
		}
		if r.status != want || r.code(t) != code {
			t.Fatalf("refused revision %d: %d %s, want %d %s", i, r.status, r.body, want, code)
		}
		if i == 59 {
			h.rpcs.Reset()
		}
	}
	if n := h.rpcs.Count(); n != 0 {
		t.Errorf("the revisions past the flood limit made %d Firestore calls", n)
	}
	for i := 1; i <= 200; i++ {
		r := h.postJSON(path, revision(strings.Repeat("W", 43), nil), fromAddress(guesser)...)
		if want := map[bool]int{true: http.StatusNotFound, false: http.StatusTooManyRequests}[i <= 60]; r.status != want {
			t.Fatalf("wrong-token revision %d: %d %s, want %d", i, r.status, r.body, want)
		}
		if i == 60 {
			h.rpcs.Reset()
		}
	}
	if n := h.rpcs.Count(); n != 0 {
		t.Errorf("the wrong-token revisions past the flood limit made %d Firestore calls", n)
	}
	if n := h.count("ledger") - ledger; n != 0 {
		t.Fatalf("400 refused revisions wrote %d ledger documents while the window lasted", n)
	}
	if got := h.stored("introductions", id); got["name"] != "Ada Lovelace" || got["revisions"] != int64(intake.MaxRevisions) {
		t.Fatalf("the draft after 20 refused revisions: %v", got)
	}
	if got := h.stored("ledger", id); got["revisions"] != int64(intake.MaxRevisions) {
		t.Fatalf("the draft's ledger entry: %v", got)
	}

	h.clock.Advance(10 * time.Minute)
	if err := h.svc.Flow.FlushRefusals(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	entries := h.refusalEntries()
	if len(entries) != 3 {
		t.Fatalf("%d refusal entries, want 3 (the content refusals, each address's flood refusals): %+v", len(entries), entries)
	}
	kinds := map[string]bool{}
	for _, e := range entries {
		r := e.Refusals
		if !slices.Equal(r.Moves, []string{"revision"}) || r.Sources != 1 || r.KeyHash == "" {
			t.Fatalf("entry %+v %+v", e, r)
		}
		switch {
		case e.SubmissionID == id:
			kinds["content"] = true
			if r.Count != intake.MaxRevisions || e.Validation.Result != intake.ValidationFail ||
				!slices.Equal(e.Validation.Codes, []intake.Code{intake.CodeNameInvalid}) || e.Abuse.State != intake.AbuseContentRejected {
				t.Errorf("the content refusals' entry: %+v %+v", e, r)
			}
		case r.Count == 141 || r.Count == 140: // the visitor's 141 past its draft and 59 revisions; the guesser's 140
			kinds[r.KeyHash] = true
			if e.SubmissionID != "" || e.Validation.Result != intake.ValidationUnknown || e.Abuse.State != intake.AbuseRateLimited {
				t.Errorf("a flood entry: %+v %+v", e, r)
			}
		default:
			t.Errorf("unexpected entry %+v %+v", e, r)
		}
	}
	if len(kinds) != 3 {
		t.Errorf("entries by kind: %v", kinds)
	}
	h.ledgerMatchesSchema()
}
