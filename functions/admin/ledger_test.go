package admin_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestTheLedgerExportRefusesABadRange: from and to are two UTC days in
// order, at most MaxLedgerDays apart; anything else is 400
// DATE_RANGE_INVALID naming the parameter (a page saying so, from the
// retention page's form), before anything is read.
func TestTheLedgerExportRefusesABadRange(t *testing.T) {
	f := newFixture(t)
	for query, field := range map[string]string{
		"":                                     "from",
		"from=2026-11-01":                      "to",
		"from=2026-11-31&to=2026-12-01":        "from",
		"from=2026-11-01&to=1.12.2026":         "to",
		"from=2026-11-02&to=2026-11-01":        "to",
		"from=2025-11-01&to=2026-11-02":        "to",
		"from=2026-11-01T00:00Z&to=2026-11-02": "from",
	} {
		a := f.do(http.MethodGet, "/admin/api/ledger?"+query, "")
		if a.status != http.StatusBadRequest || a.code(t) != "DATE_RANGE_INVALID" || !strings.Contains(string(a.body), `"field":"`+field+`"`) {
			t.Errorf("?%s: %d %s, want 400 DATE_RANGE_INVALID naming %s", query, a.status, a.body, field)
		}
		if p := f.do(http.MethodGet, "/admin/ledger/export?"+query, ""); p.status != http.StatusBadRequest || !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
			t.Errorf("the page's download ?%s: %d %s", query, p.status, p.header.Get("Content-Type"))
		}
	}
	for _, query := range []string{"from=2026-11-30&to=2026-11-30", "from=2025-12-01&to=2026-11-30"} {
		if a := f.do(http.MethodGet, "/admin/api/ledger?"+query, ""); a.status != http.StatusOK || len(a.body) != 0 {
			t.Errorf("?%s on an empty ledger: %d %q, want 200 and no lines", query, a.status, a.body)
		}
	}
}

// failingLater is the real owner's store whose ledger export fails after
// its first page.
type failingLater struct{ admin.Store }

func (s failingLater) LedgerEntries(ctx context.Context, from, to, now time.Time, page func([]intake.LedgerEntry) error) error {
	if err := page([]intake.LedgerEntry{{ID: "first", Version: intake.LedgerVersion}}); err != nil {
		return err
	}
	return intake.Unavailable(errors.New("firestore went away"), time.Second)
}

// TestALedgerExportCutShortIsNoWholeFile: Firestore failing after the
// first lines have gone out aborts the response, so the client's read
// fails rather than ending in what looks like a complete export; failing
// before any line is a 503 problem.
func TestALedgerExportCutShortIsNoWholeFile(t *testing.T) {
	f := newFixture(t)
	h, err := admin.New(admin.Deps{Store: failingLater{f.db.Owner()}, Keys: testKeys(t, "1"), Clock: fixedClock{now}, Logger: f.logger})
	if err != nil {
		t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(admin.Routes(h), []string{testsupport.SiteOrigin}, f.logger)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(served)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/admin/api/ledger?from=2026-11-01&to=2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":"first"`) || err == nil {
		t.Fatalf("cut short after its first line: %d, read %q with error %v; want the line, then a failed read", resp.StatusCode, body, err)
	}
}
