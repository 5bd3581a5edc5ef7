package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// rounds is how often each race is run.
const rounds = 3

// instancesFor returns the instances round r spreads its calls over: one
// in the first rounds (where the in-process locks keep the calls apart),
// two in the last (where only Firestore does, at a cost under contention).
func (ts *testStore) instancesFor(t testing.TB, r int) []*allStores {
	if r == rounds-1 {
		return []*allStores{ts.allStores, ts.sibling(t)}
	}
	return []*allStores{ts.allStores}
}

// TestConcurrentConfirm: 50 confirmations of one draft at once, half with a
// wrong token, spread over three instances: exactly one transition, every
// right-token caller gets the same introduction, every wrong one NOT_FOUND.
func TestConcurrentConfirm(t *testing.T) {
	ts := newTestStore(t)
	instances := []*allStores{ts.allStores, ts.sibling(t), ts.sibling(t)}
	ctx := context.Background()
	for r := range rounds {
		id := fmt.Sprintf("confirm-race-%d", r)
		if _, err := ts.KeepDraft(ctx, draft(id, t0)); err != nil {
			t.Fatal(err)
		}
		before := int64(0)
		for _, s := range instances {
			before += s.transitions.Load()
		}
		const n = 50
		results := make([]*intake.Introduction, n)
		errs := make([]error, n)
		testsupport.AtOnce(n, func(i int) {
			tok := intake.HashToken(token(id))
			if i%2 == 1 {
				tok = intake.HashToken(fmt.Sprintf("wrong-%d", i))
			}
			// Each caller has its own now, so the winner is recognisable.
			now := t0.Add(time.Minute + time.Duration(i)*time.Millisecond)
			results[i], errs[i] = instances[i%len(instances)].Confirm(ctx, intake.Claim{ID: id, TokenHash: tok}, now, keepFor, nil)
		})
		after := int64(0)
		for _, s := range instances {
			after += s.transitions.Load()
		}
		if after-before != 1 {
			t.Fatalf("round %d: %d transitions, want exactly 1", r, after-before)
		}
		var winner *intake.Introduction
		for i := range n {
			if i%2 == 1 {
				if errs[i] != intake.ErrNotFound {
					t.Fatalf("round %d: wrong token %d = %v, want ErrNotFound", r, i, errs[i])
				}
				continue
			}
			if errs[i] != nil {
				t.Fatalf("round %d: right token %d = %v", r, i, errs[i])
			}
			if winner == nil {
				winner = results[i]
			}
			if !reflect.DeepEqual(results[i], winner) {
				t.Fatalf("round %d: results differ:\n%+v\n%+v", r, results[i], winner)
			}
		}
		if winner.State != intake.StateConfirmed {
			t.Fatalf("round %d: state %s", r, winner.State)
		}
		stored, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Hour), keepFor, nil)
		if err != nil || !reflect.DeepEqual(stored, winner) {
			t.Fatalf("round %d: stored introduction %+v (%v) is not what callers got %+v", r, stored, err, winner)
		}
		var ledger intake.LedgerEntry
		snap, err := ts.client.Collection(Ledger).Doc(id).Get(ctx)
		if err != nil || snap.DataTo(&ledger) != nil {
			t.Fatalf("reading ledger: %v", err)
		}
		if !ledger.UpdatedAt.Equal(winner.ConfirmedAt) || ledger.Decision != intake.DecisionHandoffPending {
			t.Fatalf("round %d: ledger updated at %v with %s, confirmation at %v", r, ledger.UpdatedAt, ledger.Decision, winner.ConfirmedAt)
		}
	}
}

// TestConcurrentSpend: 20 drafts spending one challenge at once (different
// ids and rate keys): one kept, the rest POW_SPENT, and
// nothing of the refused ones stored.
func TestConcurrentSpend(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for r := range rounds {
		instances := ts.instancesFor(t, r)
		const n = 20
		errs := make([]error, n)
		ids := make([]string, n)
		testsupport.AtOnce(n, func(i int) {
			ids[i] = fmt.Sprintf("spend-%d-%d", r, i)
			k := draft(ids[i], t0)
			k.Challenge.Key = fmt.Sprintf("shared-challenge-%d", r)
			_, errs[i] = instances[i%len(instances)].KeepDraft(ctx, k)
		})
		kept := ""
		for i, err := range errs {
			switch code := codeOf(t, err); code {
			case "":
				if kept != "" {
					t.Fatalf("round %d: %s and %s both kept", r, kept, ids[i])
				}
				kept = ids[i]
			case intake.CodePowSpent:
			default:
				t.Fatalf("round %d: %s = %v, want kept or POW_SPENT", r, ids[i], err)
			}
		}
		if kept == "" {
			t.Fatalf("round %d: nothing kept", r)
		}
		for _, id := range ids {
			want := id == kept
			for _, coll := range []string{Introductions, Transcripts, Ledger} {
				if got := ts.exists(t, coll, id); got != want {
					t.Fatalf("round %d: %s/%s stored = %v, want %v", r, coll, id, got, want)
				}
			}
			if got := ts.exists(t, RateCounters, "ip:ip-"+id); got != want {
				t.Fatalf("round %d: counter of %s stored = %v, want %v", r, id, got, want)
			}
		}
	}
	if n := ts.count(t, SpentChallenges); n != rounds {
		t.Fatalf("%d spent challenges, want %d", n, rounds)
	}
}

