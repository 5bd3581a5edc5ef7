package firestorestore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestConfirmLosesRaceToOtherInstance: another instance confirms between
// this one's read and its commit; the precondition refuses this commit, the
// re-read sees the other's confirmation, and both callers get it.
func TestConfirmLosesRaceToOtherInstance(t *testing.T) {
	ts := newTestStore(t)
	other := ts.sibling(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("lost", t0)); err != nil {
		t.Fatal(err)
	}
	right := intake.HashToken(token("lost"))
	var theirs *intake.Introduction
	ts.beforeCommit = func(string) {
		ts.beforeCommit = nil
		var err error
		if theirs, err = other.Confirm(ctx, intake.Claim{ID: "lost", TokenHash: right}, t0.Add(2*time.Minute), keepFor, nil); err != nil {
			t.Errorf("other instance: %v", err)
		}
	}
	ours, err := ts.Confirm(ctx, intake.Claim{ID: "lost", TokenHash: right}, t0.Add(time.Minute), keepFor, nil)
	if err != nil {
		t.Fatalf("Confirm: %v", err)
	}
	if ts.transitions.Load() != 0 || other.transitions.Load() != 1 {
		t.Fatalf("transitions: ours %d, theirs %d; want 0 and 1", ts.transitions.Load(), other.transitions.Load())
	}
	if !reflect.DeepEqual(ours, theirs) || !ours.ConfirmedAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("the loser answered %+v, the winner %+v", ours, theirs)
	}
}

// TestWithdrawLosesRaceToOtherInstance: the introduction is withdrawn by
// another instance between this one's read and its commit: NOT_FOUND.
func TestWithdrawLosesRaceToOtherInstance(t *testing.T) {
	ts := newTestStore(t)
	other := ts.sibling(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("gone", t0)); err != nil {
		t.Fatal(err)
	}
	right := intake.HashToken(token("gone"))
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "gone", TokenHash: right}, t0.Add(time.Minute), keepFor, nil); err != nil {
		t.Fatal(err)
	}
	ts.beforeCommit = func(string) {
		ts.beforeCommit = nil
		if err := other.Withdraw(ctx, intake.Claim{ID: "gone", TokenHash: right}, t0.Add(2*time.Minute), nil); err != nil {
			t.Errorf("other instance: %v", err)
		}
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "gone", TokenHash: right}, t0.Add(3*time.Minute), nil); err != intake.ErrNotFound {
		t.Fatalf("Withdraw after another instance withdrew = %v, want ErrNotFound", err)
	}
	var ledger intake.LedgerEntry
	snap, err := ts.client.Collection(Ledger).Doc("gone").Get(ctx)
	if err != nil || snap.DataTo(&ledger) != nil {
		t.Fatalf("reading ledger: %v", err)
	}
	if ledger.Decision != intake.DecisionWithdrawn || !ledger.UpdatedAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("ledger = %s at %v, want the other instance's withdrawal", ledger.Decision, ledger.UpdatedAt)
	}
}

// TestConfirmAllOrNothing: when a record the confirmation must update is
// missing, nothing is written: INTERNAL, and the draft is still a draft.
func TestConfirmAllOrNothing(t *testing.T) {
	tests := []struct {
		name    string
		missing string
	}{
		{"ledger entry missing", Ledger},
		{"transcript missing", Transcripts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestStore(t)
			ctx := context.Background()
			if _, err := ts.KeepDraft(ctx, draft("half", t0)); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.client.Collection(tt.missing).Doc("half").Delete(ctx); err != nil {
				t.Fatal(err)
			}
			before := ts.dump(t)
			_, err := ts.Confirm(ctx, intake.Claim{ID: "half", TokenHash: intake.HashToken(token("half"))}, t0.Add(time.Minute), keepFor, nil)
			if codeOf(t, err) != intake.CodeInternal {
				t.Fatalf("Confirm = %v, want INTERNAL", err)
			}
			if after := ts.dump(t); !reflect.DeepEqual(before, after) {
				t.Fatalf("a failed Confirm wrote:\nbefore %v\nafter  %v", before, after)
			}
			var d introductionDoc
			snap, err := ts.client.Collection(Introductions).Doc("half").Get(ctx)
			if err != nil || snap.DataTo(&d) != nil || d.State != intake.StateDraft {
				t.Fatalf("introduction after a failed Confirm: %+v, %v", d, err)
			}
		})
	}
}
