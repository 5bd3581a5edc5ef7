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

// A honeypot's decoy has no introduction: its state lives in its own
// content-free ledger entry (ledger/{decoy id}, LedgerEntry.Decoy), which
// these methods read and move as Confirm and Withdraw move an introduction,
// with the same reads and writes, so the answers and their cost match.

// decoyState returns the decoy's state as a client would see it at now:
// whether it is there at all (a decoy whose draft expired unconfirmed, or
// that was withdrawn, is gone like a real draft).
func decoyState(e intake.LedgerEntry, now time.Time) (intake.DecoyRecord, bool) {
	if e.Decoy == nil {
		return intake.DecoyRecord{}, false
	}
	d := *e.Decoy
	switch {
	case !d.WithdrawnAt.IsZero():
		return d, false
	case d.ConfirmedAt.IsZero() && !now.Before(d.DraftExpireAt):
		return d, false
	case !now.Before(e.ExpireAt):
		return d, false
	}
	return d, true
}

// decoyView is decoy id as a draft's answers show it: no content; its
// form version, state, expiry and revision count from its entry e; the
// file it was sent (nil for none); and tokenHash as its own when
// tokenMatches, so that the introduction's checks (RevisableBy,
// AttachableBy) refuse a wrong token as a draft's do.
func decoyView(id string, e intake.LedgerEntry, d intake.DecoyRecord, a *intake.Attachment, tokenHash []byte, tokenMatches bool) intake.Introduction {
	in := intake.Introduction{ID: id, State: intake.StateDraft, FormID: e.FormID, FormVersion: e.FormVersion,
		CreatedAt: e.Provenance.Time, ExpireAt: d.DraftExpireAt, Revisions: e.Revisions, Attachment: a}
	if !d.ConfirmedAt.IsZero() {
		in.State, in.ConfirmedAt, in.ExpireAt = intake.StateConfirmed, d.ConfirmedAt, e.ExpireAt
	}
	if tokenMatches {
		in.TokenHash = tokenHash
	}
	return in
}

// decoyAttachment decodes the read of a decoy's attachment: nil when there
// is none or it has expired.
func decoyAttachment(snap *firestore.DocumentSnapshot, now time.Time) (*intake.Attachment, error) {
	if !live(snap, now) {
		return nil, nil
	}
	var d decoyAttachmentDoc
	if err := snap.DataTo(&d); err != nil {
		return nil, err
	}
	return &intake.Attachment{Name: d.Name, Type: d.Type, Size: d.Size, SHA256: d.SHA256}, nil
}

// readDecoy reads ledger/{id} and returns the entry and its snapshot, or
// NOT_FOUND.
//
// It reads the introduction of the same id beside it, as a real draft's
// confirmation does in its one round trip: a decoy has none, but the read
// keeps the decoy's answer as slow as a real one's (threat: a bot telling
// its decoy apart by timing).
func (s *DB) readDecoy(ctx context.Context, ref *firestore.DocumentRef) (intake.LedgerEntry, *firestore.DocumentSnapshot, error) {
	snaps, err := s.client.GetAll(ctx, []*firestore.DocumentRef{s.introductionRef(ref.ID), ref})
	if err != nil {
		return intake.LedgerEntry{}, nil, err
	}
	snap := snaps[1]
	if !snap.Exists() {
		return intake.LedgerEntry{}, nil, intake.ErrNotFound
	}
	var e intake.LedgerEntry
	if err := snap.DataTo(&e); err != nil {
		return intake.LedgerEntry{}, nil, err
	}
	return e, snap, nil
}

// ConfirmDecoy implements intake.Store.
func (s *IntakeStore) ConfirmDecoy(ctx context.Context, id string, tokenMatches bool, now time.Time, keepFor time.Duration) (intake.DecoyRecord, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var result intake.DecoyRecord
	wrote := false
	err := s.updateDecoy(ctx, id, tokenMatches, now, "confirm decoy", false, func(d intake.DecoyRecord) ([]firestore.Update, error) {
		result, wrote = d, false
		if !d.ConfirmedAt.IsZero() {
			return nil, nil // a repeat answers the first confirmation
		}
		result.ConfirmedAt, wrote = now, true
		keptUntil := now.Add(keepFor)
		return []firestore.Update{
			{Path: "decoy.confirmedAt", Value: now},
			{Path: "retention", Value: intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: keptUntil}},
			{Path: ExpireAtField, Value: keptUntil},
			{Path: "updatedAt", Value: now},
		}, nil
	})
	if err == nil && wrote {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore.confirmDecoy", slog.String("ledgerId", id))
	}
	return result, err
}

