package wiring_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// confirmed drafts and confirms one introduction and waits for the sends
// that follow the commit; it returns the introduction's id and token.
func (h *harness) confirmed(email string) (string, string) {
	h.t.Helper()
	d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"formVersion": "2", "email": email}))
	if d.status != http.StatusCreated {
		h.t.Fatalf("draft: %d %s", d.status, d.body)
	}
	m := d.json(h.t)
	id, token := m["id"].(string), m["token"].(string)
	if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
		h.t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	h.settle()
	return id, token
}

// untilDue moves the clock to an envelope's next attempt and runs the
// sweep (POST /internal/sweep), whose delivery task attempts it.
func (h *harness) untilDue(envelopeID string) {
	h.t.Helper()
	e := h.envelope(envelopeID)
	if e.Status != intake.DeliveryRetryPending {
		h.t.Fatalf("envelope %s is %s, not waiting for a retry", envelopeID, e.Status)
	}
	h.clock.Advance(e.NextAttemptAt.Sub(h.clock.Now()))
	h.svc.Sweeps.Wait() // a background sweep (first draft of the day) is not this one
	r := h.do(http.MethodPost, "/internal/sweep", "", nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("sweep: %d %s", r.status, r.body)
	}
	if n, _ := r.json(h.t)["deliveriesAttempted"].(float64); n < 1 {
		h.t.Fatalf("the sweep attempted no delivery: %s", r.body)
	}
}

// The webhook receiver is down for three attempts, then up: DELIVERED,
// every attempt with the same webhook-id, the waits doubling.
func TestWebhookReceiverDownThenUp(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusOK)
	h := newHarness(t, handoffEnv(rcv, mp))
	id, _ := h.confirmed("down@example.com")
	hookID := intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed)
	var waits []time.Duration
	for i := 0; i < 3; i++ {
		e := h.envelope(hookID)
		waits = append(waits, e.NextAttemptAt.Sub(h.clock.Now()))
		h.untilDue(hookID)
	}
	e := h.envelope(hookID)
	if e.Status != intake.DeliveryDelivered || e.SendAttempts() != 4 {
		t.Fatalf("after the receiver came back: %s, %d attempts", e.Status, e.SendAttempts())
	}
	got := rcv.deliveries()
	if len(got) != 4 {
		t.Fatalf("the receiver saw %d attempts, want 4", len(got))
	}
	for _, g := range got {
		if g.id != hookID {
			t.Fatalf("an attempt carried webhook-id %q, want %q on every one", g.id, hookID)
		}
	}
	if !(waits[1] > waits[0] && waits[2] > waits[1]) || waits[0] < 45*time.Second || waits[0] > 75*time.Second {
		t.Fatalf("waits %v: want about 1m, 2m, 4m", waits)
	}
}

// MailDev is down at confirmation: RETRY_PENDING; back up, the retry is
// ACCEPTED and the mail is there.
func TestMailServerDownThenBack(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusOK)
	h := newHarness(t, handoffEnv(rcv, mp))
	mp.Stop(t)
	id, _ := h.confirmed("maildev-down@example.com")
	mailID := intake.EnvelopeID(id, intake.DestinationEmail, intake.EventConfirmed)
	e := h.envelope(mailID)
	if e.Status != intake.DeliveryRetryPending || e.LastError == "" {
		t.Fatalf("with MailDev down: %s %q", e.Status, e.LastError)
	}
	mp.Restart(t)
	h.untilDue(mailID)
	if e := h.envelope(mailID); e.Status != intake.DeliveryAccepted {
		t.Fatalf("with MailDev back: %s %q", e.Status, e.LastError)
	}
	if mails := mp.SentTo(t, "owner@site.example"); len(mails) != 1 {
		t.Fatalf("%d mails, want 1", len(mails))
	}
}

// A receiver answering 410 Gone: FAILED at once, its reason visible in the
// envelope and the ledger.
func TestWebhookGoneIsFailed(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusGone)
	h := newHarness(t, handoffEnv(rcv, mp))
	id, _ := h.confirmed("gone@example.com")
	hookID := intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed)
	e := h.envelope(hookID)
	if e.Status != intake.DeliveryFailed || !strings.Contains(e.LastError, "410") {
		t.Fatalf("after 410: %s %q", e.Status, e.LastError)
	}
	if l := h.ledger(id); !strings.Contains(l.Reason, "webhook FAILED") || !strings.Contains(l.Reason, "410") {
		t.Fatalf("the ledger does not show the failure: %s %q", l.Decision, l.Reason)
	}
	h.clock.Advance(48 * time.Hour)
	if n := h.sweepDeliveries(); n != 0 || len(rcv.deliveries()) != 1 {
		t.Fatal("a FAILED envelope was sent again by the sweep")
	}
	if err := h.svc.Delivery.RetryNow(t.Context(), hookID); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if n := len(rcv.deliveries()); n != 2 {
		t.Fatalf("retry now: the receiver saw %d attempts, want 2", n)
	}
}

