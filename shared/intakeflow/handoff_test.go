package intakeflow_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/testsupport"
)

// confirmingStore confirms id "AAAAAAAAAAAAAAAAAAAAAA" the first time at the
// time it is given, and answers repeats with that first time, as the store
// does; it records the outboxes and notices it is handed.
type confirmingStore struct {
	untouchableStore
	mu          sync.Mutex
	confirmedAt time.Time
	outboxes    [][]intake.Envelope
	notices     [][]intake.Envelope
}

func (s *confirmingStore) Confirm(_ context.Context, c intake.Claim, now time.Time, keepFor time.Duration, outbox []intake.Envelope) (*intake.Introduction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.confirmedAt.IsZero() {
		s.confirmedAt = now.UTC().Truncate(time.Microsecond)
		s.outboxes = append(s.outboxes, outbox)
	}
	return &intake.Introduction{ID: c.ID, State: intake.StateConfirmed, ConfirmedAt: s.confirmedAt, ExpireAt: s.confirmedAt.Add(keepFor)}, nil
}

func (s *confirmingStore) Withdraw(_ context.Context, _ intake.Claim, _ time.Time, notices []intake.Envelope) error {
	s.notices = append(s.notices, notices)
	return nil
}

// recordingHandoff is a Handoff that records what it is asked to send.
type recordingHandoff struct {
	mu         sync.Mutex
	dispatched [][]string
	provenance []intake.Provenance
}

func (h *recordingHandoff) Outbox(id, event string, prov intake.Provenance) []intake.Envelope {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.provenance = append(h.provenance, prov)
	return []intake.Envelope{{ID: intake.EnvelopeID(id, intake.DestinationWebhook, event), SubmissionID: id, Event: event, Destination: intake.DestinationWebhook, Status: intake.DeliveryPending}}
}

func (h *recordingHandoff) Dispatch(ids []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dispatched = append(h.dispatched, ids)
}

// The confirmation hands its outbox to the store and sends it after the
// commit, once: a repeat sends nothing. A withdrawal hands its notices over
// and sends them. Both carry the request's id in their provenance.
func TestConfirmAndWithdrawHandOff(t *testing.T) {
	clock := testsupport.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	flood, _ := floodlimit.New(100, time.Minute)
	forms, _ := formregistry.Load()
	store := &confirmingStore{untouchableStore: untouchableStore{t: t}}
	handoff := &recordingHandoff{}
	svc, err := intakeflow.New(intakeflow.Deps{
		Store: store, Reviser: &store.untouchableStore, Forms: forms, Flood: flood, Pepper: bytes.Repeat([]byte{7}, 32), Clock: clock, Entropy: rand.Reader,
		Logger: slog.New(slog.DiscardHandler), Chain: checks.Chain{checks.Honeypot{}},
		Retention: intake.DefaultRetention, IPLimit: intake.RateRule{Limit: 10, Window: time.Hour},
		EmailLimit: intake.RateRule{Limit: 5, Window: time.Hour}, Function: "confirmation", Revision: "r1", Handoff: handoff,
	})
	if err != nil {
		t.Fatal(err)
	}
	id, token := "AAAAAAAAAAAAAAAAAAAAAA", strings.Repeat("T", 43)
	ctx, req := context.Background(), intakeflow.TokenRequest{ID: id, Token: token, RequestID: "req-42"}
	for i := 0; i < 2; i++ {
		if _, err := svc.Confirm(ctx, req); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	if len(store.outboxes) != 1 || len(handoff.dispatched) != 1 || handoff.dispatched[0][0] != intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventConfirmed) {
		t.Fatalf("outboxes %d, dispatched %v: want the first confirmation's outbox sent once", len(store.outboxes), handoff.dispatched)
	}
	if err := svc.Withdraw(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(store.notices) != 1 || len(handoff.dispatched) != 2 || handoff.dispatched[1][0] != intake.EnvelopeID(id, intake.DestinationWebhook, intake.EventWithdrawn) {
		t.Fatalf("withdrawal: notices %d, dispatched %v", len(store.notices), handoff.dispatched)
	}
	for _, p := range handoff.provenance {
		if p.RequestID != "req-42" || p.Function != "confirmation" || p.Revision != "r1" || p.Time.IsZero() {
			t.Fatalf("provenance %+v", p)
		}
	}
}
