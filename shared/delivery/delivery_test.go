package delivery_test

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// The confirmation writes the outbox in its own write; the envelopes are
// sent right after; SMTP's acceptance is ACCEPTED (decision pending) until
// the provider's signed receipt; then the evidence is closed.
func TestOutboxAcceptedThenReceiptCompletes(t *testing.T) {
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 2.0.0 queued")}}
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")}}
	w := newWorld(t, mail, hook)
	ids := w.confirmed("intro1")
	if len(ids) != 3 {
		t.Fatalf("outbox = %v, want inbox, email, webhook", ids)
	}
	// Before any send: inbox DELIVERED at commit, the others PENDING, all
	// mirrored in the ledger with provenance.
	for _, id := range ids {
		e := w.envelope(id)
		want := intake.DeliveryPending
		if e.Destination == intake.DestinationInbox {
			want = intake.DeliveryDelivered
		}
		if e.Status != want || e.SubmissionID != "intro1" || e.PayloadVersion != intake.HandoffPayloadVersion ||
			e.Event != intake.EventConfirmed || e.Provenance.RequestID != "req-confirm-intro1" || e.Provenance.Function != "confirmation" {
			t.Fatalf("envelope %s at commit = %+v", id, e)
		}
		if h := w.handoff("intro1", id); h.Status != want {
			t.Fatalf("ledger mirror of %s = %s, want %s", id, h.Status, want)
		}
	}
	if got := w.ledger("intro1").Decision; got != intake.DecisionHandoffPending {
		t.Fatalf("decision at commit = %s", got)
	}

	w.dispatch(ids)
	if e := w.envelope(envID("intro1", intake.DestinationEmail)); e.Status != intake.DeliveryAccepted {
		t.Fatalf("email after SMTP 250 = %s, want ACCEPTED (never DELIVERED)", e.Status)
	}
	if e := w.envelope(envID("intro1", intake.DestinationWebhook)); e.Status != intake.DeliveryDelivered || e.SendAttempts() != 1 {
		t.Fatalf("webhook after 2xx = %+v", e)
	}
	if l := w.ledger("intro1"); l.Decision != intake.DecisionHandoffPending || !strings.Contains(l.Reason, "email ACCEPTED") {
		t.Fatalf("ledger after acceptance = %s %q", l.Decision, l.Reason)
	}
	d := hook.calls()[0]
	if d.Introduction.Fields.Name != canary("name", "intro1") || d.Conversation != canary("conversation", "intro1") ||
		d.Introduction.Added["availability"] != canary("availability", "intro1") ||
		d.AdminURL != "https://admin.example/admin/introductions/intro1" || d.Envelope.ID != envID("intro1", intake.DestinationWebhook) {
		t.Fatalf("the sender got %+v", d)
	}

	ev := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-1", EnvelopeID: envID("intro1", intake.DestinationEmail), Kind: intake.ProviderDelivered, At: t0}
	if _, err := w.svc.ApplyEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	l := w.ledger("intro1")
	if l.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("decision after the receipt = %s %q", l.Decision, l.Reason)
	}
	for _, h := range l.Handoffs {
		if h.Status != intake.DeliveryDelivered {
			t.Fatalf("mirror %+v", h)
		}
	}
	noCanaries(t, "the logs", w.logs.String(), "intro1")
}

