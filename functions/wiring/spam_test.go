package wiring_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestALikelySpamIntroductionFromThePageToTheOwnersErasure walks a
// likely-spam introduction through the wired service, on the emulator, a
// real MailDev, fake-gcs-server and a local webhook receiver: the page's
// report makes it likely spam (filled fast, automated) and the ledger keeps
// the signals and the solve; it is confirmed and handed on like any other,
// its mail's subject beginning [likely spam] and its webhook saying
// likelySpam, while a clean one's do not; the owner marks it spam, which
// the ledger records, the filters and the waiting count follow, and the
// bulk erasure deletes it with its attachment, notifies the webhook and
// leaves a tombstone, the clean one untouched; no typed value reaches the
// logs.
func TestALikelySpamIntroductionFromThePageToTheOwnersErasure(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusNoContent)
	h := newHarness(t, handoffEnv(rcv, mp))

	spamName, spamMessage := "Canary Spammer-5a1d", "Canary offer 5a1d: cheap backlinks for your website, reply today."
	id, token := h.v3Draft(map[string]any{"name": spamName, "email": "canary-5a1d@example.com", "message": spamMessage,
		"page": map[string]any{"fillMs": 900, "automation": true, "solveMs": 430, "workers": 4}})
	if r := h.attach(id, token, "application/pdf", "canary-5a1d.pdf", testsupport.SamplePDF(2000)); r.status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	entry := h.ledger(id)
	if !slices.Contains(entry.Abuse.Signals, "filled-fast") || !slices.Contains(entry.Abuse.Signals, "automation") || !entry.Abuse.LikelySpam ||
		entry.Abuse.Solve == nil || *entry.Abuse.Solve != (intake.SolveRecord{Millis: 300, Workers: 4, MaxNumber: 3000}) {
		t.Fatalf("the ledger's abuse record: %+v solve %+v", entry.Abuse, entry.Abuse.Solve)
	}
	cleanName := "Canary Recruiter-5a1d"
	cleanID, cleanToken := h.v3Draft(map[string]any{"name": cleanName, "email": "recruiter-5a1d@example.com",
		"message": "Hello, we are hiring a staff engineer for our platform team and would like to talk.",
		"page":    map[string]any{"fillMs": 95000, "automation": false, "solveMs": 800, "workers": 8}})
	for _, d := range [][2]string{{id, token}, {cleanID, cleanToken}} {
		if c := h.postJSON("/api/introductions/"+d[0]+"/confirmation", map[string]string{"token": d[1]}); c.status != http.StatusOK {
			t.Fatalf("confirm %s: %d %s", d[0], c.status, c.body)
		}
	}
	h.settle()

	subjects := map[string]bool{}
	for _, m := range mp.SentTo(t, "owner@site.example") {
		subjects[m.Subject] = true
	}
	if !subjects["[likely spam] Introduction from \u2068"+spamName+"\u2069 (\u2068Analytical Engines\u2069)"] || !subjects["Introduction from \u2068"+cleanName+"\u2069 (\u2068Analytical Engines\u2069)"] || len(subjects) != 2 {
		t.Fatalf("the mails' subjects: %v", subjects)
	}
	hooks := map[string]any{}
	for _, d := range rcv.deliveries() {
		data := d.body["data"].(map[string]any)
		hooks[data["id"].(string)] = data["likelySpam"]
	}
	if hooks[id] != true || hooks[cleanID] != false {
		t.Fatalf("the webhooks' likelySpam: %v", hooks)
	}

	// The owner's word.
	detail := h.do(http.MethodGet, "/admin/api/introductions/"+id, "", nil).json(t)
	if fmtJSON(detail["signals"]) != `["filled-fast","automation"]` || detail["likelySpam"] != true || detail["spam"] != nil {
		t.Fatalf("the detail's spam members: %v %v %v", detail["signals"], detail["likelySpam"], detail["spam"])
	}
	listed := func(filter string) []string {
		var ids []string
		for _, it := range h.do(http.MethodGet, "/admin/api/introductions?filter="+filter, "", nil).json(t)["introductions"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		return ids
	}
	if got := listed("likely-spam"); !slices.Equal(got, []string{id}) {
		t.Fatalf("likely spam lists %v", got)
	}
	if m := h.postJSON("/admin/api/introductions/"+id+"/spam", map[string]any{"spam": true}, "Sec-Fetch-Site", "same-origin"); m.status != http.StatusOK {
		t.Fatalf("mark spam: %d %s", m.status, m.body)
	}
	if got := listed("spam"); !slices.Equal(got, []string{id}) {
		t.Fatalf("spam lists %v", got)
	}
	if got := listed("inbox"); !slices.Equal(got, []string{cleanID}) {
		t.Fatalf("the inbox lists %v", got)
	}
	if page := h.do(http.MethodGet, "/admin/", "", nil); !strings.Contains(string(page.body), "<strong>1 introduction</strong> waits for you") {
		t.Fatalf("the waiting count does not leave spam out")
	}
	if actions := h.ledger(id).AdminActions; len(actions) != 1 || actions[0].Action != intake.ActionMarkedSpam || actions[0].Actor != "local owner" {
		t.Fatalf("the ledger's admin actions: %+v", actions)
	}

	// The bulk erasure, confirmed.
	before := len(rcv.deliveries())
	ask := h.do(http.MethodPost, "/admin/spam/erasure", "application/x-www-form-urlencoded", nil, "Sec-Fetch-Site", "same-origin")
	if ask.status != http.StatusOK || !strings.Contains(string(ask.body), "Erase 1 marked spam") || len(h.objects()) != 1 {
		t.Fatalf("the confirmation step: %d, objects %v", ask.status, h.objects())
	}
	done := h.do(http.MethodPost, "/admin/spam/erasure", "application/x-www-form-urlencoded", []byte("confirm=yes"), "Sec-Fetch-Site", "same-origin")
	if done.status != http.StatusOK || !strings.Contains(string(done.body), "Erased 1 introduction marked spam") {
		t.Fatalf("the erasure: %d %s", done.status, done.body)
	}
	h.settle()
	if objects := h.objects(); len(objects) != 0 {
		t.Fatalf("the erased introduction's attachment stays: %v", objects)
	}
	tomb := h.ledger(id)
	// (The reason then follows the withdrawal notices' delivery, as after
	// a data subject's erasure; the erasure record and the action stay.)
	if tomb.Erasure == nil || tomb.Erasure.Reason != intake.ErasureReasonSpam || tomb.Erasure.RequestedBy != "local owner" ||
		tomb.AdminActions[len(tomb.AdminActions)-1].Action != intake.ActionErasedSpam {
		t.Fatalf("the tombstone: %+v %q %+v", tomb.Erasure, tomb.Reason, tomb.AdminActions)
	}
	var notices []string
	for _, d := range rcv.deliveries()[before:] {
		notices = append(notices, d.event+" "+d.body["data"].(map[string]any)["id"].(string))
	}
	if !slices.Equal(notices, []string{intake.EventWithdrawn + " " + id}) {
		t.Fatalf("the webhook after the erasure heard %v", notices)
	}
	if got := listed(""); !slices.Equal(got, []string{cleanID}) {
		t.Fatalf("after the erasure the list is %v", got)
	}
	for _, doc := range h.docs("ledger") {
		if strings.Contains(doc, spamName) || strings.Contains(doc, "5a1d@example.com") || strings.Contains(doc, "backlinks") {
			t.Fatalf("a ledger entry holds content: %s", doc)
		}
	}
	logs := h.logs.String()
	for _, canary := range []string{spamName, cleanName, "canary-5a1d@example.com", "recruiter-5a1d", "backlinks", "canary-5a1d.pdf"} {
		if strings.Contains(logs, canary) {
			t.Errorf("the logs hold %q", canary)
		}
	}
}
