package firestorestore

import (
	"context"
	"errors"
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
	in, err := ts.Confirm(ctx, intake.Claim{ID: "ob", TokenHash: intake.HashToken(token("ob"))}, at, keepFor, fullOutbox("ob", at))
	if err != nil {
		t.Fatal(err)
	}
	envs, err := ts.submissionEnvelopes(ctx, "ob", at)
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
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "ob", TokenHash: intake.HashToken(token("ob"))}, at.Add(time.Minute), keepFor, fullOutbox("ob", at.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if n := ts.count(t, Envelopes); n != 3 || !reflect.DeepEqual(before, ts.dump(t)) {
		t.Fatalf("a repeat wrote: %d envelopes", n)
	}

	if _, err := ts.KeepDraft(ctx, draft("ob2", t0)); err != nil {
		t.Fatal(err)
	}
	dump := ts.dump(t)
	_, err = ts.Confirm(ctx, intake.Claim{ID: "ob2", TokenHash: intake.HashToken(token("ob2"))}, at, keepFor, fullOutbox("ob", at))
	if codeOf(t, err) != intake.CodeInternal {
		t.Fatalf("confirming with another submission's outbox: %v, want INTERNAL", err)
	}
	if after := ts.dump(t); !reflect.DeepEqual(dump, after) || ts.count(t, Envelopes) != 3 {
		t.Fatal("a refused outbox wrote something")
	}
}

// TestAProviderEventMovesOnlyAnEnvelopeOfItsDestination: an email
// provider's event naming the inbox or webhook envelope is as one naming
// no envelope: NOT_FOUND, nothing moved (its apply never runs), its token
// recorded; naming the email envelope, it applies.
func TestAProviderEventMovesOnlyAnEnvelopeOfItsDestination(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("pe", t0)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "pe", TokenHash: intake.HashToken(token("pe"))}, at, keepFor, fullOutbox("pe", at)); err != nil {
		t.Fatal(err)
	}
	fail := func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		e.Status, e.LastError = intake.DeliveryFailed, "provider event: mailgun failed-permanent"
		entry.SetHandoff(e.Record())
		return nil
	}
	before := ts.dump(t)
	for _, d := range []intake.Destination{intake.DestinationInbox, intake.DestinationWebhook} {
		ev := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-" + string(d),
			EnvelopeID: intake.EnvelopeID("pe", d, intake.EventConfirmed), Kind: intake.ProviderFailedPermanent}
		if _, err := ts.ApplyProviderEvent(ctx, ev, at, at.Add(time.Hour), fail); !errors.Is(err, intake.ErrNotFound) {
			t.Errorf("an email event naming the %s envelope: %v, want NOT_FOUND", d, err)
		}
		if _, err := ts.ApplyProviderEvent(ctx, ev, at, at.Add(time.Hour), fail); intake.CodeOf(err) != intake.CodeEventReplayed {
			t.Errorf("its token again: %v, want EVENT_REPLAYED (the token is recorded)", err)
		}
	}
	if after := ts.dump(t); !reflect.DeepEqual(before, after) {
		t.Fatal("an email provider's event moved an inbox or webhook envelope, or its ledger entry")
	}
	mail := intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-email",
		EnvelopeID: intake.EnvelopeID("pe", intake.DestinationEmail, intake.EventConfirmed), Kind: intake.ProviderFailedPermanent}
	if e, err := ts.ApplyProviderEvent(ctx, mail, at, at.Add(time.Hour), fail); err != nil || e.Status != intake.DeliveryFailed {
		t.Fatalf("the email envelope: %+v, %v; want FAILED", e, err)
	}
}