// A temporary failure event schedules a retry, the sweep sends the same
// envelope again, and a permanent bounce after a receipt never leaves it
// DELIVERED. A replayed token changes nothing.
func TestProviderEventsMoveTheEnvelope(t *testing.T) {
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 OK")}}
	w := newWorld(t, mail)
	ids := w.confirmed("intro2")
	w.dispatch(ids)
	mailID := envID("intro2", intake.DestinationEmail)
	ctx := context.Background()

	temp := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "t-temp", EnvelopeID: mailID, Kind: intake.ProviderFailedTemporary, Reason: "mailbox full"}
	e, err := w.svc.ApplyEvent(ctx, temp)
	if err != nil || e.Status != intake.DeliveryRetryPending || !e.NextAttemptAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after a temporary failure: %+v, %v (want RETRY_PENDING at +1m, the first wait)", e, err)
	}
	before := w.envelope(mailID)
	if _, err := w.svc.ApplyEvent(ctx, temp); intake.CodeOf(err) != intake.CodeEventReplayed {
		t.Fatalf("replayed token: %v, want EVENT_REPLAYED", err)
	}
	if after := w.envelope(mailID); !after.UpdatedAt.Equal(before.UpdatedAt) || len(after.Attempts) != len(before.Attempts) {
		t.Fatal("a replayed event changed the envelope")
	}
	// Not due yet: the sweep leaves it.
	if r, err := w.svc.Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 0 {
		t.Fatalf("early sweep: %+v %v", r, err)
	}
	w.clock.Advance(time.Minute)
	if r, err := w.svc.Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 1 {
		t.Fatalf("due sweep: %+v %v", r, err)
	}
	calls := mail.calls()
	if len(calls) != 2 || calls[0].Envelope.ID != calls[1].Envelope.ID {
		t.Fatalf("retries must send the same envelope: %d calls", len(calls))
	}
	if e := w.envelope(mailID); e.Status != intake.DeliveryAccepted {
		t.Fatalf("after the retry: %s", e.Status)
	}
	if _, err := w.svc.ApplyEvent(ctx, intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "t-del", EnvelopeID: mailID, Kind: intake.ProviderDelivered}); err != nil {
		t.Fatal(err)
	}
	if l := w.ledger("intro2"); l.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("after the receipt: %s", l.Decision)
	}
	e, err = w.svc.ApplyEvent(ctx, intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "t-bounce", EnvelopeID: mailID, Kind: intake.ProviderFailedPermanent, Reason: "550 5.1.1 no such user"})
	if err != nil || e.Status != intake.DeliveryFailed || !strings.Contains(e.LastError, "550 5.1.1") {
		t.Fatalf("after a bounce: %+v %v", e, err)
	}
	if l := w.ledger("intro2"); l.Decision != intake.DecisionHandoffPending || !strings.Contains(l.Reason, "email FAILED") {
		t.Fatalf("a bounce must reopen the decision: %s %q", l.Decision, l.Reason)
	}
	if _, err := w.svc.ApplyEvent(ctx, intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "t-unknown", EnvelopeID: "env_nope_email_confirmed", Kind: intake.ProviderDelivered}); !errors.Is(err, intake.ErrNotFound) {
		t.Fatalf("an unknown envelope: %v", err)
	}
}

// A receiver down for three attempts, then up: DELIVERED with the same
// envelope id every time; the waits double (1m, 2m, 4m) and a receiver's
// Retry-After is honoured.
func TestRetriesWithBackoffThenDelivered(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{
		result(intake.DeliveryRetryPending, "503 Service Unavailable"),
		result(intake.DeliveryRetryPending, "connection refused"),
		{Status: intake.DeliveryRetryPending, Detail: "429 Too Many Requests", RetryAfter: 30 * time.Minute},
		result(intake.DeliveryDelivered, "204 No Content"),
	}}
	w := newWorld(t, hook)
	ctx := context.Background()
	w.dispatch(w.confirmed("intro3"))
	id := envID("intro3", intake.DestinationWebhook)
	waits := []time.Duration{time.Minute, 2 * time.Minute, 30 * time.Minute}
	for i, wait := range waits {
		e := w.envelope(id)
		if e.Status != intake.DeliveryRetryPending || !e.NextAttemptAt.Equal(w.clock.Now().Add(wait)) {
			t.Fatalf("after attempt %d: %s next %v, want RETRY_PENDING at +%s", i+1, e.Status, e.NextAttemptAt.Sub(w.clock.Now()), wait)
		}
		if h := w.handoff("intro3", id); h.Attempts != i+1 || !h.NextAttemptAt.Equal(e.NextAttemptAt) || h.LastError == "" {
			t.Fatalf("ledger mirror after attempt %d: %+v", i+1, h)
		}
		w.clock.Advance(wait)
		if _, err := w.svc.Run(ctx, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if e := w.envelope(id); e.Status != intake.DeliveryDelivered || e.SendAttempts() != 4 {
		t.Fatalf("after the receiver came back: %+v", e)
	}
	for _, c := range hook.calls() {
		if c.Envelope.ID != id {
			t.Fatalf("an attempt sent envelope %s, want %s", c.Envelope.ID, id)
		}
	}
	if l := w.ledger("intro3"); l.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("decision: %s %q", l.Decision, l.Reason)
	}
}

