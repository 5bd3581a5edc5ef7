package intakeflow_test

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
)

// A malformed Idempotency-Key header is refused as a key that fails the
// pattern is, and tallied in the ledger like it.
func TestAMalformedIdempotencyKeyIsTallied(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, req := range []intakeflow.DraftRequest{
		{Submission: submission(""), Client: netip.MustParseAddr("192.0.2.7"), IdempotencyKeyMalformed: true},
		{Submission: submission(""), Client: netip.MustParseAddr("192.0.2.7"), IdempotencyKey: "short"},
	} {
		if _, err := f.svc.Draft(ctx, req); intake.CodeOf(err) != intake.CodeIdempotencyKeyInvalid {
			t.Fatalf("draft %+v = %v, want IDEMPOTENCY_KEY_INVALID", req, err)
		}
	}
	if err := f.svc.FlushRefusals(ctx, true); err != nil {
		t.Fatal(err)
	}
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if len(f.store.entries) != 1 || f.store.entries[0].Refusals == nil || f.store.entries[0].Refusals.Count != 2 ||
		!slices.Equal(f.store.entries[0].Refusals.Codes, []intake.Code{intake.CodeIdempotencyKeyInvalid}) {
		t.Fatalf("the tally of the two refusals: %+v", f.store.entries)
	}
}

// A tally whose write is kept but whose answer is lost is written again
// under the same ledger id on the next flush, so the store keeps it once.
func TestARetriedRefusalTallyKeepsItsLedgerID(t *testing.T) {
	f := newFixture(t)
	lost := true
	f.store.record = func(intake.LedgerEntry) error {
		if lost {
			lost = false
			return intake.Unavailable(errors.New("the commit's answer was lost"), time.Second)
		}
		return nil
	}
	ctx := context.Background()
	req := intakeflow.DraftRequest{Submission: submission(""), Client: netip.MustParseAddr("192.0.2.7"), IdempotencyKey: "short"}
	if _, err := f.svc.Draft(ctx, req); intake.CodeOf(err) != intake.CodeIdempotencyKeyInvalid {
		t.Fatalf("draft = %v, want IDEMPOTENCY_KEY_INVALID", err)
	}
	if err := f.svc.FlushRefusals(ctx, true); intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("first flush = %v, want UNAVAILABLE", err)
	}
	if err := f.svc.FlushRefusals(ctx, true); err != nil {
		t.Fatalf("second flush = %v", err)
	}
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if len(f.store.entries) != 2 || f.store.entries[0].ID != f.store.entries[1].ID || f.store.entries[1].Refusals == nil || f.store.entries[1].Refusals.Count != 1 {
		t.Fatalf("the two writes of one tally: %+v", f.store.entries)
	}
}
