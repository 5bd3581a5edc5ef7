package intakeflow_test

import (
	"bytes"
	"context"
	"net/netip"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/testsupport"
)

// solvedSubmission is a valid submission with a fresh solved challenge.
func (f *fixture) solvedSubmission(t *testing.T) intake.Submission {
	t.Helper()
	c, err := f.pow.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := testsupport.Solve(t, c)
	return submission(payload)
}

// TestTheDatabaseAloneYieldsNoToken keeps a draft under one Idempotency-Key,
// then plays the stored idempotency record back to a request that holds
// everything the database and the service hold — but another key: the
// sealed token must not open, and must not be in the record in the clear.
func TestTheDatabaseAloneYieldsNoToken(t *testing.T) {
	f := newFixture(t)
	var kept intake.DraftKeeping
	f.store.keep = func(k intake.DraftKeeping) (intake.KeepOutcome, error) {
		kept = k
		return intake.KeepOutcome{}, nil
	}
	sub := f.solvedSubmission(t)
	client := netip.MustParseAddr("192.0.2.40")
	d, err := f.svc.Draft(context.Background(), intakeflow.DraftRequest{Submission: sub, Client: client, IdempotencyKey: "the-visitors-own-key-1"})
	if err != nil {
		t.Fatal(err)
	}
	rec := kept.Idempotency
	if rec == nil || len(rec.SealedToken) == 0 {
		t.Fatalf("no sealed token kept: %+v", rec)
	}
	if bytes.Contains(rec.SealedToken, []byte(d.Token)) || bytes.Contains(rec.SealedToken, intake.HashToken(d.Token)) {
		t.Fatal("the record holds the token in the clear")
	}

	// The right key replays the draft with its token.
	f.store.keep = func(intake.DraftKeeping) (intake.KeepOutcome, error) {
		return intake.KeepOutcome{Replay: &intake.Replay{Record: *rec, Introduction: kept.Introduction}}, nil
	}
	again, err := f.svc.Draft(context.Background(), intakeflow.DraftRequest{Submission: sub, Client: client, IdempotencyKey: "the-visitors-own-key-1"})
	if err != nil || again.Token != d.Token || !again.Replayed {
		t.Fatalf("replay with the right key: %+v, %v", again, err)
	}
	// Any other key, given the same record, yields nothing usable.
	for _, other := range []string{"someone-elses-key-2", "the-visitors-own-key-2"} {
		got, err := f.svc.Draft(context.Background(), intakeflow.DraftRequest{Submission: sub, Client: client, IdempotencyKey: other})
		if err == nil || got != nil {
			t.Fatalf("the record opened under key %q: %+v", other, got)
		}
	}
}