// The attempts are spent: FAILED with the last error, in the envelope and
// the ledger; the owner's retry-now attempts it again.
func TestMaxAttemptsThenFailedAndRetryNow(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryRetryPending, "502 Bad Gateway")}}
	w := newWorld(t, hook)
	ctx := context.Background()
	w.dispatch(w.confirmed("intro4"))
	id := envID("intro4", intake.DestinationWebhook)
	for i := 0; i < 3; i++ {
		w.clock.Advance(time.Hour)
		if _, err := w.svc.Run(ctx, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	e := w.envelope(id)
	if e.Status != intake.DeliveryFailed || e.SendAttempts() != 4 || !strings.Contains(e.LastError, "502 Bad Gateway") || !e.NextAttemptAt.IsZero() {
		t.Fatalf("after 4 attempts (the maximum): %+v", e)
	}
	if l := w.ledger("intro4"); l.Decision != intake.DecisionHandoffPending || !strings.Contains(l.Reason, "webhook FAILED (gave up after 4 attempts; last: 502 Bad Gateway)") {
		t.Fatalf("ledger: %s %q", l.Decision, l.Reason)
	}
	if r, _ := w.svc.Run(ctx, w.clock.Now().Add(48*time.Hour)); r.DeliveriesAttempted != 0 {
		t.Fatal("the sweep retried a FAILED envelope")
	}
	hook.mu.Lock()
	hook.script = []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")}
	hook.sent = nil
	hook.mu.Unlock()
	if err := w.svc.RetryNow(ctx, id); err != nil {
		t.Fatal(err)
	}
	w.svc.Wait()
	if e := w.envelope(id); e.Status != intake.DeliveryDelivered {
		t.Fatalf("after retry now: %s", e.Status)
	}
	if err := w.svc.RetryNow(ctx, id); intake.CodeOf(err) != intake.CodeStateConflict {
		t.Fatalf("retry now of a DELIVERED envelope: %v", err)
	}
	if err := w.svc.RetryNow(ctx, "env_nope_webhook_confirmed"); !errors.Is(err, intake.ErrNotFound) {
		t.Fatalf("retry now of an unknown envelope: %v", err)
	}
}

// A receiver answering 410 Gone: FAILED at once, visible with its reason.
func TestPermanentRefusalIsFailedWithReason(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryFailed, "410 Gone")}}
	w := newWorld(t, hook)
	w.dispatch(w.confirmed("intro5"))
	id := envID("intro5", intake.DestinationWebhook)
	if e := w.envelope(id); e.Status != intake.DeliveryFailed || e.LastError != "410 Gone" {
		t.Fatalf("%+v", e)
	}
	if h := w.handoff("intro5", id); h.Status != intake.DeliveryFailed || h.LastError != "410 Gone" {
		t.Fatalf("mirror %+v", h)
	}
}

// failingStatusWrite is the process dying between the provider's
// acceptance and the status write: the write after a send fails.
type failingStatusWrite struct {
	delivery.Store
	fail bool
}

// UpdateEnvelope fails the first write of an attempt's result (the one
// that records an attempt), writing nothing; the binding of the payload
// before the send goes through.
func (f *failingStatusWrite) UpdateEnvelope(ctx context.Context, id string, now time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error) {
	if !f.fail {
		return f.Store.UpdateEnvelope(ctx, id, now, apply)
	}
	return f.Store.UpdateEnvelope(ctx, id, now, func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		n := len(e.Attempts)
		if err := apply(e, entry); err != nil {
			return err
		}
		if len(e.Attempts) > n {
			f.fail = false
			return intake.Unavailable(errors.New("killed before the status write"), time.Second)
		}
		return nil
	})
}

