package wiring_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/mailgun"
	"github.com/ownersite/introductions/shared/testsupport"
	"github.com/ownersite/introductions/shared/webhook"
)

const (
	testWebhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	testMailgunKey    = "key-test-mailgun-signing"
)

// receiver is a local webhook receiver: it verifies each delivery's
// Standard Webhooks signature, records it, and answers from a script of
// statuses (the last one repeated).
type receiver struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// script are the statuses answered, in order.
	script []int
	got    []received
}

type received struct {
	id, event string
	status    int
	body      map[string]any
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{t: t, script: script}
	key, err := webhookKey()
	if err != nil {
		t.Fatal(err)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
		sec, _ := strconv.ParseInt(ts, 10, 64)
		if want := webhook.Sign(key, id, time.Unix(sec, 0), body); !strings.Contains(req.Header.Get("webhook-signature"), want) {
			t.Errorf("webhook %s: signature %q does not verify (want %q)", id, req.Header.Get("webhook-signature"), want)
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		r.mu.Lock()
		status := r.script[min(len(r.got), len(r.script)-1)]
		event, _ := m["type"].(string)
		r.got = append(r.got, received{id: id, event: event, status: status, body: m})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func webhookKey() ([]byte, error) {
	return config.WebhookSecretKey(testWebhookSecret)
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// handoffEnv configures every destination: the webhook at rcv, mail to
// MailDev, Mailgun events on.
func handoffEnv(rcv *receiver, mp *testsupport.MailServer) map[string]string {
	return map[string]string{
		"WEBHOOK_URL": rcv.srv.URL + "/hooks/introductions", "WEBHOOK_SECRET": testWebhookSecret, "WEBHOOK_ALLOW_PRIVATE": "true",
		"SMTP_HOST": mp.SMTPHost, "SMTP_PORT": strconv.Itoa(mp.SMTPPort), "SMTP_TLS": "none",
		"NOTIFY_EMAIL_FROM": "Introductions <introductions@site.example>", "NOTIFY_EMAIL_TO": "owner@site.example",
		"MAILGUN_WEBHOOK_SIGNING_KEY": testMailgunKey, "ADMIN_URL": "https://admin.site.example",
		"DELIVERY_RETRY_BASE": "1m", "DELIVERY_MAX_ATTEMPTS": "8",
		"RATE_LIMIT_IP_PER_HOUR": "100", "FLOOD_LIMIT": "1000",
	}
}

// mailgunEvent is a Mailgun webhook body signed now by the harness clock.
func (h *harness) mailgunEvent(token, envelopeID, event, severity, reason string) []byte {
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	body := map[string]any{
		"signature": map[string]any{"timestamp": ts, "token": token, "signature": mailgun.Signature(testMailgunKey, ts, token)},
		"event-data": map[string]any{"id": "ev-" + token, "event": event, "severity": severity, "reason": reason,
			"timestamp": float64(h.clock.Now().Unix()), "user-variables": map[string]any{"envelope-id": envelopeID},
			"delivery-status": map[string]any{"code": 250}},
	}
	b, _ := json.Marshal(body)
	return b
}

func (h *harness) postEvent(body []byte) response {
	h.t.Helper()
	return h.do(http.MethodPost, "/hooks/delivery/mailgun", "application/json", body)
}

// envelope reads one envelope as the admin would.
func (h *harness) envelope(id string) intake.Envelope {
	h.t.Helper()
	e, err := h.svc.DB.Outbox().Envelope(context.Background(), id, h.clock.Now())
	if err != nil {
		h.t.Fatalf("envelope %s: %v", id, err)
	}
	return e
}

func (h *harness) ledger(id string) intake.LedgerEntry {
	h.t.Helper()
	snap, err := h.db.Collection("ledger").Doc(id).Get(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	var e intake.LedgerEntry
	if err := snap.DataTo(&e); err != nil {
		h.t.Fatal(err)
	}
	e.ID = id
	return e
}

// sweepDeliveries runs the delivery task as the sweep does.
func (h *harness) sweepDeliveries() int {
	h.t.Helper()
	r, err := h.svc.Delivery.Run(context.Background(), h.clock.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return r.DeliveriesAttempted
}

// TestWorkedCase is the handoff's worked case end to end, on the emulator,
// a real MailDev, fake-gcs-server, a local webhook receiver and signed
// Mailgun events: the form's version 3 with its optional purpose and its
// attachment; a draft retried after a timeout with the same
// Idempotency-Key (one logical intake); a CV attached, its upload retried
// (still one intake, one object); confirmation; the webhook and the mail
// naming the file with its admin link, the admin serving it as a download,
// the ledger keeping its type, size and SHA-256;
// SMTP accepts (ACCEPTED, HANDOFF_PENDING); a temporary failure
// (RETRY_PENDING); the retry; a receipt (DELIVERED, HANDOFF_COMPLETE); the
// abuse decision on record; replayed and tampered events change nothing;
// no personal data in the logs.
func TestWorkedCase(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusNoContent)
	h := newHarness(t, handoffEnv(rcv, mp))

	form := h.do(http.MethodGet, "/api/forms/introduction", "", nil).json(t)
	if form["formVersion"] != "3" {
		t.Fatalf("the served form is version %v, want 3", form["formVersion"])
	}
	if a, _ := form["attachment"].(map[string]any); a == nil || a["maxBytes"] != float64(5<<20) || a["purpose"] != "attachment" {
		t.Fatalf("version 3 offers no attachment: %v", form["attachment"])
	}
	var futureRoles map[string]any
	for _, p := range form["purposes"].([]any) {
		if p.(map[string]any)["id"] == "future-roles" {
			futureRoles = p.(map[string]any)["consent"].(map[string]any)
		}
	}
	if futureRoles == nil {
		t.Fatal("version 3 has no future-roles purpose")
	}
	notice, _ := json.Marshal(form["notice"])
	for _, want := range []string{"private inbox", "as an email", "webhook", "point-in-time recovery", "If you attach a file (PDF, PNG, JPEG or plain text, one, at most 5 MiB)", "legal basis: legitimate interests"} {
		if !bytes.Contains(notice, []byte(want)) {
			t.Errorf("the served notice does not name %q", want)
		}
	}

	canaryName, canaryMessage := "Canary Lovelace-7f3a", "canary message 7f3a: a role in the analytical engine team"
	body := h.draftBody(map[string]any{"formVersion": "3", "name": canaryName, "message": canaryMessage, "email": "canary-7f3a@example.com",
		"consents": []any{map[string]any{"purpose": "future-roles", "textVersion": futureRoles["textVersion"], "given": true}}})
	first := h.postJSON("/api/introductions", body, "Idempotency-Key", "worked-case-0001")
	// The visitor's connection timed out before the answer: the page sends
	// the same draft again with the same key.
	retry := h.postJSON("/api/introductions", body, "Idempotency-Key", "worked-case-0001")
	if first.status != http.StatusCreated || retry.status != http.StatusCreated {
		t.Fatalf("draft %d %s, retry %d %s", first.status, first.body, retry.status, retry.body)
	}
	d, again := first.json(t), retry.json(t)
	id, token := d["id"].(string), d["token"].(string)
	if again["id"] != id || again["token"] != token {
		t.Fatal("the retry made a second intake")
	}
	if n := h.count("introductions"); n != 1 {
		t.Fatalf("%d introductions, want one logical intake", n)
	}

	// The attachment: a CV, sent twice as the page retries an upload whose
	// answer was lost; the second replaces the first, still one intake.
	canaryFile := "canary-cv-7f3a.pdf"
	cv := testsupport.SamplePDF(4000)
	cvSum := sha256.Sum256(cv)
	cvHash := hex.EncodeToString(cvSum[:])
	for range 2 {
		if r := h.attach(id, token, "application/pdf", canaryFile, cv); r.status != http.StatusOK {
			t.Fatalf("upload: %d %s", r.status, r.body)
		}
	}
	if n, objects := h.count("introductions"), h.objects(); n != 1 || len(objects) != 1 || !strings.HasPrefix(objects[0], id+"/") {
		t.Fatalf("after the upload's retry: %d introductions, objects %v (want one, under %s/)", n, objects, id)
	}
	wantEvidence := intake.AttachmentEvidence{Type: "application/pdf", Size: int64(len(cv)), SHA256: cvHash}

	c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token})
	if c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	h.settle()

	// The webhook and the mail name the file and link to the admin, never
	// carrying its bytes; the admin serves it as a download.
	wantRef := map[string]any{"name": canaryFile, "type": "application/pdf", "size": float64(len(cv)), "sha256": cvHash,
		"adminUrl": "https://admin.site.example/admin/introductions/" + id + "/attachment"}
	hooks := rcv.deliveries()
	if len(hooks) != 1 || fmtJSON(hooks[0].body["data"].(map[string]any)["attachment"]) != fmtJSON(wantRef) {
		t.Fatalf("the webhook's attachment: %v", hooks)
	}
	if raw := fmtJSON(hooks[0].body); strings.Contains(raw, "%PDF") || strings.Contains(raw, base64.StdEncoding.EncodeToString(cv[:30])) {
		t.Fatal("the webhook carries the file's bytes")
	}
	if mails := mp.SentTo(t, "owner@site.example"); len(mails) != 1 || !strings.Contains(mails[0].Text, canaryFile) ||
		!strings.Contains(mails[0].Text, cvHash) || !strings.Contains(mails[0].Text, wantRef["adminUrl"].(string)) || strings.Contains(mails[0].Text, "%PDF") {
		t.Fatalf("the mail does not name the attachment and its admin link: %+v", mails)
	}
	dl := h.do(http.MethodGet, "/admin/introductions/"+id+"/attachment", "", nil)
	if dl.status != http.StatusOK || !bytes.Equal(dl.body, cv) || dl.header.Get("Content-Type") != "application/pdf" ||
		dl.header.Get("Content-Disposition") != `attachment; filename=`+canaryFile || dl.header.Get("X-Content-Type-Options") != "nosniff" ||
		dl.header.Get("Content-Security-Policy") != "sandbox" {
		t.Fatalf("the admin's download: %d %v", dl.status, dl.header)
	}
	page := h.do(http.MethodGet, "/admin/introductions/"+id, "", nil)
	if page.status != http.StatusOK || !bytes.Contains(page.body, []byte(canaryFile)) || !bytes.Contains(page.body, []byte(cvHash)) ||
		!bytes.Contains(page.body, []byte(`href="/admin/introductions/`+id+`/attachment"`)) {
		t.Fatalf("the detail page does not show the attachment: %d", page.status)
	}
	if a := h.do(http.MethodGet, "/admin/api/introductions/"+id, "", nil).json(t)["attachment"]; fmtJSON(a) != fmtJSON(map[string]any{"name": canaryFile, "type": "application/pdf", "size": len(cv), "sha256": cvHash}) {
		t.Fatalf("the detail JSON's attachment: %v", a)
	}

	mailID := intake.EnvelopeID(id, intake.DestinationEmail, intake.EventConfirmed)
	hookID := intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed)
	if e := h.envelope(mailID); e.Status != intake.DeliveryAccepted {
		t.Fatalf("email after SMTP acceptance: %s %q, want ACCEPTED", e.Status, e.LastError)
	}
	if e := h.envelope(hookID); e.Status != intake.DeliveryDelivered {
		t.Fatalf("webhook after its 2xx: %s %q", e.Status, e.LastError)
	}
	if l := h.ledger(id); l.Decision != intake.DecisionHandoffPending || l.Attachment == nil || *l.Attachment != wantEvidence {
		t.Fatalf("after acceptance: decision %s %q, attachment evidence %+v", l.Decision, l.Reason, l.Attachment)
	}
	mails := mp.SentTo(t, "owner@site.example")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, canaryName) {
		t.Fatalf("MailDev holds %d mails for the owner", len(mails))
	}
	if hdr := mails[0].Headers; !strings.Contains(strings.Join(hdr["X-Mailgun-Variables"], ""), mailID) {
		t.Fatalf("the mail does not carry its envelope id: %v", hdr["X-Mailgun-Variables"])
	}

	if r := h.postEvent(h.mailgunEvent("tok-temp", mailID, "failed", "temporary", "generic")); r.status != http.StatusOK {
		t.Fatalf("temporary failure event: %d %s", r.status, r.body)
	}
	e := h.envelope(mailID)
	if e.Status != intake.DeliveryRetryPending || e.NextAttemptAt.IsZero() {
		t.Fatalf("after a temporary failure: %s next %v", e.Status, e.NextAttemptAt)
	}
	if l := h.ledger(id); l.Decision != intake.DecisionHandoffPending {
		t.Fatalf("decision while retrying: %s", l.Decision)
	}
	if n := h.sweepDeliveries(); n != 0 {
		t.Fatalf("the sweep retried %d deliveries before their time", n)
	}
	h.clock.Advance(e.NextAttemptAt.Sub(h.clock.Now()))
	if n := h.sweepDeliveries(); n != 1 {
		t.Fatalf("the sweep retried %d deliveries, want the email", n)
	}
	if e := h.envelope(mailID); e.Status != intake.DeliveryAccepted || e.SendAttempts() != 2 {
		t.Fatalf("after the retry: %s, %d sends", e.Status, e.SendAttempts())
	}
	if mails := mp.SentTo(t, "owner@site.example"); len(mails) != 2 || mails[0].MessageID != mails[1].MessageID {
		t.Fatalf("the retry must re-send the same message: %d mails", len(mails))
	}
	// Accepted again is not received: the handoff stays pending until the
	// provider's receipt, and the retry made no second intake nor object.
	if l := h.ledger(id); l.Decision != intake.DecisionHandoffPending {
		t.Fatalf("decision after the retry, before the receipt: %s", l.Decision)
	}
	if n, objects := h.count("introductions"), h.objects(); n != 1 || len(objects) != 1 {
		t.Fatalf("after the delivery's retry: %d introductions, objects %v", n, objects)
	}

	delivered := h.mailgunEvent("tok-delivered", mailID, "delivered", "", "")
	if r := h.postEvent(delivered); r.status != http.StatusOK {
		t.Fatalf("delivered event: %d %s", r.status, r.body)
	}
	l := h.ledger(id)
	if e := h.envelope(mailID); e.Status != intake.DeliveryDelivered || l.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("after the receipt: %s, decision %s %q", e.Status, l.Decision, l.Reason)
	}
	if l.Attachment == nil || *l.Attachment != wantEvidence || contains(h.docs("ledger"), canaryFile) {
		t.Fatalf("the ledger's attachment evidence: %+v", l.Attachment)
	}
	raw, err := h.db.Collection("ledger").Doc(id).Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ev, _ := raw.Data()["attachment"].(map[string]any); len(ev) != 3 || ev["type"] == nil || ev["size"] == nil || ev["sha256"] == nil {
		t.Fatalf("the ledger keeps more of the attachment than its type, size and SHA-256: %v", raw.Data()["attachment"])
	}
	if l.FormVersion != "3" || l.Abuse.State != intake.AbuseClean || l.Validation.Result != intake.ValidationPass || len(l.Consents) != 1 ||
		l.Consents[0].Purpose != "future-roles" || l.Consents[0].ConfirmedAt.IsZero() || l.IdempotencyKeyHash == "" {
		t.Fatalf("the ledger entry does not hold the evidence: %+v", l)
	}
	testsupport.MatchesSchema(t, testsupport.LedgerSchema(t, ""), "ledger entry", l)

	// Replayed and tampered events change nothing.
	before := h.docs("envelopes")
	if r := h.postEvent(delivered); r.status != http.StatusConflict || r.code(t) != "EVENT_REPLAYED" {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	tampered := bytes.Replace(h.mailgunEvent("tok-bounce", mailID, "failed", "permanent", "bounce"), []byte(`"permanent"`), []byte(`"temporary"`), 1)
	var tm map[string]any
	_ = json.Unmarshal(tampered, &tm)
	tm["signature"].(map[string]any)["token"] = "tok-other"
	tampered, _ = json.Marshal(tm)
	if r := h.postEvent(tampered); r.status != http.StatusForbidden || r.code(t) != "EVENT_SIGNATURE_INVALID" {
		t.Fatalf("tampered: %d %s", r.status, r.body)
	}
	h.clock.Advance(10 * time.Minute)
	stale := h.mailgunEvent("tok-stale", mailID, "failed", "permanent", "bounce")
	h.clock.Advance(10 * time.Minute)
	if r := h.postEvent(stale); r.status != http.StatusForbidden || r.code(t) != "EVENT_STALE" {
		t.Fatalf("stale: %d %s", r.status, r.body)
	}
	if after := h.docs("envelopes"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("a refused event changed an envelope")
	}

	logs := h.logs.String()
	for _, canary := range []string{canaryName, canaryMessage, "canary-7f3a@example.com", token, "worked-case-0001", canaryFile, cvHash} {
		if strings.Contains(logs, canary) {
			t.Errorf("the logs hold %q", canary)
		}
	}
}

// settle waits for what this instance does in the background: a sweep
// started by the day's first draft (its delivery task may be sending an
// envelope) and the sends after a commit.
func (h *harness) settle() {
	h.svc.Sweeps.Wait()
	h.svc.Delivery.Wait()
}

// TestAMailgunEventNamingAnotherEnvelopeMovesNothing: a correctly signed
// Mailgun event naming the inbox or the webhook envelope answers 200 with
// applied false (so Mailgun does not send it again) and moves neither: the
// inbox stays DELIVERED, as does the webhook after its 2xx.
func TestAMailgunEventNamingAnotherEnvelopeMovesNothing(t *testing.T) {
	mp := testsupport.StartMail(t)
	rcv := newReceiver(t, http.StatusNoContent)
	h := newHarness(t, handoffEnv(rcv, mp))
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	id, token := d["id"].(string), d["token"].(string)
	if c := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": token}); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	h.settle()
	before := h.docs("envelopes")
	for _, dest := range []intake.Destination{intake.DestinationInbox, intake.DestinationWebhook} {
		envID := intake.EnvelopeID(id, dest, intake.EventConfirmed)
		r := h.postEvent(h.mailgunEvent("tok-"+string(dest), envID, "failed", "permanent", "bounce"))
		if r.status != http.StatusOK || r.json(t)["applied"] != false {
			t.Errorf("a Mailgun event naming the %s envelope: %d %s, want 200 applied false", dest, r.status, r.body)
		}
		if e := h.envelope(envID); e.Status != intake.DeliveryDelivered {
			t.Errorf("the %s envelope after a Mailgun bounce naming it: %s, want DELIVERED", dest, e.Status)
		}
	}
	if after := h.docs("envelopes"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("a Mailgun event moved an envelope that is not the email's")
	}
}
