package delivery_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const keepFor = 180 * 24 * time.Hour

// bounded is the longest a test waits for something another goroutine
// does before it fails saying what did not happen (never a measure of
// speed: it turns a hang into a clear failure).
const bounded = 30 * time.Second

// sender is a fake at our own interface (intake.Sender): it answers from a
// script, one result per call (the last one repeated), and records what it
// was given.
type sender struct {
	dest    intake.Destination
	mu      sync.Mutex
	script  []intake.DeliveryResult
	sent    []intake.Delivery
	started chan struct{} // when set, receives a value as each send starts
	release chan struct{} // when set, each send waits for a value
	// version is part of every payload the fake renders: changing it
	// changes the bytes a retry would send.
	version string
}

func (s *sender) Destination() intake.Destination { return s.dest }

// Payload renders the envelope id, the event, the introduction's message,
// its added fields and conversation, and the fake's version.
func (s *sender) Payload(d intake.Delivery) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []byte(fmt.Sprintf("%s|%s|%s|%v|%s|%s", d.Envelope.ID, d.Envelope.Event, d.Introduction.Fields.Message, d.Introduction.Added, d.Conversation, s.version)), nil
}

func (s *sender) setVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

func (s *sender) Send(ctx context.Context, d intake.Delivery) intake.DeliveryResult {
	if s.started != nil {
		s.started <- struct{}{}
	}
	if s.release != nil {
		<-s.release
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, d)
	r := s.script[min(len(s.sent), len(s.script))-1]
	return r
}

func (s *sender) calls() []intake.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]intake.Delivery(nil), s.sent...)
}

func result(st intake.DeliveryStatus, detail string) intake.DeliveryResult {
	return intake.DeliveryResult{Status: st, Detail: detail}
}

// world is a real store on the emulator with a delivery service over it.
type world struct {
	t      *testing.T
	client *firestore.Client
	db     *firestorestore.DB
	clock  *testsupport.Clock
	logs   *testsupport.Logs
	svc    *delivery.Service
}

func newWorld(t *testing.T, senders ...intake.Sender) *world {
	t.Helper()
	client, _ := emulatortest.Client(t)
	w := &world{t: t, client: client, clock: testsupport.NewClock(t0), logs: &testsupport.Logs{}}
	logger := slog.New(slog.NewJSONHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var err error
	w.db, err = firestorestore.New(client, firestorestore.Config{Database: emulatortest.Database, OpTimeout: 30 * time.Second}, logger)
	if err != nil {
		t.Fatal(err)
	}
	w.svc = w.service(logger, senders...)
	t.Cleanup(w.svc.Wait)
	return w
}

// service returns another delivery service over the world's store: another
// instance.
func (w *world) service(logger *slog.Logger, senders ...intake.Sender) *delivery.Service {
	w.t.Helper()
	svc, err := delivery.New(delivery.Deps{
		Store: w.db.Outbox(), Senders: senders, Forms: testsupport.Forms(w.t), Clock: w.clock,
		Jitter: func() float64 { return 0.5 }, Logger: logger, Function: "confirmation", Revision: "test",
		Config: delivery.Config{RetryBase: time.Minute, MaxAttempts: 4, AdminURL: func(id string) string { return "https://admin.example/admin/introductions/" + id }},
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return svc
}

func canary(field, id string) string { return "canary-" + field + "-" + id }

// confirmed keeps a valid version-1 draft with a consented conversation and
// confirms it with the service's outbox, without dispatching it; it
// returns the outbox's envelope ids.
func (w *world) confirmed(id string) []string {
	w.t.Helper()
	ctx := context.Background()
	now := w.clock.Now()
	v, err := testsupport.Forms(w.t).Version("introduction", "1")
	if err != nil {
		w.t.Fatal(err)
	}
	p, _ := v.Purpose("attach-conversation")
	exp := now.Add(30 * time.Minute)
	token := "token-" + id
	consent := intake.ConsentEvidence{Purpose: p.ID, Basis: p.Basis, TextVersion: p.Consent.TextVersion, TextSHA256: p.Consent.SHA256,
		Control: p.Consent.Control, ActivelyChecked: true, GivenAt: now, WithdrawalPath: "/api/introductions/" + id + "/withdrawal"}
	k := intake.DraftKeeping{
		Now: now,
		Introduction: intake.Introduction{
			ID: id, State: intake.StateDraft, FormID: "introduction", FormVersion: "1",
			Fields: intake.Fields{Name: canary("name", id), Company: canary("company", id), Role: canary("role", id),
				Email: canary("email", id) + "@example.com", Message: canary("message", id)},
			Added:           map[string]string{"availability": canary("availability", id)},
			HasConversation: true, Consents: []intake.ConsentEvidence{consent},
			TokenHash: intake.HashToken(token), CreatedAt: now, ExpireAt: exp,
		},
		Transcript: &intake.Transcript{IntroductionID: id, Text: canary("conversation", id), ExpireAt: exp},
		Challenge:  intake.SpentChallenge{Key: "challenge/" + id, ExpireAt: now.Add(10 * time.Minute)},
		RateKeys:   []intake.RateKey{{RateRule: intake.RateRule{Layer: "ip", Limit: 100, Window: time.Hour}, KeyHash: "ip-" + id}},
		Ledger: intake.LedgerEntry{
			ID: id, Version: intake.LedgerVersion, FormID: "introduction", FormVersion: "1", SubmissionID: id,
			Validation: intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}},
			Purposes:   []intake.PurposeRecord{{ID: "introduction", Basis: intake.BasisLegitimateInterests, Required: true, Granted: true}, {ID: p.ID, Basis: p.Basis, Granted: true}},
			Consents:   []intake.ConsentEvidence{consent}, WithdrawalPath: "/api/introductions/" + id + "/withdrawal",
			RateLimits: []intake.RateDecision{},
			Retention:  intake.RetentionRecord{Class: intake.RetentionDraft, DeleteAfter: exp},
			Abuse:      intake.AbuseRecord{State: intake.AbuseClean, Signals: []string{}},
			Redaction:  intake.RedactionRecord{Stored: []string{"name", "email", "message", "conversation"}, RedactedFromLogs: intake.RedactedFromLogs},
			Handoffs:   []intake.HandoffRecord{},
			Decision:   intake.DecisionAwaitingConfirmation, Reason: "awaiting confirmation",
			Provenance: intake.Provenance{Function: "drafts", Revision: "test", RequestID: "req-" + id, Time: now},
			UpdatedAt:  now, ExpireAt: exp,
		},
	}
	if _, err := w.db.Intake(nil).KeepDraft(ctx, k); err != nil {
		w.t.Fatal(err)
	}
	outbox := w.svc.Outbox(id, intake.EventConfirmed, intake.Provenance{RequestID: "req-confirm-" + id, Time: now})
	if _, err := w.db.Intake(nil).Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token)}, now, keepFor, outbox); err != nil {
		w.t.Fatal(err)
	}
	ids := make([]string, len(outbox))
	for i, e := range outbox {
		ids[i] = e.ID
	}
	return ids
}