// TestAWithdrawalNamesAnEmailAcceptedBeforeIt: the withdrawal's record of
// where the content had gone names a destination whose envelope was
// ACCEPTED (the mail server took it; no receipt yet) as well as DELIVERED
// ones, and not one still PENDING or the inbox.
func TestAWithdrawalNamesAnEmailAcceptedBeforeIt(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("wa", t0)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "wa", TokenHash: intake.HashToken(token("wa"))}, at, keepFor, fullOutbox("wa", at)); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.UpdateEnvelope(ctx, intake.EnvelopeID("wa", intake.DestinationEmail, intake.EventConfirmed), at, func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		e.Status = intake.DeliveryAccepted
		entry.SetHandoff(e.Record())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "wa", TokenHash: intake.HashToken(token("wa"))}, at.Add(time.Second), nil); err != nil {
		t.Fatal(err)
	}
	snap, err := ts.client.Collection(Ledger).Doc("wa").Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var l intake.LedgerEntry
	if err := snap.DataTo(&l); err != nil {
		t.Fatal(err)
	}
	if l.Withdrawal == nil || !reflect.DeepEqual(l.Withdrawal.AlreadyDeliveredTo, []intake.Destination{intake.DestinationEmail}) {
		t.Fatalf("withdrawal record %+v, want the content already handed to email only", l.Withdrawal)
	}
}

// TestLeaseEnvelopeClaimsOnceUntilTheLeaseEnds: a due envelope is leased
// once; while its lease runs no other claim succeeds (and nothing is
// written); once it has run out, the envelope can be claimed again. An
// envelope that is not due (DELIVERED, or RETRY_PENDING before its time)
// is never leased.
func TestLeaseEnvelopeClaimsOnceUntilTheLeaseEnds(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("ls", t0)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "ls", TokenHash: intake.HashToken(token("ls"))}, at, keepFor, fullOutbox("ls", at)); err != nil {
		t.Fatal(err)
	}
	mail := intake.EnvelopeID("ls", intake.DestinationEmail, intake.EventConfirmed)
	const lease = time.Minute
	e, ok, err := ts.LeaseEnvelope(ctx, mail, at, lease)
	if err != nil || !ok || !e.LeaseUntil.Equal(at.Add(lease)) {
		t.Fatalf("the first claim: %v, %v, lease until %v", ok, err, e.LeaseUntil)
	}
	before := ts.dump(t)
	for _, when := range []time.Time{at, at.Add(lease / 2), at.Add(lease - time.Microsecond)} {
		if _, ok, err := ts.LeaseEnvelope(ctx, mail, when, lease); ok || err != nil {
			t.Errorf("a claim at %v, during the lease: leased %v, %v; want refused", when.Sub(at), ok, err)
		}
	}
	if !reflect.DeepEqual(before, ts.dump(t)) {
		t.Error("a refused claim wrote")
	}
	if _, ok, err := ts.LeaseEnvelope(ctx, mail, at.Add(lease), lease); !ok || err != nil {
		t.Errorf("a claim once the lease ended: leased %v, %v; want it", ok, err)
	}

	inbox := intake.EnvelopeID("ls", intake.DestinationInbox, intake.EventConfirmed)
	if _, ok, err := ts.LeaseEnvelope(ctx, inbox, at, lease); ok || err != nil {
		t.Errorf("the DELIVERED inbox: leased %v, %v", ok, err)
	}
	hook := intake.EnvelopeID("ls", intake.DestinationWebhook, intake.EventConfirmed)
	if _, err := ts.UpdateEnvelope(ctx, hook, at, func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		e.Status, e.NextAttemptAt = intake.DeliveryRetryPending, at.Add(time.Hour)
		entry.SetHandoff(e.Record())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ts.LeaseEnvelope(ctx, hook, at.Add(time.Hour-time.Second), lease); ok || err != nil {
		t.Errorf("a RETRY_PENDING envelope before its time: leased %v, %v", ok, err)
	}
	if _, ok, err := ts.LeaseEnvelope(ctx, hook, at.Add(time.Hour), lease); !ok || err != nil {
		t.Errorf("a RETRY_PENDING envelope at its time: leased %v, %v", ok, err)
	}
}