// TestConcurrentRateLimit: 30 drafts from one source at once against a limit
// of 10 an hour: exactly 10 kept, 20 RATE_LIMITED with a RetryAfter, and an
// independent source is still allowed.
func TestConcurrentRateLimit(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for r := range rounds {
		instances := ts.instancesFor(t, r)
		source := ipKey(fmt.Sprintf("busy-source-%d", r), 10)
		const n = 30
		errs := make([]error, n)
		outs := make([]intake.KeepOutcome, n)
		testsupport.AtOnce(n, func(i int) {
			k := draft(fmt.Sprintf("rate-%d-%d", r, i), t0)
			k.RateKeys = []intake.RateKey{source}
			outs[i], errs[i] = instances[i%len(instances)].KeepDraft(ctx, k)
		})
		kept, limited := 0, 0
		for i, err := range errs {
			switch codeOf(t, err) {
			case "":
				kept++
			case intake.CodeRateLimited:
				limited++
				var e *intake.Error
				errors.As(err, &e)
				d := outs[i].RateDecisions
				if e.RetryAfter <= 0 || len(d) != 1 || d[0].Decision != intake.RateBlock || d[0].Count != 10 || d[0].Limit != 10 {
					t.Fatalf("round %d: refusal %d: RetryAfter %v, decisions %+v", r, i, e.RetryAfter, d)
				}
			default:
				t.Fatalf("round %d: call %d = %v", r, i, err)
			}
		}
		if kept != 10 || limited != 20 {
			t.Fatalf("round %d: %d kept, %d limited; want 10 and 20", r, kept, limited)
		}
		other := draft(fmt.Sprintf("rate-other-%d", r), t0)
		other.RateKeys = []intake.RateKey{ipKey(fmt.Sprintf("quiet-source-%d", r), 10)}
		if _, err := ts.KeepDraft(ctx, other); err != nil {
			t.Fatalf("round %d: an independent source was refused: %v", r, err)
		}
	}
	if n := ts.count(t, Introductions); n != rounds*11 {
		t.Fatalf("%d introductions, want %d", n, rounds*11)
	}
}

// TestConcurrentIdempotency: 20 retries of one request (one Idempotency-Key,
// one challenge, a fresh id each) at once: one introduction stored, every
// other call replays it.
func TestConcurrentIdempotency(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for r := range rounds {
		instances := ts.instancesFor(t, r)
		const n = 20
		errs := make([]error, n)
		outs := make([]intake.KeepOutcome, n)
		ids := make([]string, n)
		testsupport.AtOnce(n, func(i int) {
			ids[i] = fmt.Sprintf("idem-%d-%d", r, i)
			k := withIdempotency(draft(ids[i], t0), fmt.Sprintf("idem-key-%d", r))
			k.Challenge.Key = fmt.Sprintf("idem-challenge-%d", r)
			outs[i], errs[i] = instances[i%len(instances)].KeepDraft(ctx, k)
		})
		kept := ""
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: call %d = %v", r, i, errs[i])
			}
			if outs[i].Replay == nil {
				if kept != "" {
					t.Fatalf("round %d: %s and %s both kept", r, kept, ids[i])
				}
				kept = ids[i]
			}
		}
		if kept == "" {
			t.Fatalf("round %d: nothing kept", r)
		}
		for i := range n {
			rp := outs[i].Replay
			if rp == nil {
				continue
			}
			if rp.Introduction.ID != kept || rp.Record.IntroductionID != kept || string(rp.Record.SealedToken) != "sealed-"+kept ||
				rp.Record.KeyHash != fmt.Sprintf("idem-key-%d", r) {
				t.Fatalf("round %d: call %d replayed %+v, want the draft %s", r, i, rp, kept)
			}
		}
	}
	if n := ts.count(t, Introductions); n != rounds {
		t.Fatalf("%d introductions, want %d", n, rounds)
	}
	if n := ts.count(t, Ledger); n != rounds {
		t.Fatalf("%d ledger entries, want %d", n, rounds)
	}
}
