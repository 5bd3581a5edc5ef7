package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// maxRaces bounds how often a move re-reads after losing a race.
const maxRaces = 5

// Reasons written to the ledger entry.
const (
	ReasonConfirmed = "confirmed by the visitor; not yet handed on"
	ReasonWithdrawn = "withdrawn by the visitor; content erased"
)

// Confirm applies ConfirmBy and commits the introduction, its transcript's
// expiry, its ledger entry and its outbox envelopes in one write conditional
// on the introduction being unchanged, so exactly one confirmation wins.
// Times are UTC to the microsecond. Errors: intake.ErrNotFound (unknown,
// expired or wrong token alike); UNAVAILABLE; INTERNAL when a record it
// needs is missing or an envelope is not storable.
func (s *IntakeStore) Confirm(ctx context.Context, c intake.Claim, now time.Time, keepFor time.Duration, outbox []intake.Envelope) (*intake.Introduction, error) {
	if !intake.StorableID(c.ID) {
		return nil, intake.ErrNotFound
	}
	if keepFor <= 0 {
		return nil, intake.Internal(errors.New("confirm: keepFor must be positive"))
	}
	now = now.UTC().Truncate(time.Microsecond)
	id, ref := c.ID, s.introductionRef(c.ID)
	var result *intake.Introduction
	err := s.op(ctx, s.moveLocks(id), func(ctx context.Context) error {
		return s.conditionally(ctx, "confirm", c, now, func(sub *subject, b *firestore.WriteBatch) (bool, error) {
			in := &sub.in
			result = in
			changed, err := in.ConfirmBy(c.TokenHash, now, keepFor)
			if err != nil || !changed {
				return false, err
			}
			if sub.decoy != nil {
				b.Update(sub.guard.Ref, []firestore.Update{
					{Path: "decoy.confirmedAt", Value: now},
					{Path: "retention", Value: intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: in.ExpireAt}},
					{Path: ExpireAtField, Value: in.ExpireAt},
					{Path: "updatedAt", Value: now},
				}, firestore.LastUpdateTime(sub.guard.UpdateTime))
				return true, nil
			}
			if err := intake.CheckStorableIntroduction(*in); err != nil {
				return false, err
			}
			envelopes, err := boundOutbox(outbox, id, intake.EventConfirmed, now, in.ExpireAt)
			if err != nil {
				return false, err
			}
			b.Update(ref, []firestore.Update{
				{Path: "state", Value: in.State},
				{Path: "confirmedAt", Value: in.ConfirmedAt},
				{Path: "consents", Value: in.Consents},
				{Path: ExpireAtField, Value: in.ExpireAt},
				{Path: "folder", Value: in.Folder()},
			}, firestore.LastUpdateTime(sub.guard.UpdateTime))
			if in.HasConversation {
				b.Update(s.transcriptRef(id), []firestore.Update{{Path: ExpireAtField, Value: in.ExpireAt}})
			}
			handoffs := make([]intake.HandoffRecord, 0, len(envelopes))
			for _, e := range envelopes {
				b.Create(s.envelopeRef(e.ID), toEnvelopeDoc(e))
				handoffs = append(handoffs, e.Record())
			}
			decision, reason := intake.DecisionHandoffPending, ReasonConfirmed
			if s.decide != nil && sub.ledger.Exists() {
				var entry intake.LedgerEntry
				if err := sub.ledger.DataTo(&entry); err != nil {
					return false, err
				}
				entry.ID, entry.Consents, entry.Handoffs = id, in.Consents, handoffs
				entry.Decision, entry.Reason = decision, reason
				decision, reason = s.decide(entry)
			}
			b.Update(s.ledgerRef(id), []firestore.Update{
				{Path: "decision", Value: decision},
				{Path: "reason", Value: reason},
				{Path: "handoffs", Value: handoffs},
				{Path: "confirmedAt", Value: now},
				{Path: "consents", Value: in.Consents},
				{Path: "retention", Value: intake.RetentionRecord{Class: intake.RetentionIntroduction, DeleteAfter: in.ExpireAt}},
				{Path: ExpireAtField, Value: in.ExpireAt},
				{Path: "updatedAt", Value: now},
			})
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// Withdraw erases the introduction and its transcript and marks the ledger
// entry WITHDRAWN in one conditional write, with a notice envelope for each
// destination the confirmation had one for. Errors: intake.ErrNotFound;
// STATE_CONFLICT for a draft; UNAVAILABLE; INTERNAL when the ledger entry
// is missing or a notice is not storable.
func (s *IntakeStore) Withdraw(ctx context.Context, c intake.Claim, now time.Time, notices []intake.Envelope) error {
	if !intake.StorableID(c.ID) {
		return intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	id, ref := c.ID, s.introductionRef(c.ID)
	return s.op(ctx, s.moveLocks(id), func(ctx context.Context) error {
		return s.conditionally(ctx, "withdraw", c, now, func(sub *subject, b *firestore.WriteBatch) (bool, error) {
			in := &sub.in
			if err := in.WithdrawBy(c.TokenHash, now); err != nil {
				return false, err
			}
			if sub.decoy != nil {
				b.Update(sub.guard.Ref, []firestore.Update{{Path: "decoy.withdrawnAt", Value: now}, {Path: "updatedAt", Value: now}},
					firestore.LastUpdateTime(sub.guard.UpdateTime))
				b.Delete(s.decoyAttachmentRef(id))
				return true, nil
			}
			if !sub.ledger.Exists() {
				return false, intake.Internal(fmt.Errorf("withdraw: ledger entry of %s missing", id))
			}
			var entry intake.LedgerEntry
			if err := sub.ledger.DataTo(&entry); err != nil {
				return false, err
			}
			record := intake.WithdrawalRecord{At: now, AlreadyDeliveredTo: handedOn(entry.Handoffs)}
			var sent []intake.Envelope
			for _, n := range notices {
				if noticeDue(entry.Handoffs, n.Destination) {
					n.ReceivedAt = in.ConfirmedAt
					sent = append(sent, n)
				}
			}
			envelopes, err := boundOutbox(sent, id, intake.EventWithdrawn, now, entry.ExpireAt)
			if err != nil {
				return false, err
			}
			b.Delete(ref, firestore.LastUpdateTime(sub.guard.UpdateTime))
			b.Delete(s.transcriptRef(id))
			updates := []firestore.Update{
				{Path: "decision", Value: intake.DecisionWithdrawn},
				{Path: "reason", Value: withdrawnReason(record)},
				{Path: "withdrawal", Value: record},
				{Path: "updatedAt", Value: now},
			}
			if entry.Attachment != nil {
				updates = append(updates, firestore.Update{Path: "attachment", Value: entry.Attachment.Tombstone()})
			}
			if len(envelopes) > 0 {
				records := make([]any, 0, len(envelopes))
				for _, e := range envelopes {
					b.Create(s.envelopeRef(e.ID), toEnvelopeDoc(e))
					records = append(records, e.Record())
				}
				// ArrayUnion keeps statuses written since the read.
				updates = append(updates, firestore.Update{Path: "handoffs", Value: firestore.ArrayUnion(records...)})
			}
			b.Update(s.ledgerRef(id), updates)
			return true, nil
		})
	})
}

// handedOn lists the destinations other than the inbox whose confirmation
// envelope was ACCEPTED or DELIVERED.
func handedOn(handoffs []intake.HandoffRecord) []intake.Destination {
	out := []intake.Destination{}
	for _, h := range handoffs {
		if h.Event == intake.EventConfirmed && h.Destination != intake.DestinationInbox &&
			(h.Status == intake.DeliveryAccepted || h.Status == intake.DeliveryDelivered) && !slices.Contains(out, h.Destination) {
			out = append(out, h.Destination)
		}
	}
	return out
}

// noticeDue reports whether d is told of a withdrawal or an erasure: when
// the confirmation had an envelope there, handed on or not.
func noticeDue(handoffs []intake.HandoffRecord, d intake.Destination) bool {
	for _, h := range handoffs {
		if h.Event == intake.EventConfirmed && h.Destination == d {
			return true
		}
	}
	return false
}

func withdrawnReason(r intake.WithdrawalRecord) string {
	if len(r.AlreadyDeliveredTo) == 0 {
		return ReasonWithdrawn
	}
	names := make([]string, len(r.AlreadyDeliveredTo))
	for i, d := range r.AlreadyDeliveredTo {
		names[i] = string(d)
	}
	return ReasonWithdrawn + "; already handed to " + strings.Join(names, ", ") + " before the withdrawal"
}

// conditionally reads c's subject, lets decide fill a batch (write false:
// nothing to write) and commits it, re-reading when the subject changed;
// a refusal while it is unchanged is INTERNAL.
func (s *DB) conditionally(ctx context.Context, move string, c intake.Claim, now time.Time,
	decide func(sub *subject, b *firestore.WriteBatch) (write bool, err error)) error {
	var lastRead time.Time
	get := func(refs []*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
		return s.client.GetAll(ctx, refs)
	}
	for race := 0; race < maxRaces; race++ {
		sub, err := s.readSubject(get, c, now)
		if err != nil {
			return err
		}
		if race > 0 && sub.guard.UpdateTime.Equal(lastRead) {
			return intake.Internal(fmt.Errorf("%s: write refused while the introduction is unchanged (transcript or ledger entry missing?)", move))
		}
		lastRead = sub.guard.UpdateTime
		//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
		b := s.client.Batch() //nolint:staticcheck // see above
		if write, err := decide(&sub, b); err != nil || !write {
			return err
		}
		if s.beforeCommit != nil {
			s.beforeCommit(move)
		}
		_, err = b.Commit(ctx)
		switch status.Code(err) {
		case codes.OK:
			if move == "confirm" {
				s.transitions.Add(1)
			}
			s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore."+move, slog.String("introductionId", c.ID), slog.String("state", string(sub.in.State)))
			return nil
		case codes.FailedPrecondition, codes.NotFound:
			s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore."+move+" lost a race; reading again", slog.String("introductionId", c.ID), slog.Int("race", race))
			continue
		default:
			return err
		}
	}
	return intake.Unavailable(fmt.Errorf("%s: lost %d races in a row", move, maxRaces), RetryAfter)
}

// moveLocks are the locks of a move on id.
func (s *DB) moveLocks(id string) []string {
	return []string{lockKey(s.introductionRef(id)), lockKey(s.ledgerRef(id))}
}

// RecordAttempt creates ledger/{e.ID} for an attempt that kept nothing; an
// entry already there is a retry and no error. Errors: INTERNAL when e is
// not storable; UNAVAILABLE.
func (s *IntakeStore) RecordAttempt(ctx context.Context, e intake.LedgerEntry) error {
	if err := intake.CheckStorableLedgerEntry(e); err != nil {
		return err
	}
	ref := s.ledgerRef(e.ID)
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		_, err := ref.Create(ctx, e)
		if status.Code(err) == codes.AlreadyExists {
			return nil
		}
		return err
	})
	s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.RecordAttempt", slog.String("ledgerId", e.ID),
		slog.String("decision", string(e.Decision)), slog.String("code", string(intake.CodeOf(err))))
	return err
}
