package admin_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
)

// listed returns the ids the list API answers for query, in order.
func (f *fixture) listed(query string) []string {
	f.t.Helper()
	a := f.do(http.MethodGet, "/admin/api/introductions"+query, "")
	if a.status != http.StatusOK {
		f.t.Fatalf("list%s: %d %s", query, a.status, a.body)
	}
	var ids []string
	for _, it := range a.json(f.t)["introductions"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

// spamSamples keeps a clean introduction, a likely-spam one and a third
// clean one, newest first.
func spamSamples(f *fixture) (clean, likely, other string) {
	clean = f.keep(sample("Clean Cathy", "cathy@example.com", now.Add(-1*time.Hour)))
	s := sample("Spammy Sam", "sam@example.com", now.Add(-2*time.Hour))
	s.Signals, s.LikelySpam = []string{"filled-fast", "automation"}, true
	likely = f.keep(s)
	other = f.keep(sample("Other Olga", "olga@example.com", now.Add(-3*time.Hour)))
	return
}

// TestTheOwnersWordOnSpam: the detail carries the signals, their verdict
// and the owner's word; marking spam and not spam answers {id, spam},
// files the introduction in its folder, leaves it out of the waiting
// count and is recorded in the ledger with who and when; the filters list
// each folder; every refusal is a documented problem.
func TestTheOwnersWordOnSpam(t *testing.T) {
	f := newFixture(t)
	clean, likely, other := spamSamples(f)

	d := f.do(http.MethodGet, "/admin/api/introductions/"+likely, "").json(t)
	if fmtAny(d["signals"]) != "[filled-fast automation]" || d["likelySpam"] != true || d["spam"] != nil {
		t.Fatalf("the likely-spam detail: signals %v likelySpam %v spam %v", d["signals"], d["likelySpam"], d["spam"])
	}
	if d := f.do(http.MethodGet, "/admin/api/introductions/"+clean, "").json(t); fmtAny(d["signals"]) != "[]" || d["likelySpam"] != false || d["spam"] != nil {
		t.Fatalf("the clean detail: signals %v likelySpam %v spam %v", d["signals"], d["likelySpam"], d["spam"])
	}
	for query, want := range map[string][]string{
		"":                    {clean, likely, other},
		"?filter=inbox":       {clean, other},
		"?filter=likely-spam": {likely},
		"?filter=spam":        nil,
	} {
		if got := f.listed(query); !slices.Equal(got, want) {
			t.Errorf("list%s = %v, want %v", query, got, want)
		}
	}
	if p := f.do(http.MethodGet, "/admin/", ""); !strings.Contains(string(p.body), "<strong>3 introductions</strong> wait for you") {
		t.Errorf("the waiting count before any mark:\n%s", p.body)
	}

	// The owner says the likely one is spam, and so is a clean one.
	for _, id := range []string{likely, other} {
		a := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/spam", `{"spam":true}`, "Authorization", identity("owner@site.example"))
		if a.status != http.StatusOK {
			t.Fatalf("mark %s: %d %s", id, a.status, a.body)
		}
		m := a.json(t)
		wantKeys(t, "the spam answer", m, "id", "spam")
		if m["id"] != id || m["spam"] != true {
			t.Fatalf("mark %s: %v", id, m)
		}
	}
	if d := f.do(http.MethodGet, "/admin/api/introductions/"+likely, "").json(t); d["spam"] != true || d["likelySpam"] != true {
		t.Fatalf("after the mark: spam %v likelySpam %v", d["spam"], d["likelySpam"])
	}
	for query, want := range map[string][]string{
		"?filter=inbox":       {clean},
		"?filter=likely-spam": nil,
		"?filter=spam":        {likely, other},
	} {
		if got := f.listed(query); !slices.Equal(got, want) {
			t.Errorf("after marking, list%s = %v, want %v", query, got, want)
		}
	}
	if p := f.do(http.MethodGet, "/admin/", ""); !strings.Contains(string(p.body), "<strong>1 introduction</strong> waits for you") {
		t.Errorf("the waiting count leaves spam out:\n%s", p.body)
	}
	entry, _ := f.ledger(likely)
	if n := len(entry.AdminActions); n != 1 || entry.AdminActions[0] != (intake.AdminAction{At: now, Actor: "owner@site.example", Action: intake.ActionMarkedSpam}) {
		t.Fatalf("the ledger's admin actions: %+v", entry.AdminActions)
	}

	// Not spam after all: back to the inbox, the word recorded again.
	if a := f.do(http.MethodPost, "/admin/api/introductions/"+other+"/spam", `{"spam":false}`); a.status != http.StatusOK || a.json(t)["spam"] != false {
		t.Fatalf("not spam: %d %s", a.status, a.body)
	}
	if got := f.listed("?filter=inbox"); !slices.Equal(got, []string{clean, other}) {
		t.Errorf("after not spam, the inbox is %v", got)
	}
	entry, _ = f.ledger(other)
	if actions := entry.AdminActions; len(actions) != 2 || actions[1].Action != intake.ActionMarkedNotSpam || actions[1].Actor != "local owner" {
		t.Fatalf("the ledger's admin actions: %+v", actions)
	}

	// The detail page's mark, as its form posts it.
	p := f.form("/admin/introductions/"+clean+"/spam", "spam=yes")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/admin/introductions/"+clean+"?done=spam" {
		t.Fatalf("the page's mark: %d %s", p.status, p.header.Get("Location"))
	}
	page := string(f.do(http.MethodGet, "/admin/introductions/"+clean+"?done=spam", "").body)
	for _, want := range []string{"Marked spam: it is filed under Spam", "You marked it spam", `name="spam" value="no"`, "marked spam, <bdi>local owner</bdi>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the detail page after marking lacks %q", want)
		}
	}
	if strings.Contains(page, `name="spam" value="yes"`) {
		t.Error("the detail page still offers Mark spam")
	}

	// Refusals.
	draft := sample("Drafty", "draft@example.com", now)
	draft.ID = "a-draft-to-mark"
	keepDraftOnly(t, f, draft)
	for name, c := range map[string]struct {
		method, path, body string
		headers            []string
		status             int
		code               string
	}{
		"no spam member":   {http.MethodPost, "/admin/api/introductions/" + clean + "/spam", `{}`, nil, 400, "UNREADABLE_BODY"},
		"spam not a bool":  {http.MethodPost, "/admin/api/introductions/" + clean + "/spam", `{"spam":"yes"}`, nil, 400, "UNREADABLE_BODY"},
		"another member":   {http.MethodPost, "/admin/api/introductions/" + clean + "/spam", `{"spam":true,"why":"x"}`, nil, 400, "UNREADABLE_BODY"},
		"unknown id":       {http.MethodPost, "/admin/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/spam", `{"spam":true}`, nil, 404, "NOT_FOUND"},
		"a draft":          {http.MethodPost, "/admin/api/introductions/a-draft-to-mark/spam", `{"spam":true}`, nil, 404, "NOT_FOUND"},
		"cross-origin":     {http.MethodPost, "/admin/api/introductions/" + clean + "/spam", `{"spam":true}`, []string{"Sec-Fetch-Site", "cross-site"}, 403, "CROSS_ORIGIN_REFUSED"},
		"unknown filter":   {http.MethodGet, "/admin/api/introductions?filter=junk", "", nil, 400, "FILTER_INVALID"},
		"no confirmation":  {http.MethodPost, "/admin/api/spam/erasure", `{"confirm":false}`, nil, 400, "UNREADABLE_BODY"},
		"erasure x-origin": {http.MethodPost, "/admin/api/spam/erasure", `{"confirm":true}`, []string{"Sec-Fetch-Site", "cross-site"}, 403, "CROSS_ORIGIN_REFUSED"},
	} {
		a := f.do(c.method, c.path, c.body, c.headers...)
		if a.status != c.status || a.header.Get("Content-Type") != "application/problem+json" || a.code(t) != c.code {
			t.Errorf("%s: %d %s %s, want %d %s", name, a.status, a.header.Get("Content-Type"), a.body, c.status, c.code)
		}
	}
	if p := f.do(http.MethodGet, "/admin/?filter=junk", ""); p.status != http.StatusBadRequest || !strings.Contains(string(p.body), "waiting, inbox, likely-spam, spam or all") {
		t.Errorf("the page with an unknown filter: %d", p.status)
	}
	if p := f.form("/admin/introductions/"+clean+"/spam", "spam=maybe"); p.status != http.StatusBadRequest {
		t.Errorf("the page's mark with spam=maybe: %d", p.status)
	}
	if entry, _ := f.ledger(clean); len(entry.AdminActions) != 2 || entry.AdminActions[1].Action != intake.ActionOpened { // the mark, then the first opening
		t.Errorf("a refused mark was recorded: %+v", entry.AdminActions)
	}
}

