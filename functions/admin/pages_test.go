package admin_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/intake"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test ./functions/admin -run %s -update to accept):\n%s", name, t.Name(), firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d\nwant: %s\ngot:  %s", i+1, x, y)
		}
	}
	return ""
}

// TestPagesGolden renders the list (with its chart and figures) and the
// detail of a realistic month and compares them with the golden files.
func TestPagesGolden(t *testing.T) {
	f := newFixture(t)
	ids, err := adminseed.SeedRealistic(context.Background(), f.db, f.client, now)
	if err != nil {
		t.Fatal(err)
	}
	figures, err := admin.NewDailyFiguresTask(f.db.Owner(), adminseed.PowMaxNumber, f.logger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := figures.Run(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	list := f.do(http.MethodGet, "/admin/", "")
	if list.status != http.StatusOK || list.header.Get("Content-Security-Policy") != admin.PageCSP || list.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("list: %d %v", list.status, list.header)
	}
	golden(t, "list.golden.html", list.body)
	detail := f.do(http.MethodGet, "/admin/introductions/"+ids[0], "")
	if detail.status != http.StatusOK {
		t.Fatalf("detail: %d", detail.status)
	}
	golden(t, "detail.golden.html", detail.body)
	for _, want := range []string{
		"<details class=\"conversation\">", "The conversation as the visitor sent it", "Consent evidence", "Legal basis",
		"Retry now", "Mark handled", "Ledger entry", "Rate limits", "Abuse checks", "Your actions",
	} {
		if !strings.Contains(string(detail.body), want) {
			t.Errorf("the detail page lacks %q", want)
		}
	}
	if strings.Contains(string(detail.body), "<details class=\"conversation\" open") {
		t.Error("the conversation is not folded")
	}
	// The owner cannot use the withdrawal's API path; the page says how
	// the visitor withdraws.
	if strings.Contains(string(detail.body), "/api/") || !strings.Contains(string(detail.body), "by the visitor, at any time, with the link the page gave them") {
		t.Error("the detail page shows an API path instead of saying how the visitor withdraws")
	}
	figPage := f.do(http.MethodGet, "/admin/figures", "")
	golden(t, "figures.golden.html", figPage.body)
	for _, want := range []string{"<svg class=\"chart\"", "The figures as a table", "refused: proof of work", "Proof-of-work solve times"} {
		if !strings.Contains(string(figPage.body), want) {
			t.Errorf("the figures page lacks %q", want)
		}
	}
	for _, want := range []string{"Ada Lovelace", "Older introductions"} {
		if want == "Older introductions" {
			if strings.Contains(string(list.body), want) {
				t.Error("a single page offers older introductions")
			}
			continue
		}
		if !strings.Contains(string(list.body), want) {
			t.Errorf("the list page lacks %q", want)
		}
	}
	retention := f.do(http.MethodGet, "/admin/retention", "")
	if r := string(retention.body); strings.Contains(r, `type="date"`) || !strings.Contains(r, `<option value="2026-11-01">1 Nov 2026</option>`) {
		t.Error("the retention page's days are not in the one date format")
	}
	if !strings.Contains(string(retention.body), "failed") || !strings.Contains(string(retention.body), "9 used robot checks") || strings.Contains(string(retention.body), "spentChallenges") || !strings.Contains(string(retention.body), "<td>after a quiet spell</td>") {
		t.Errorf("the retention page does not show the runs:\n%s", retention.body)
	}
}

// hostile is content written to break out of every context it lands in.
var hostile = intake.Fields{
	Name:    `<script>alert("name")</script>`,
	Company: `"onmouseover=alert(1) x="`,
	Role:    "מנהלת טכנולוגיה ראשית", // right-to-left (an override U+202E is refused before it is stored)
	Email:   `"><img src=x onerror=alert(1)>@example.com`,
	Message: "</div><script>alert('message')</script>\n\"onmouseover=alert(2)\n\u200Fשלום.exe",
}

// TestHostileContentIsInertInEveryView puts markup, attribute breakers,
// right-to-left text and a 12,000-character conversation through every view and
// checks that each is shown as text.
func TestHostileContentIsInertInEveryView(t *testing.T) {
	f := newFixture(t)
	conversation := strings.Repeat("<script>alert('c')</script> \u200F\"onmouseover=x ", 12000/48)
	conversation += strings.Repeat("z", 12000-len([]rune(conversation)))
	s := adminseed.Sample{Fields: hostile, Conversation: conversation, ConfirmedAt: now.Add(-time.Hour)}
	s.Envelopes = []intake.Envelope{{Destination: intake.DestinationEmail, Status: intake.DeliveryFailed,
		Attempts: []intake.DeliveryAttempt{{At: now, Outcome: intake.DeliveryFailed, Detail: "<b>550</b>"}}}}
	id := f.keep(s)
	email := url.QueryEscape(hostile.Email)

	pages := map[string]answer{
		"list":          f.do(http.MethodGet, "/admin/", ""),
		"detail":        f.do(http.MethodGet, "/admin/introductions/"+id, ""),
		"subject":       f.form("/admin/subjects", "email="+email),
		"erasure asked": f.form("/admin/subjects/erasure", "email="+email),
	}
	for name, p := range pages {
		body := string(p.body)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", name, p.status)
		}
		for _, raw := range []string{"<script>alert", `"onmouseover=alert`, "<img src=x", "</div><script>", "<b>550"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s holds %q unescaped", name, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;") {
			t.Errorf("%s does not show the name as text", name)
		}
		if strings.Contains(body, "\u200F") && !strings.Contains(body, "<bdi dir=\"auto\">\u200F") && !strings.Contains(body, "dir=\"auto\">") {
			t.Errorf("%s shows right-to-left text outside an isolate", name)
		}
		if strings.Contains(body, "<script") {
			t.Errorf("%s holds a script element", name)
		}
	}
	detail := string(pages["detail"].body)
	if !strings.Contains(detail, "<bdi dir=\"auto\">מנהלת טכנולוגיה ראשית</bdi>") || !strings.Contains(detail, `<div class="message" dir="auto">`) {
		t.Error("the detail does not isolate right-to-left text")
	}
	if strings.Count(detail, "&lt;script&gt;alert(&#39;c&#39;)&lt;/script&gt;") != 12000/48 || !strings.Contains(detail, "12000 characters") {
		t.Error("the detail does not show the whole 12,000-character conversation as text")
	}
	if !strings.Contains(detail, `href="mailto:%22%3E%3Cimg`) {
		t.Errorf("the reply link does not escape the address")
	}

	for name, path := range map[string]string{
		"list json":    "/admin/api/introductions",
		"detail json":  "/admin/api/introductions/" + id,
		"subject json": "/admin/api/subjects?email=" + email,
	} {
		a := f.do(http.MethodGet, path, "")
		if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" || a.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", name, a.status, a.header)
		}
		if !strings.Contains(string(a.body), `<script>alert(\"name\")</script>`) {
			t.Errorf("%s does not carry the name exactly", name)
		}
	}
	d := f.do(http.MethodGet, "/admin/api/introductions/"+id, "").json(t)
	if d["conversation"] != conversation || d["introduction"].(map[string]any)["message"] != hostile.Message {
		t.Error("the JSON does not carry the content exactly")
	}
}