// WithdrawDecoy implements intake.Store.
func (s *IntakeStore) WithdrawDecoy(ctx context.Context, id string, tokenMatches bool, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	return s.updateDecoy(ctx, id, tokenMatches, now, "withdraw decoy", true, func(d intake.DecoyRecord) ([]firestore.Update, error) {
		if d.ConfirmedAt.IsZero() {
			_, err := intake.StateDraft.Next(intake.MoveWithdraw) // the very refusal a real draft gets
			return nil, err
		}
		return []firestore.Update{
			{Path: "decoy.withdrawnAt", Value: now},
			{Path: "updatedAt", Value: now},
		}, nil
	})
}

// updateDecoy reads the live decoy ledger entry id and writes what move
// returns for it (nothing when move returns no update) — with eraseFile,
// deleting in the same commit the file the decoy was sent, as a
// withdrawal erases a draft's —, unless another write changed the entry
// since the read: then it reads again, at most maxRaces times. A decoy
// that is gone, or a token that does not match, is intake.ErrNotFound, as
// for a real draft.
func (s *DB) updateDecoy(ctx context.Context, id string, tokenMatches bool, now time.Time, what string, eraseFile bool,
	move func(intake.DecoyRecord) ([]firestore.Update, error)) error {
	if !intake.StorableID(id) {
		return intake.ErrNotFound
	}
	ref := s.ledgerRef(id)
	return s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		for range maxRaces {
			e, snap, err := s.readDecoy(ctx, ref)
			if err != nil {
				return err
			}
			d, there := decoyState(e, now)
			if !there || !tokenMatches {
				return intake.ErrNotFound
			}
			updates, err := move(d)
			if err != nil || len(updates) == 0 {
				return err
			}
			//lint:ignore SA1019 WriteBatch is the one atomic, precondition-checked multi-document write that costs a single RPC.
			b := s.client.Batch() //nolint:staticcheck // see above
			b.Update(ref, updates, firestore.LastUpdateTime(snap.UpdateTime))
			if eraseFile {
				b.Delete(s.decoyAttachmentRef(id))
			}
			_, err = b.Commit(ctx)
			if status.Code(err) == codes.FailedPrecondition {
				continue // another write won: read its outcome
			}
			return err
		}
		return intake.Unavailable(fmt.Errorf("%s: lost %d races in a row", what, maxRaces), RetryAfter)
	})
}

// replayDecoy reads, inside tx, the decoy an idempotency record names. It
// returns nil (and no error) when the decoy is gone, as replay does for a
// draft that is gone.
func (s *DB) replayDecoy(tx *firestore.Transaction, d idempotencyDoc, keyHash string, now time.Time) (*intake.Replay, error) {
	e, dec, a, err := s.readDecoyIn(tx, d.IntroductionID, now)
	if intake.CodeOf(err) == intake.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &intake.Replay{Record: d.record(keyHash), Introduction: decoyView(d.IntroductionID, e, dec, a, nil, false)}, nil
}

// ReviseDecoy revises the honeypot decoy whose ledger entry is id as
// ReviseDraft revises a draft, in one transaction: it builds the decoy's
// view as an introduction (no content; state, expiry and revision count
// from the entry), checks (*intake.Introduction).RevisableBy on it — the
// token counts as the holder's only when tokenMatches —, asks revise for
// the new content (which it does not write: a decoy keeps none) and counts
// the revision in the entry, a refused one (Revision.Refusal) too. It
// returns the view with the revision applied. Errors: those of
// ReviseDraft.
func (s *IntakeStore) ReviseDecoy(ctx context.Context, id string, tokenHash []byte, tokenMatches bool, now time.Time,
	revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.ledgerRef(id)
	var result *intake.Introduction
	var refusal *intake.Error
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		refusal = nil // the transaction may run again
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			e, d, a, err := s.readDecoyIn(tx, id, now)
			if err != nil {
				return err
			}
			in := decoyView(id, e, d, a, tokenHash, tokenMatches)
			if err := in.RevisableBy(tokenHash, now); err != nil {
				return err
			}
			r, err := revise(in)
			if err != nil {
				return err
			}
			if refusal = r.Refusal; refusal != nil {
				err = in.RefuseRevisionBy(tokenHash, now)
			} else {
				err = in.ReviseBy(tokenHash, now, r)
			}
			if err != nil {
				return err
			}
			result = &in
			return tx.Update(ref, []firestore.Update{{Path: "revisions", Value: in.Revisions}, {Path: "updatedAt", Value: now}})
		})
	})
	if err == nil && refusal != nil {
		err = refusal
	}
	if err != nil {
		return nil, err
	}
	return result, nil
}

