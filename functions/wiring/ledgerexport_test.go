package wiring_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestTheLedgerExportHoldsEveryKindOfEntry makes one attempt of every
// kind through the service (a content refusal, a honeypot's decoy, a
// refusal before the checks counted in its window's entry, a draft left to
// expire and swept, a withdrawn and an erased introduction), then exports
// the ledger for the days they fall on: NDJSON, one line per live entry of
// the ledger, each one matching the ledger schema, every kind among them,
// and none of the visitor's words; the page's download is the same file.
func TestTheLedgerExportHoldsEveryKindOfEntry(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "100", "FLOOD_LIMIT": "1000"})
	first := h.clock.Now()
	canary := func(kind string) string { return "canary-" + kind + "-5e1d" }
	draft := func(kind string, i int, overrides map[string]any, headers ...string) response {
		t.Helper()
		b := h.draftBody(withOverrides(map[string]any{"name": canary(kind), "message": canary(kind) + " would like to talk.",
			"email": canary(kind) + "@example.com"}, overrides))
		return h.postJSON("/api/introductions", b, append(fromAddress(addr(i)), headers...)...)
	}
	confirmed := func(kind string, i int) (string, string) {
		t.Helper()
		d := draft(kind, i, nil)
		if d.status != http.StatusCreated {
			t.Fatalf("%s: draft %d %s", kind, d.status, d.body)
		}
		m := d.json(t)
		id, token := m["id"].(string), m["token"].(string)
		if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
			t.Fatalf("%s: confirm %d %s", kind, c.status, c.body)
		}
		return id, token
	}

	if r := draft("refused", 1, map[string]any{"email": "not an address"}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("the content refusal: %d %s", r.status, r.body)
	}
	if r := draft("decoy", 2, map[string]any{"website": "https://spam.example"}); r.status != http.StatusCreated {
		t.Fatalf("the decoy: %d %s", r.status, r.body)
	}
	if r := draft("tallied", 3, nil, "Idempotency-Key", "bad"); r.status != http.StatusBadRequest {
		t.Fatalf("the refusal before the checks: %d %s", r.status, r.body)
	}
	if r := draft("expiring", 4, nil); r.status != http.StatusCreated {
		t.Fatalf("the draft left to expire: %d %s", r.status, r.body)
	}
	withdrawn, token := confirmed("withdrawn", 5)
	if r := h.postJSON("/api/introductions/"+withdrawn+"/withdrawal", map[string]string{"token": token}); r.status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s", r.status, r.body)
	}
	confirmed("erased", 6)
	if r := h.postJSON("/admin/api/subjects/erasure", map[string]string{"email": canary("erased") + "@example.com"}, "Sec-Fetch-Site", "same-origin"); r.status != http.StatusOK {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	h.settle()
	// The refusal's window ends and its count is written; the draft
	// expires and the sweep turns its entry EXPIRED.
	h.clock.Advance(31 * time.Minute)
	if err := h.svc.Flow.FlushRefusals(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if r := h.do(http.MethodPost, "/internal/sweep", "", nil); r.status != http.StatusOK {
		t.Fatalf("sweep: %d %s", r.status, r.body)
	}
	h.settle()

	query := fmt.Sprintf("from=%s&to=%s", first.AddDate(0, 0, -1).Format(time.DateOnly), h.clock.Now().AddDate(0, 0, 1).Format(time.DateOnly))
	r := h.do(http.MethodGet, "/admin/api/ledger?"+query, "", nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-ndjson" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the export: %d %v %s", r.status, r.header, r.body)
	}
	for kind := range map[string]bool{"refused": true, "decoy": true, "tallied": true, "expiring": true, "withdrawn": true, "erased": true} {
		if bytes.Contains(r.body, []byte(canary(kind))) {
			t.Errorf("the export holds the %s attempt's words", kind)
		}
	}
	schema := testsupport.LedgerSchema(t, "")
	kinds := map[string]int{}
	var ids []string
	lines := bufio.NewScanner(bytes.NewReader(r.body))
	lines.Buffer(nil, 1<<20)
	for n := 1; lines.Scan(); n++ {
		line := lines.Bytes()
		testsupport.MatchesSchema(t, schema, fmt.Sprintf("line %d", n), json.RawMessage(line))
		var e intake.LedgerEntry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		ids = append(ids, e.ID)
		switch {
		case e.Refusals != nil:
			kinds["a count of refusals before the checks"]++
		case e.Decoy != nil:
			kinds["a decoy"]++
		case e.Erasure != nil:
			kinds["an erased tombstone"]++
		case e.Withdrawal != nil:
			kinds["a withdrawn tombstone"]++
		case e.Decision == intake.DecisionExpired:
			kinds["an expired draft"]++
		case e.Abuse.State == intake.AbuseContentRejected:
			kinds["a content refusal"]++
		default:
			kinds[fmt.Sprintf("something else (%s, %s)", e.Decision, e.Abuse.State)]++
		}
	}
	for _, kind := range []string{"a count of refusals before the checks", "a decoy", "an erased tombstone", "a withdrawn tombstone", "an expired draft", "a content refusal"} {
		if kinds[kind] != 1 {
			t.Errorf("the export holds %d of %s, want 1 (all: %v)", kinds[kind], kind, kinds)
		}
	}
	var stored []string
	for _, d := range h.docs("ledger") {
		stored = append(stored, strings.SplitN(d, " ", 2)[0])
	}
	slices.Sort(ids)
	slices.Sort(stored)
	if !slices.Equal(ids, stored) {
		t.Errorf("the export holds entries %v; the ledger %v", ids, stored)
	}

	dl := h.do(http.MethodGet, "/admin/ledger/export?"+query, "", nil)
	if dl.status != http.StatusOK || !bytes.Equal(dl.body, r.body) || !strings.HasPrefix(dl.header.Get("Content-Disposition"), `attachment; filename="ledger-`) {
		t.Errorf("the page's download: %d %q, %d bytes (the API's %d)", dl.status, dl.header.Get("Content-Disposition"), len(dl.body), len(r.body))
	}
}