func (w *world) withdraw(id string) {
	w.t.Helper()
	notices := w.svc.Outbox(id, intake.EventWithdrawn, intake.Provenance{RequestID: "req-withdraw-" + id, Time: w.clock.Now()})
	if err := w.db.Intake(nil).Withdraw(context.Background(), intake.Claim{ID: id, TokenHash: intake.HashToken("token-" + id)}, w.clock.Now(), notices); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) envelope(id string) intake.Envelope {
	w.t.Helper()
	e, err := w.db.Outbox().Envelope(context.Background(), id, w.clock.Now())
	if err != nil {
		w.t.Fatalf("envelope %s: %v", id, err)
	}
	return e
}

func (w *world) ledger(id string) intake.LedgerEntry {
	w.t.Helper()
	snap, err := w.client.Collection(firestorestore.Ledger).Doc(id).Get(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	var e intake.LedgerEntry
	if err := snap.DataTo(&e); err != nil {
		w.t.Fatal(err)
	}
	e.ID = id
	return e
}

// handoff returns the ledger's mirror of one envelope.
func (w *world) handoff(submissionID, envelopeID string) intake.HandoffRecord {
	w.t.Helper()
	for _, h := range w.ledger(submissionID).Handoffs {
		if h.EnvelopeID == envelopeID {
			return h
		}
	}
	w.t.Fatalf("ledger %s mirrors no envelope %s", submissionID, envelopeID)
	return intake.HandoffRecord{}
}

// dispatch sends the envelopes as after a commit and waits.
func (w *world) dispatch(ids []string) {
	w.svc.Dispatch(ids)
	w.svc.Wait()
}

func envID(id string, d intake.Destination) string {
	return intake.EnvelopeID(id, d, intake.EventConfirmed)
}

func noCanaries(t *testing.T, what, text, id string) {
	t.Helper()
	for _, f := range []string{"name", "company", "role", "email", "message", "conversation", "availability"} {
		if strings.Contains(text, canary(f, id)) {
			t.Errorf("%s holds the visitor's %s", what, f)
		}
	}
}
