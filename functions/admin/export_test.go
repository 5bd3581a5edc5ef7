package admin_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
)

// TestTheOwnerExportsIntroductions: the CSV (UTF-8 with a BOM) opens as the
// same rows as the JSON, a formula-like cell is neutralised in the CSV,
// Persian text survives byte for byte, an attachment is named with its
// type, size, SHA-256 and link (never its bytes), each export is an admin
// action in the ledger entry of every introduction it holds, the folder and
// the range choose, and an erased introduction never appears.
func TestTheOwnerExportsIntroductions(t *testing.T) {
	f := newFixture(t)
	day := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	persian := sample("سارا محمدی", "sara@example.com", day)
	persian.Fields.Company, persian.Fields.Message = "دیجی\u200cکالا", "سلام! I saw your talk در تهران.\nخط دوم"
	persian.Lang = "fa"
	sara := f.keep(persian)
	formula := sample("Mallory", "mallory@example.com", day.Add(time.Hour))
	formula.Fields.Message, formula.Fields.Role = "=HYPERLINK(\"http://attacker.example\",\"click\")", "+1 recruiter"
	mallory := f.keep(formula)
	erased := f.keep(sample("Eve Erased", "eve@example.com", day.Add(2*time.Hour)))
	f.keep(sample("Outside", "outside@example.com", day.AddDate(0, 0, 5)))
	sha := strings.Repeat("c3", 32)
	if _, err := f.client.Collection(firestorestore.Introductions).Doc(sara).Update(context.Background(), []firestore.Update{{Path: "attachment",
		Value: map[string]any{"name": "رزومه سارا - final.pdf", "type": "application/pdf", "size": int64(48213), "sha256": sha, "object": "attachments/" + sara}}}); err != nil {
		t.Fatal(err)
	}
	if a := f.do(http.MethodPost, "/admin/api/subjects/erasure", `{"email":"eve@example.com"}`, "Authorization", identity("owner@site.example")); a.status != http.StatusOK {
		t.Fatalf("erasure: %d %s", a.status, a.body)
	}

	get := func(format string) answer {
		a := f.do(http.MethodGet, "/admin/introductions/export?format="+format+"&from=2026-11-10&to=2026-11-12", "", "Authorization", identity("owner@site.example"))
		if a.status != http.StatusOK || !strings.Contains(a.header.Get("Content-Disposition"), `attachment; filename="introductions-2026-11-10-to-2026-11-12.`+format+`"`) {
			t.Fatalf("%s export: %d %v %s", format, a.status, a.header, a.body)
		}
		return a
	}
	js, cs := get("json"), get("csv")
	if js.header.Get("Content-Type") != "application/json" || cs.header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("types %q %q", js.header.Get("Content-Type"), cs.header.Get("Content-Type"))
	}
	var objects []map[string]string
	if err := json.Unmarshal(js.body, &objects); err != nil {
		t.Fatal(err)
	}
	body, ok := bytes.CutPrefix(cs.body, []byte("\xEF\xBB\xBF"))
	if !ok {
		t.Fatal("the CSV has no byte order mark")
	}
	table, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(table) != len(objects)+1 || len(objects) != 2 {
		t.Fatalf("%d CSV rows, %d JSON rows, want a header and 2 (newest first, the erased one and the one outside the range left out)", len(table), len(objects))
	}
	for i, obj := range objects {
		if len(obj) != len(table[0]) {
			t.Fatalf("JSON row %d has %d members, the CSV %d columns", i, len(obj), len(table[0]))
		}
		for c, name := range table[0] {
			want := obj[name]
			if want != "" && strings.ContainsRune("=+-@\t\r", rune(want[0])) {
				want = "'" + want
			}
			if got := table[i+1][c]; got != want {
				t.Errorf("row %d %s: CSV %q, JSON %q", i, name, got, obj[name])
			}
		}
	}
	if objects[0]["id"] != mallory || objects[1]["id"] != sara {
		t.Fatalf("rows %s, %s; want %s then %s", objects[0]["id"], objects[1]["id"], mallory, sara)
	}
	if cell := table[1][slices.Index(table[0], "message")]; cell != `'=HYPERLINK("http://attacker.example","click")` {
		t.Errorf("the formula-like cell is %q", cell)
	}
	s := objects[1]
	for name, want := range map[string]string{"name": "سارا محمدی", "company": "دیجی\u200cکالا", "message": "سلام! I saw your talk در تهران.\nخط دوم",
		"attachmentName": "رزومه سارا - final.pdf", "attachmentType": "application/pdf", "attachmentSize": "48213", "attachmentSha256": sha,
		"attachmentUrl": f.server.URL + "/admin/introductions/" + sara + "/attachment", "confirmedAt": "2026-11-10T09:00:00Z", "lang": "fa"} {
		if s[name] != want {
			t.Errorf("%s: %q, want %q", name, s[name], want)
		}
	}
	for _, raw := range [][]byte{js.body, cs.body} {
		if !bytes.Contains(raw, []byte("دیجی\u200cکالا")) || bytes.Contains(raw, []byte("Eve")) {
			t.Errorf("the export lost the ZWNJ or holds the erased introduction:\n%s", raw)
		}
	}

	// Each export is in the ledger entry of every introduction it held: who, when, how many.
	for _, id := range []string{sara, mallory} {
		e, _ := f.ledger(id)
		var got []string
		for _, a := range e.AdminActions {
			if a.Action == "exported" && a.Actor == "owner@site.example" && a.At.Equal(now) {
				got = append(got, a.Target)
			}
		}
		if !slices.Equal(got, []string{"json of 2", "csv of 2"}) {
			t.Errorf("%s's ledger records the exports as %v (%+v)", id, got, e.AdminActions)
		}
	}

	// The folder chooses; a wrong folder, format or range is refused.
	spam := f.do(http.MethodGet, "/admin/introductions/export?format=json&folder=spam&from=2026-11-10&to=2026-11-12", "")
	if spam.status != http.StatusOK || strings.TrimSpace(string(spam.body)) != "[]" {
		t.Errorf("the spam folder: %d %s", spam.status, spam.body)
	}
	for _, q := range []string{"format=xlsx&from=2026-11-10&to=2026-11-12", "folder=all&from=2026-11-10&to=2026-11-12", "from=2026-11-12&to=2026-11-10"} {
		if a := f.do(http.MethodGet, "/admin/introductions/export?"+q, ""); a.status != http.StatusBadRequest {
			t.Errorf("%s: %d", q, a.status)
		}
	}
	page := string(f.do(http.MethodGet, "/admin/retention", "").body)
	for _, want := range []string{`<form class="search" method="get" action="/admin/introductions/export">`, `name="folder"`, `name="from"`, `name="to"`, `<option value="json">JSON</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the retention page's export form lacks %s", want)
		}
	}
	if e, _ := f.ledger(erased); slices.ContainsFunc(e.AdminActions, func(a intake.AdminAction) bool { return a.Action == "exported" }) {
		t.Error("the erased introduction's tombstone records an export")
	}
}