// readDecoyIn reads, inside tx, the live decoy id and the file its answers
// show (nil for none), as a draft's moves read the draft. Errors:
// NOT_FOUND for a decoy that is gone or never was.
func (s *DB) readDecoyIn(tx *firestore.Transaction, id string, now time.Time) (intake.LedgerEntry, intake.DecoyRecord, *intake.Attachment, error) {
	snaps, err := tx.GetAll([]*firestore.DocumentRef{s.ledgerRef(id), s.decoyAttachmentRef(id)})
	if err != nil {
		return intake.LedgerEntry{}, intake.DecoyRecord{}, nil, err
	}
	if !snaps[0].Exists() {
		return intake.LedgerEntry{}, intake.DecoyRecord{}, nil, intake.ErrNotFound
	}
	var e intake.LedgerEntry
	if err := snaps[0].DataTo(&e); err != nil {
		return intake.LedgerEntry{}, intake.DecoyRecord{}, nil, err
	}
	d, there := decoyState(e, now)
	if !there {
		return intake.LedgerEntry{}, intake.DecoyRecord{}, nil, intake.ErrNotFound
	}
	a, err := decoyAttachment(snaps[1], now)
	return e, d, a, err
}

// AttachableDecoy implements intake.Attacher: one read, as AttachableDraft.
func (s *IntakeStore) AttachableDecoy(ctx context.Context, id string, tokenHash []byte, tokenMatches bool, now time.Time) (*intake.Introduction, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	var in intake.Introduction
	err := s.op(ctx, nil, func(ctx context.Context) error {
		e, _, err := s.readDecoy(ctx, s.ledgerRef(id))
		if err != nil {
			return err
		}
		d, there := decoyState(e, now)
		if !there {
			return intake.ErrNotFound
		}
		in = decoyView(id, e, d, nil, tokenHash, tokenMatches)
		return in.AttachableBy(tokenHash, now)
	})
	if err != nil {
		return nil, err
	}
	return &in, nil
}

// SetDecoyAttachment implements intake.Attacher: one transaction that
// reads the decoy and its file and writes the file (until the decoy's
// draft would have expired) and its type and size into the decoy's ledger
// entry, as SetAttachment writes a draft and its entry.
func (s *IntakeStore) SetDecoyAttachment(ctx context.Context, id string, tokenHash []byte, tokenMatches bool, now time.Time, a *intake.Attachment) (*intake.Attachment, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	if err := intake.CheckStorableDecoyAttachment(a); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	ledgerRef, fileRef := s.ledgerRef(id), s.decoyAttachmentRef(id)
	var previous *intake.Attachment
	err := s.op(ctx, []string{lockKey(ledgerRef), lockKey(fileRef)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			e, d, had, err := s.readDecoyIn(tx, id, now)
			if err != nil {
				return err
			}
			in := decoyView(id, e, d, had, tokenHash, tokenMatches)
			if err := in.AttachableBy(tokenHash, now); err != nil {
				return err
			}
			previous = had
			if a == nil {
				return errors.Join(tx.Delete(fileRef),
					tx.Update(ledgerRef, []firestore.Update{{Path: "attachment", Value: firestore.Delete}, {Path: "updatedAt", Value: now}}))
			}
			return errors.Join(
				tx.Set(fileRef, decoyAttachmentDoc{Name: a.Name, Type: a.Type, Size: a.Size, SHA256: a.SHA256, ExpireAt: d.DraftExpireAt}),
				tx.Update(ledgerRef, []firestore.Update{{Path: "attachment", Value: a.Evidence().Tombstone()}, {Path: "updatedAt", Value: now}}),
			)
		})
	})
	if err != nil {
		return nil, err
	}
	return previous, nil
}