// A crash after the send and before the status write: the lease keeps
// everyone off until it lapses, then the same envelope id is sent again.
func TestCrashAfterSendResendsTheSameEnvelope(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")}}
	w := newWorld(t, hook)
	ids := w.confirmed("intro6")
	crashing := &failingStatusWrite{Store: w.db.Outbox(), fail: true}
	logger := slog.New(slog.NewJSONHandler(w.logs, nil))
	newInstance := func(s delivery.Store) *delivery.Service {
		svc, err := delivery.New(delivery.Deps{Store: s, Senders: []intake.Sender{hook}, Forms: testsupport.Forms(t), Clock: w.clock, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	ctx := context.Background()
	id := envID("intro6", intake.DestinationWebhook)
	if _, err := newInstance(crashing).Deliver(ctx, id); intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("Deliver with the status write failing: %v", err)
	}
	if e := w.envelope(id); e.Status != intake.DeliveryPending || !e.LeaseUntil.After(w.clock.Now()) {
		t.Fatalf("after the crash: %+v", e)
	}
	other := newInstance(w.db.Outbox())
	if r, err := other.Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 0 {
		t.Fatalf("a sweep during the lease: %+v %v (want nothing attempted)", r, err)
	}
	w.clock.Advance(delivery.DefaultLease + time.Second)
	if r, err := other.Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 1 {
		t.Fatalf("a sweep after the lease: %+v %v", r, err)
	}
	calls := hook.calls()
	if len(calls) != 2 || calls[0].Envelope.ID != id || calls[1].Envelope.ID != id {
		t.Fatalf("sends: %d, want the same envelope twice", len(calls))
	}
	if e := w.envelope(id); e.Status != intake.DeliveryDelivered {
		t.Fatalf("after the re-send: %s", e.Status)
	}
	_ = ids
}

// Two instances attempting one envelope at once: one sends, the other finds
// it leased.
func TestLeaseKeepsInstancesApart(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")},
		started: make(chan struct{}, 2), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(hook.release) }) }
	w := newWorld(t, hook)
	t.Cleanup(release) // first of the cleanups: a failure below leaves no send waiting
	w.confirmed("intro7")
	id := envID("intro7", intake.DestinationWebhook)
	other := w.service(slog.New(slog.NewJSONHandler(w.logs, nil)), hook)
	ctx := context.Background()
	type attempt struct {
		ok  bool
		err error
	}
	first := make(chan attempt, 1)
	go func() {
		ok, err := w.svc.Deliver(ctx, id)
		first <- attempt{ok, err}
	}()
	select { // the first instance holds the lease and is sending
	case <-hook.started:
	case <-time.After(bounded):
		t.Fatalf("the first instance did not start sending within %s", bounded)
	}
	second := make(chan attempt, 1)
	go func() {
		ok, err := other.Deliver(ctx, id)
		second <- attempt{ok, err}
	}()
	select {
	case <-hook.started:
		t.Fatal("a second instance started sending the leased envelope: the lease was ignored")
	case a := <-second:
		if a.ok || a.err != nil {
			t.Fatalf("second instance: attempted=%v err=%v, want it kept off by the lease", a.ok, a.err)
		}
	case <-time.After(bounded):
		t.Fatalf("the second instance's attempt did not return within %s", bounded)
	}
	if err := other.RetryNow(ctx, id); intake.CodeOf(err) != intake.CodeStateConflict {
		t.Fatalf("retry now during a send: %v", err)
	}
	release()
	select {
	case a := <-first:
		if !a.ok || a.err != nil {
			t.Fatalf("the first instance: attempted=%v err=%v, want its send", a.ok, a.err)
		}
	case <-time.After(bounded):
		t.Fatalf("the first instance's send did not end within %s of its release", bounded)
	}
	if n := len(hook.calls()); n != 1 {
		t.Fatalf("%d sends, want 1", n)
	}
}

// Withdrawn before the email went out: nothing is sent with content, the
// envelope says why; the webhook that had the content and the owner's mail
// (whose send could have been in flight) each get a withdrawn notice (no
// content), and the ledger names where the content had gone.
func TestWithdrawalBeforeAndAfterHandoff(t *testing.T) {
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 OK")}}
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")}}
	w := newWorld(t, mail, hook)
	ctx := context.Background()
	w.confirmed("intro8")
	// Only the webhook went out before the withdrawal.
	if _, err := w.svc.Deliver(ctx, envID("intro8", intake.DestinationWebhook)); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Second)
	w.withdraw("intro8")
	l := w.ledger("intro8")
	if l.Decision != intake.DecisionWithdrawn || l.Withdrawal == nil || !slices.Equal(l.Withdrawal.AlreadyDeliveredTo, []intake.Destination{intake.DestinationWebhook}) ||
		!strings.Contains(l.Reason, "already handed to webhook") {
		t.Fatalf("ledger after withdrawal: %s %q %+v", l.Decision, l.Reason, l.Withdrawal)
	}
	notice := intake.EnvelopeID("intro8", intake.DestinationWebhook, intake.EventWithdrawn)
	mailNotice := intake.EnvelopeID("intro8", intake.DestinationEmail, intake.EventWithdrawn)
	if _, err := w.db.Outbox().Envelope(ctx, mailNotice, w.clock.Now()); err != nil {
		t.Fatalf("the owner's notice: %v", err)
	}
	if r, err := w.svc.Run(ctx, w.clock.Now()); err != nil || r.DeliveriesAttempted != 3 {
		t.Fatalf("sweep: %+v %v (want the pending email and the two notices)", r, err)
	}
	if e := w.envelope(envID("intro8", intake.DestinationEmail)); e.Status != intake.DeliveryFailed || e.LastError != delivery.DetailContentGone {
		t.Fatalf("email after withdrawal: %+v", e)
	}
	if mc := mail.calls(); len(mc) != 1 || mc[0].Envelope.ID != mailNotice || mc[0].Introduction.Fields.Name != "" {
		t.Fatalf("the mail sender got %+v, want the content-free notice alone", mc)
	}
	calls := hook.calls()
	last := calls[len(calls)-1]
	if last.Envelope.ID != notice || last.Envelope.Event != intake.EventWithdrawn || last.Introduction.Fields.Name != "" || last.Conversation != "" {
		t.Fatalf("withdrawn notice: %+v", last)
	}
	l = w.ledger("intro8")
	if l.Decision != intake.DecisionWithdrawn {
		t.Fatalf("decision after the sweep: %s", l.Decision)
	}
	found := false
	for _, h := range l.Handoffs {
		if h.EnvelopeID == notice && h.Status == intake.DeliveryDelivered {
			found = true
		}
	}
	if !found {
		t.Fatalf("the ledger does not mirror the delivered notice: %+v", l.Handoffs)
	}
	noCanaries(t, "the logs", w.logs.String(), "intro8")
}