// TestTheBulkErasureOfSpam: the list's Spam filter offers the erasure;
// the first step only asks, naming how many; the confirmed step erases
// exactly what the owner marked spam through the erasure path, leaving
// content-free tombstones that say so, and the JSON route does the same.
func TestTheBulkErasureOfSpam(t *testing.T) {
	f := newFixture(t)
	clean, likely, other := spamSamples(f)
	for _, id := range []string{likely, other} {
		if a := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/spam", `{"spam":true}`, "Authorization", identity("owner@site.example")); a.status != http.StatusOK {
			t.Fatalf("mark: %d %s", a.status, a.body)
		}
	}
	if p := string(f.do(http.MethodGet, "/admin/?filter=spam", "").body); !strings.Contains(p, `action="/admin/spam/erasure"`) {
		t.Fatal("the Spam filter offers no erasure")
	} else if p := string(f.do(http.MethodGet, "/admin/?filter=inbox", "").body); strings.Contains(p, `action="/admin/spam/erasure"`) {
		t.Fatal("the inbox offers the spam erasure")
	}

	ask := f.form("/admin/spam/erasure", "")
	if ask.status != http.StatusOK || !strings.Contains(string(ask.body), "Erase 2 marked spam") || !strings.Contains(string(ask.body), `name="confirm" value="yes"`) {
		t.Fatalf("the confirmation step: %d\n%s", ask.status, ask.body)
	}
	if !f.exists(firestorestore.Introductions, likely) || !f.exists(firestorestore.Introductions, other) {
		t.Fatal("the confirmation step erased something")
	}

	done := f.do(http.MethodPost, "/admin/spam/erasure", "confirm=yes", "Content-Type", "application/x-www-form-urlencoded",
		"Sec-Fetch-Site", "same-origin", "Authorization", identity("owner@site.example"))
	if done.status != http.StatusOK || !strings.Contains(string(done.body), "Erased 2 introductions marked spam") {
		t.Fatalf("the erasure: %d\n%s", done.status, done.body)
	}
	for _, id := range []string{likely, other} {
		if f.exists(firestorestore.Introductions, id) || f.exists(firestorestore.Transcripts, id) {
			t.Errorf("%s is still held", id)
		}
		entry, raw := f.ledger(id)
		if entry.Erasure == nil || entry.Erasure.RequestedBy != "owner@site.example" || entry.Erasure.Reason != intake.ErasureReasonSpam || entry.Reason != intake.ReasonErasedSpam {
			t.Errorf("%s: tombstone %+v reason %q", id, entry.Erasure, entry.Reason)
		}
		if last := entry.AdminActions[len(entry.AdminActions)-1]; last.Action != intake.ActionErasedSpam || last.Actor != "owner@site.example" {
			t.Errorf("%s: last admin action %+v", id, last)
		}
		for _, canary := range []string{"Spammy Sam", "Other Olga", "sam@example.com", "olga@example.com", "Hello from"} {
			if strings.Contains(fmtAny(raw), canary) {
				t.Errorf("%s: the tombstone holds %q", id, canary)
			}
		}
		if g := f.do(http.MethodGet, "/admin/introductions/"+id, ""); g.status != http.StatusGone {
			t.Errorf("%s: the detail page answers %d, want 410", id, g.status)
		}
	}
	if !f.exists(firestorestore.Introductions, clean) {
		t.Fatal("the erasure took an introduction not marked spam")
	}
	if got := f.listed(""); !slices.Equal(got, []string{clean}) {
		t.Errorf("after the erasure the list is %v", got)
	}

	// The JSON route: nothing more to erase.
	if a := f.do(http.MethodPost, "/admin/api/spam/erasure", `{"confirm":true}`); a.status != http.StatusOK || fmtAny(a.json(t)) != "map[erased:0]" {
		t.Fatalf("the API's erasure: %d %s", a.status, a.body)
	}
	if p := f.form("/admin/spam/erasure", ""); !strings.Contains(string(p.body), "Nothing is marked spam") {
		t.Errorf("the confirmation step with nothing marked:\n%s", p.body)
	}
}

func fmtAny(v any) string { return fmt.Sprint(v) }