// TestAcceptedEmailWithoutReceiptsSaysWhatIsKnown: over plain SMTP an email
// stays ACCEPTED for good; the row says "emailed", in one word, and the
// list says once, below, what that means and what to do, unless receipts are
// configured.
func TestAcceptedEmailWithoutReceiptsSaysWhatIsKnown(t *testing.T) {
	for _, receipts := range []bool{false, true} {
		f := newFixture(t, func(d *admin.Deps) { d.Receipts = receipts })
		s := sample("Mary Somerville", "mary@example.com", now.Add(-30*24*time.Hour))
		s.Envelopes = []intake.Envelope{{Destination: intake.DestinationEmail, Status: intake.DeliveryAccepted,
			Attempts: []intake.DeliveryAttempt{{At: s.ConfirmedAt, Outcome: intake.DeliveryAccepted, Detail: "SMTP 250: accepted by the server, not yet delivered"}}}}
		f.keep(s)
		body := string(f.do(http.MethodGet, "/admin/", "").body)
		if strings.Contains(body, "pending") || strings.Contains(body, "receipts are not configured") {
			t.Errorf("receipts %v: a row says more than its status", receipts)
		}
		if !strings.Contains(body, `<span class="handoff">emailed</span>`) {
			t.Errorf("receipts %v: the row does not say emailed", receipts)
		}
		note := !receipts
		if got := strings.Contains(body, "MAILGUN_WEBHOOK_SIGNING_KEY"); got != note {
			t.Errorf("receipts %v: the note on what to do is shown: %v, want %v", receipts, got, note)
		}
	}
}

// TestThePageSaysWhichLanguageTheVisitorWroteIn: the admin stays in the
// owner's language (English) for a Persian introduction and says, in it,
// that the visitor wrote in Persian, and in which language each consent
// text and the form were shown; the visitor's words keep their direction.
func TestThePageSaysWhichLanguageTheVisitorWroteIn(t *testing.T) {
	f := newFixture(t)
	s := sample("مریم میرزاخانی", "maryam@example.com", now.Add(-time.Hour))
	s.Fields.Message = "سلام، دربارهٔ یک همکاری پژوهشی."
	s.Conversation = "شما: سلام"
	s.Lang = "fa"
	id := f.keep(s)
	p := f.do(http.MethodGet, "/admin/introductions/"+id, "")
	body := string(p.body)
	if p.status != http.StatusOK {
		t.Fatalf("detail: %d", p.status)
	}
	for _, want := range []string{
		"written in Persian (fa)",
		"version attach-conversation/1, shown in Persian (fa), SHA-256",
		"version 3, Persian (fa)",
		`<div class="message" dir="auto">سلام، دربارهٔ یک همکاری پژوهشی.</div>`,
		"<h2 id=\"consent-h\">Consent evidence</h2>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the detail lacks %q", want)
		}
	}
	if a := f.do(http.MethodGet, "/admin/api/introductions/"+id, "").json(t); a["lang"] != "fa" {
		t.Errorf("the API's detail names lang %v, want fa", a["lang"])
	}
}