func TestNewRefusesMissingDependencies(t *testing.T) {
	_, err := delivery.New(delivery.Deps{Senders: []intake.Sender{&sender{dest: intake.DestinationInbox}}})
	for _, want := range []string{"Store", "Forms", "Clock", "Logger", "inbox needs no sender"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New error %v does not name %s", err, want)
		}
	}
}

// slowRender is a sender whose rendering takes most of the lease (the
// clock moves on while it renders).
type slowRender struct {
	*sender
	clock *testsupport.Clock
	takes time.Duration
}

func (s slowRender) Payload(d intake.Delivery) ([]byte, error) {
	s.clock.Advance(s.takes)
	return s.sender.Payload(d)
}

// An attempt whose lease has less time left than one send may take sends
// nothing: another instance may lease the envelope once the lease lapses,
// and the two sends must never overlap.
func TestNoSendOutlastsTheLease(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "200 OK")}}
	w := newWorld(t)
	slow := slowRender{sender: hook, clock: w.clock, takes: delivery.DefaultLease - delivery.DefaultSendTimeout + time.Second}
	w.svc = w.service(slog.New(slog.NewJSONHandler(w.logs, nil)), slow)
	t.Cleanup(w.svc.Wait)
	w.dispatch(w.confirmed("intro1"))
	if n := len(hook.calls()); n != 0 {
		t.Fatalf("%d sends with less than SendTimeout of the lease left, want none", n)
	}
	e := w.envelope(envID("intro1", intake.DestinationWebhook))
	if e.Status != intake.DeliveryRetryPending || e.LastError != delivery.DetailLeaseTooShort || !e.LeaseUntil.IsZero() {
		t.Fatalf("envelope = %s %q lease %v, want RETRY_PENDING for the short lease, lease released", e.Status, e.LastError, e.LeaseUntil)
	}

	// With time enough, the retry sends it.
	slow.takes = 0
	w.svc = w.service(slog.New(slog.NewJSONHandler(w.logs, nil)), slow)
	w.clock.Advance(time.Hour)
	if _, err := w.svc.Run(context.Background(), w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if n := len(hook.calls()); n != 1 {
		t.Fatalf("%d sends on the retry, want 1", n)
	}
}

// A provider's receipt can be applied while the send it is about still
// holds its lease (the status write after SMTP's 250 is slower than the
// provider): the acceptance written after it must not take the receipt
// back.
func TestAReceiptBeforeTheAcceptanceIsWrittenStays(t *testing.T) {
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 2.0.0 queued")},
		started: make(chan struct{}), release: make(chan struct{})}
	w := newWorld(t, mail)
	ids := w.confirmed("intro1")
	w.svc.Dispatch(ids)
	<-mail.started
	ev := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-early", EnvelopeID: envID("intro1", intake.DestinationEmail), Kind: intake.ProviderDelivered, At: t0}
	if _, err := w.svc.ApplyEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	mail.release <- struct{}{}
	w.svc.Wait()

	e := w.envelope(envID("intro1", intake.DestinationEmail))
	if e.Status != intake.DeliveryDelivered || e.SendAttempts() != 1 || !e.LeaseUntil.IsZero() {
		t.Fatalf("envelope after an early receipt = %s, %d sends, lease %v; want DELIVERED, 1 send, no lease", e.Status, e.SendAttempts(), e.LeaseUntil)
	}
	if l := w.ledger("intro1"); l.Decision != intake.DecisionHandoffComplete {
		t.Fatalf("decision = %s %q, want HANDOFF_COMPLETE", l.Decision, l.Reason)
	}
	// Nothing is due: the receipt closed it.
	w.clock.Advance(time.Hour)
	if r, err := w.svc.Run(context.Background(), w.clock.Now()); err != nil || r.DeliveriesAttempted != 0 || len(mail.calls()) != 1 {
		t.Fatalf("sweep after the receipt: %+v %v, %d sends", r, err, len(mail.calls()))
	}
}

