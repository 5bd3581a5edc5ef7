package firestorestore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestConfirmWritesTheOutboxOnce: the envelopes are written with the
// confirmation, bound to it and mirrored in the ledger; a repeat writes
// nothing; a foreign envelope makes the whole confirmation fail unwritten.
func TestConfirmWritesTheOutboxOnce(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("ob", t0)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	in, err := ts.Confirm(ctx, "ob", intake.HashToken(token("ob")), at, keepFor, fullOutbox("ob", at))
	if err != nil {
		t.Fatal(err)
	}
	envs, err := ts.SubmissionEnvelopes(ctx, "ob", at)
	if err != nil || len(envs) != 3 {
		t.Fatalf("envelopes = %d, %v", len(envs), err)
	}
	var ledger intake.LedgerEntry
	snap, err := ts.client.Collection(Ledger).Doc("ob").Get(ctx)
	if err != nil || snap.DataTo(&ledger) != nil {
		t.Fatal(err)
	}
	for i, e := range envs {
		if !e.ExpireAt.Equal(in.ExpireAt) || !e.CreatedAt.Equal(at) || e.SubmissionID != "ob" {
			t.Errorf("envelope %s = %+v, want bound to the introduction and kept as long", e.ID, e)
		}
		if want := fullOutbox("ob", at)[i].Destination; e.Destination != want {
			t.Errorf("envelope %d is for %s, want %s (inbox, email, webhook)", i, e.Destination, want)
		}
		if !reflect.DeepEqual(ledger.Handoffs[i], e.Record()) {
			t.Errorf("ledger mirror %+v, want %+v", ledger.Handoffs[i], e.Record())
		}
	}
	due, err := ts.DueEnvelopes(ctx, at, 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("due = %v, %v (want the email and webhook envelopes, not the DELIVERED inbox one)", due, err)
	}
	before := ts.dump(t)
	if _, err := ts.Confirm(ctx, "ob", intake.HashToken(token("ob")), at.Add(time.Minute), keepFor, fullOutbox("ob", at.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if n := ts.count(t, Envelopes); n != 3 || !reflect.DeepEqual(before, ts.dump(t)) {
		t.Fatalf("a repeat wrote: %d envelopes", n)
	}

	if _, err := ts.KeepDraft(ctx, draft("ob2", t0)); err != nil {
		t.Fatal(err)
	}
	dump := ts.dump(t)
	_, err = ts.Confirm(ctx, "ob2", intake.HashToken(token("ob2")), at, keepFor, fullOutbox("ob", at))
	if codeOf(t, err) != intake.CodeInternal {
		t.Fatalf("confirming with another submission's outbox: %v, want INTERNAL", err)
	}
	if after := ts.dump(t); !reflect.DeepEqual(dump, after) || ts.count(t, Envelopes) != 3 {
		t.Fatal("a refused outbox wrote something")
	}
}