// A withdrawal after the handoff: the ledger names the destinations that
// had the content, and the webhook gets an introduction.withdrawn event,
// signed the same way, without content.
func TestWithdrawalAfterHandoff(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusOK)
	h := newHarness(t, handoffEnv(rcv, mp))
	id, token := h.confirmed("withdraw@example.com")
	if w := h.postJSON("/api/introductions/"+id+"/withdrawal", map[string]string{"token": token}); w.status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s", w.status, w.body)
	}
	h.settle()
	l := h.ledger(id)
	if l.Decision != intake.DecisionWithdrawn || l.Withdrawal == nil || len(l.Withdrawal.AlreadyDeliveredTo) != 2 {
		t.Fatalf("ledger after withdrawal: %s %+v", l.Decision, l.Withdrawal)
	}
	got := rcv.deliveries()
	last := got[len(got)-1]
	if last.event != intake.EventWithdrawn || last.id != intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventWithdrawn) {
		t.Fatalf("the receiver's last delivery: %+v", last)
	}
	if strings.Contains(fmtJSON(last.body), "withdraw@example.com") {
		t.Fatal("the withdrawn event carries content")
	}
	testsupport.MatchesSchema(t, testsupport.LedgerSchema(t, ""), "ledger entry", l)
	h.ownerNotice(mp, id, l.ConfirmedAt)
	h.saysGone(id, "Introduction withdrawn", "withdrawn by the person who sent it", l.Withdrawal.At)
}

// ownerNotice checks that the owner received, through the real mail server,
// a content-free notice of introduction id's withdrawal dated by its
// confirmation, besides the earlier mail.
func (h *harness) ownerNotice(mp *testsupport.MailServer, id string, receivedAt time.Time) {
	h.t.Helper()
	mails := mp.SentTo(h.t, "owner@site.example")
	if len(mails) != 2 {
		h.t.Fatalf("the owner has %d mails, want the introduction and the notice", len(mails))
	}
	notice, first := &mails[1], &mails[0]
	if strings.Contains(mails[0].Text, "was withdrawn") {
		notice, first = first, notice
	}
	want := "An introduction confirmed on " + receivedAt.UTC().Format("2 Jan 2006, 15:04 MST") + " was withdrawn or erased"
	if !strings.Contains(notice.Text, want) || !strings.Contains(notice.Text, "Please delete the mail this notice follows") {
		h.t.Fatalf("the notice says %q, want %q", notice.Text, want)
	}
	// Threaded under the mail it follows, which it names by nothing else.
	if ref := "<" + first.MessageID + ">"; fmt.Sprint(notice.Headers["In-Reply-To"]) != "["+ref+"]" || fmt.Sprint(notice.Headers["References"]) != "["+ref+"]" {
		h.t.Fatalf("the notice's In-Reply-To %q and References %q, want %s", notice.Headers["In-Reply-To"], notice.Headers["References"], ref)
	}
	for _, content := range []string{"@example.com", "Recruiter", "Acme"} {
		if strings.Contains(notice.Subject+notice.Text+notice.HTML, content) {
			h.t.Fatalf("the notice repeats %q", content)
		}
	}
	if e := h.envelope(intake.EnvelopeID(id, intake.DestinationEmail, intake.EventWithdrawn)); e.Status != intake.DeliveryAccepted {
		h.t.Fatalf("the notice's envelope is %s %q", e.Status, e.LastError)
	}
}

// saysGone checks the admin's link to a withdrawn or erased introduction:
// 410, the heading, the sentence with its date, once, and no "No such".
func (h *harness) saysGone(id, title, sentence string, at time.Time) {
	h.t.Helper()
	r := h.do(http.MethodGet, "/admin/introductions/"+id, "", nil)
	body := string(r.body)
	if r.status != http.StatusGone || !strings.Contains(body, "<h1>"+title+"</h1>") {
		h.t.Fatalf("admin link: %d %s", r.status, body)
	}
	if strings.Count(body, sentence) != 1 || !strings.Contains(body, at.UTC().Format("2 Jan 2006, 15:04 UTC")) || strings.Contains(body, "No such") {
		h.t.Fatalf("admin link does not say %q once with its date: %s", sentence, body)
	}
}

// An erasure tells the owner (a notice mail) and a webhook that had the
// introduction (introduction.withdrawn), as a withdrawal does; the admin
// link says it was erased.
func TestErasureNotifiesTheOwnerAndTheWebhook(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusOK)
	h := newHarness(t, handoffEnv(rcv, mp))
	id, _ := h.confirmed("erase-me@example.com")
	r := h.postJSON("/admin/api/subjects/erasure", map[string]string{"email": "erase-me@example.com"}, "Sec-Fetch-Site", "same-origin")
	if r.status != http.StatusOK {
		t.Fatalf("erasure: %d %s", r.status, r.body)
	}
	h.settle()
	got := rcv.deliveries()
	last := got[len(got)-1]
	if last.event != intake.EventWithdrawn || last.id != intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventWithdrawn) {
		t.Fatalf("the receiver's last delivery: %+v", last)
	}
	if strings.Contains(fmtJSON(last.body), "erase-me@example.com") {
		t.Fatal("the withdrawn event carries content")
	}
	l := h.ledger(id)
	if l.Erasure == nil {
		t.Fatalf("ledger after erasure: %+v", l)
	}
	testsupport.MatchesSchema(t, testsupport.LedgerSchema(t, ""), "ledger entry", l)
	h.ownerNotice(mp, id, l.ConfirmedAt)
	h.saysGone(id, "Introduction erased", "erased at the request of the person it is about", l.Erasure.At)
}