// TestAnEmailEventMovesNoOtherEnvelope: a verified email provider's event
// naming the inbox or the webhook envelope is NOT_FOUND and moves neither
// it nor the ledger's decision: the inbox stays DELIVERED.
func TestAnEmailEventMovesNoOtherEnvelope(t *testing.T) {
	hook := &sender{dest: intake.DestinationWebhook, script: []intake.DeliveryResult{result(intake.DeliveryDelivered, "204")}}
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 OK")}}
	w := newWorld(t, mail, hook)
	w.dispatch(w.confirmed("wrong"))
	ctx := context.Background()
	before := w.ledger("wrong")
	for _, d := range []intake.Destination{intake.DestinationInbox, intake.DestinationWebhook} {
		id := envID("wrong", d)
		was := w.envelope(id)
		ev := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-" + string(d), EnvelopeID: id, Kind: intake.ProviderFailedPermanent, Reason: "550"}
		if _, err := w.svc.ApplyEvent(ctx, ev); !errors.Is(err, intake.ErrNotFound) {
			t.Errorf("an email event naming the %s envelope: %v, want NOT_FOUND", d, err)
		}
		if e := w.envelope(id); e.Status != intake.DeliveryDelivered || len(e.Attempts) != len(was.Attempts) {
			t.Errorf("the %s envelope after an email event: %s with %d attempts, want DELIVERED unchanged", d, e.Status, len(e.Attempts))
		}
	}
	if after := w.ledger("wrong"); after.Decision != before.Decision || after.Reason != before.Reason || !reflect.DeepEqual(after.Handoffs, before.Handoffs) {
		t.Errorf("the ledger moved: %s %q, want %s %q", after.Decision, after.Reason, before.Decision, before.Reason)
	}
}

// TestWithdrawalDuringAnEmailSendNamesEmail: the visitor withdraws while
// the email is being sent (its lease held, the SMTP server not yet
// answered); when the send then ends ACCEPTED - handed to the mail server,
// never DELIVERED - the withdrawal's record of where the content had gone
// names email.
func TestWithdrawalDuringAnEmailSendNamesEmail(t *testing.T) {
	mail := &sender{dest: intake.DestinationEmail, script: []intake.DeliveryResult{result(intake.DeliveryAccepted, "250 OK")},
		started: make(chan struct{}, 1), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(mail.release) }) }
	w := newWorld(t, mail)
	t.Cleanup(release) // first of the cleanups: a failure below leaves no send waiting
	w.confirmed("inflight")
	id := envID("inflight", intake.DestinationEmail)
	done := make(chan error, 1)
	go func() {
		_, err := w.svc.Deliver(context.Background(), id)
		done <- err
	}()
	select {
	case <-mail.started:
	case <-time.After(bounded):
		t.Fatalf("the email send did not start within %s", bounded)
	}
	w.clock.Advance(time.Second)
	w.withdraw("inflight")
	if l := w.ledger("inflight"); l.Withdrawal == nil || len(l.Withdrawal.AlreadyDeliveredTo) != 0 {
		t.Fatalf("the withdrawal during the send: %+v, want a record naming nothing yet", l.Withdrawal)
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bounded):
		t.Fatalf("the email send did not end within %s of its release", bounded)
	}
	if e := w.envelope(id); e.Status != intake.DeliveryAccepted {
		t.Fatalf("the email after its 250: %s, want ACCEPTED", e.Status)
	}
	l := w.ledger("inflight")
	if l.Decision != intake.DecisionWithdrawn || l.Withdrawal == nil || !slices.Equal(l.Withdrawal.AlreadyDeliveredTo, []intake.Destination{intake.DestinationEmail}) {
		t.Fatalf("after the send ended ACCEPTED: %s %+v, want WITHDRAWN with the content already handed to email", l.Decision, l.Withdrawal)
	}
	testsupport.MatchesSchema(t, testsupport.LedgerSchema(t, ""), "ledger entry", l)
}
