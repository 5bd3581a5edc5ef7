package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestEscalationOwedInTheCountingTransaction: the work a source owes is
// read from its ip counter in KeepDraft's own transaction. A solution below
// it is refused POW_TOO_EASY with the owed max number, writing nothing (its
// challenge stays unspent), decoys count as kept, and another source owes
// the base.
func TestEscalationOwedInTheCountingTransaction(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	const base = 100
	esc := intake.Escalation{Layer: "ip", Free: 3, Base: base, Max: 100 * base}
	keep := func(id, source string, at time.Duration, maxNumber int64, decoy bool) (intake.KeepOutcome, error) {
		k := draft(id, t0.Add(at))
		k.RateKeys = []intake.RateKey{ipKey(source, 50)}
		k.Escalation = esc
		k.Challenge.MaxNumber = maxNumber
		if decoy {
			k = decoyOf(k)
		}
		return ts.KeepDraft(ctx, k)
	}
	// Drafts 1–5 of one source, the second of them a decoy, each solving
	// exactly what it owes: base, base, base, 2×, 4×.
	for i, owed := range []int64{base, base, base, 2 * base, 4 * base} {
		if _, err := keep(fmt.Sprintf("d%d", i+1), "flooder", time.Duration(i)*time.Minute, owed, i == 1); err != nil {
			t.Fatalf("draft %d at %d: %v", i+1, owed, err)
		}
	}
	// The 6th with a base solution: refused, nothing written.
	before := ts.dump(t)
	ts.rpcs.Reset()
	_, err := keep("d6", "flooder", 6*time.Minute, base, false)
	rpcs := ts.rpcs.Count()
	var e *intake.Error
	if !errors.As(err, &e) || e.Code != intake.CodePowTooEasy || e.RequiredMaxNumber != 8*base {
		t.Fatalf("6th draft at the base = %v, want POW_TOO_EASY requiring %d", err, 8*base)
	}
	if after := ts.dump(t); !reflect.DeepEqual(before, after) {
		t.Fatalf("a POW_TOO_EASY refusal changed the database:\nbefore %v\nafter  %v", before, after)
	}
	if rpcs > 3 { // begin, the one read of every record, rollback
		t.Fatalf("the refusal took %d round trips; the counter read is the transaction's own", rpcs)
	}
	// Just below what is owed is still too easy; the owed cost passes, and
	// the same challenge (not spent by the refusal) is taken.
	if _, err := keep("d6", "flooder", 6*time.Minute, 8*base-1, false); intake.CodeOf(err) != intake.CodePowTooEasy {
		t.Fatalf("6th draft just below the owed cost = %v, want POW_TOO_EASY", err)
	}
	ts.rpcs.Reset()
	if _, err := keep("d6", "flooder", 6*time.Minute, 8*base, false); err != nil {
		t.Fatalf("6th draft at the owed cost: %v", err)
	}
	if n := ts.rpcs.Count(); n > 3 {
		t.Fatalf("an escalated draft took %d round trips, want at most 3 as any draft", n)
	}
	// Another source owes the base.
	if _, err := keep("other", "bystander", 7*time.Minute, base, false); err != nil {
		t.Fatalf("another source at the base: %v", err)
	}
	// Once the window has rolled past the first hits, the owed cost falls.
	if _, err := keep("later", "flooder", time.Hour+3*time.Minute+time.Second, 2*base, false); err != nil {
		t.Fatalf("an hour later, 3 hits left in the window: %v", err)
	}
}

// decoyOf turns k into a honeypot decoy's keeping, as the service does.
func decoyOf(k intake.DraftKeeping) intake.DraftKeeping {
	in := k.Introduction
	k.Decoy, k.Transcript = true, nil
	k.Introduction = intake.Introduction{ID: in.ID, State: in.State, FormID: in.FormID, FormVersion: in.FormVersion,
		TokenHash: in.TokenHash, CreatedAt: in.CreatedAt, ExpireAt: in.ExpireAt}
	k.Ledger.Decision, k.Ledger.Abuse = intake.DecisionRejected, intake.AbuseRecord{State: intake.AbuseHoneypot}
	k.Ledger.Decoy = &intake.DecoyRecord{DraftExpireAt: in.ExpireAt}
	k.Ledger.Consents, k.Ledger.WithdrawalPath, k.Ledger.Redaction.Stored = nil, "", []string{}
	return k
}
