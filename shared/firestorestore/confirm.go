package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// maxRaces bounds how often Confirm and Withdraw re-read after losing a
// race to a concurrent change of the same introduction on another instance.
const maxRaces = 5

// Reasons written to the ledger entry.
const (
	ReasonConfirmed = "confirmed by the visitor; handoff pending"
	ReasonWithdrawn = "withdrawn by the visitor; content erased"
)

// Confirm applies the confirm move with one conditional write: it reads the
// introduction, applies (*intake.Introduction).ConfirmBy and, if that changed
// it, commits the introduction, its transcript's expiry and its ledger entry
// (HANDOFF_PENDING, consents, retention class "introduction") atomically,
// on condition that the introduction is unchanged since the read. A lost
// race is re-read and decided again, so exactly one confirmation wins and
// every holder of the token gets the same introduction. Times are stored,
// and returned, in UTC to the microsecond. Errors: intake.ErrNotFound for an
// unknown id, an expired draft or a wrong token alike; UNAVAILABLE; INTERNAL
// when the transcript or ledger entry the introduction needs is missing.
func (s *Store) Confirm(ctx context.Context, id string, tokenHash []byte, now time.Time, keepFor time.Duration) (*intake.Introduction, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	if keepFor <= 0 {
		return nil, intake.Internal(errors.New("confirm: keepFor must be positive"))
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.introductionRef(id)
	var result *intake.Introduction
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.conditionally(ctx, "confirm", ref, now, func(in *intake.Introduction, snap *firestore.DocumentSnapshot) (*firestore.WriteBatch, error) {
			changed, err := in.ConfirmBy(tokenHash, now, keepFor)
			if err != nil || !changed {
				result = in
				return nil, err
			}
			if err := intake.CheckStorableIntroduction(*in); err != nil {
				return nil, err
			}
			result = in
			//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
			b := s.client.Batch() //nolint:staticcheck // see above
			b.Update(ref, []firestore.Update{
				{Path: "state", Value: in.State},
				{Path: "confirmedAt", Value: in.ConfirmedAt},
				{Path: "consents", Value: in.Consents},
				{Path: ExpireAtField, Value: in.ExpireAt},
			}, firestore.LastUpdateTime(snap.UpdateTime))
			if in.HasConversation {
				b.Update(s.transcriptRef(id), []firestore.Update{{Path: ExpireAtField, Value: in.ExpireAt}})
			}
			b.Update(s.ledgerRef(id), []firestore.Update{
				{Path: "decision", Value: intake.DecisionHandoffPending},
				{Path: "reason", Value: ReasonConfirmed},
				{Path: "consents", Value: in.Consents},
				{Path: "retention", Value: intake.RetentionRecord{Class: intake.RetentionIntroduction, DeleteAfter: in.ExpireAt}},
				{Path: ExpireAtField, Value: in.ExpireAt},
				{Path: "updatedAt", Value: now},
			})
			return b, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// Withdraw erases the introduction and its transcript and marks the ledger
// entry WITHDRAWN (reason and time only, no content) in one write, on
// condition that the introduction is unchanged since it was read. Errors:
// intake.ErrNotFound (unknown id, gone, wrong token); STATE_CONFLICT for a
// draft, which is never sent and simply expires; UNAVAILABLE; INTERNAL when
// the ledger entry is missing.
func (s *Store) Withdraw(ctx context.Context, id string, tokenHash []byte, now time.Time) error {
	if !intake.StorableID(id) {
		return intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.introductionRef(id)
	return s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.conditionally(ctx, "withdraw", ref, now, func(in *intake.Introduction, snap *firestore.DocumentSnapshot) (*firestore.WriteBatch, error) {
			if err := in.WithdrawBy(tokenHash, now); err != nil {
				return nil, err
			}
			//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
			b := s.client.Batch() //nolint:staticcheck // see above
			b.Delete(ref, firestore.LastUpdateTime(snap.UpdateTime))
			b.Delete(s.transcriptRef(id))
			b.Update(s.ledgerRef(id), []firestore.Update{
				{Path: "decision", Value: intake.DecisionWithdrawn},
				{Path: "reason", Value: ReasonWithdrawn},
				{Path: "updatedAt", Value: now},
			})
			return b, nil
		})
	})
}

// conditionally reads the introduction at ref, lets decide build the write
// (nil: nothing to write) and commits it. When the commit fails because the
// introduction changed (precondition) or vanished since the read, it reads
// again and decides again; when it fails although the introduction did not
// change, a record beside it is missing and that is INTERNAL.
func (s *Store) conditionally(ctx context.Context, move string, ref *firestore.DocumentRef, now time.Time,
	decide func(in *intake.Introduction, snap *firestore.DocumentSnapshot) (*firestore.WriteBatch, error)) error {
	var lastRead time.Time
	for race := 0; race < maxRaces; race++ {
		snap, err := ref.Get(ctx)
		if status.Code(err) == codes.NotFound || err == nil && !live(snap, now) {
			return intake.ErrNotFound
		}
		if err != nil {
			return err
		}
		if race > 0 && snap.UpdateTime.Equal(lastRead) {
			return intake.Internal(fmt.Errorf("%s: write refused while the introduction is unchanged (transcript or ledger entry missing?)", move))
		}
		lastRead = snap.UpdateTime
		var d introductionDoc
		if err := snap.DataTo(&d); err != nil {
			return err
		}
		in := d.introduction(ref.ID)
		b, err := decide(&in, snap)
		if err != nil || b == nil {
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
			s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore."+move, slog.String("introductionId", ref.ID), slog.String("state", string(in.State)))
			return nil
		case codes.FailedPrecondition, codes.NotFound:
			s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore."+move+" lost a race; reading again", slog.String("introductionId", ref.ID), slog.Int("race", race))
			continue
		default:
			return err
		}
	}
	return intake.Unavailable(fmt.Errorf("%s: lost %d races in a row", move, maxRaces), RetryAfter)
}

// RecordAttempt creates ledger/{e.ID}, the entry of an attempt that kept
// nothing. Errors: INTERNAL when e fails intake.CheckStorableLedgerEntry or
// the id is taken; UNAVAILABLE.
func (s *Store) RecordAttempt(ctx context.Context, e intake.LedgerEntry) error {
	if err := intake.CheckStorableLedgerEntry(e); err != nil {
		return err
	}
	ref := s.ledgerRef(e.ID)
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		_, err := ref.Create(ctx, e)
		return err
	})
	s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.RecordAttempt", slog.String("ledgerId", e.ID),
		slog.String("decision", string(e.Decision)), slog.String("code", string(intake.CodeOf(err))))
	return err
}
