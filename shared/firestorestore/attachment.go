package firestorestore

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

var _ intake.Attacher = (*IntakeStore)(nil)

// AttachableDraft reads the draft id for the holder of tokenHash (see
// intake.Attacher). Errors: NOT_FOUND, STATE_CONFLICT, UNAVAILABLE.
func (s *IntakeStore) AttachableDraft(ctx context.Context, id string, tokenHash []byte, now time.Time) (*intake.Introduction, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	var in intake.Introduction
	err := s.op(ctx, nil, func(ctx context.Context) error {
		snap, err := s.introductionRef(id).Get(ctx)
		if in, err = liveIntroduction(snap, err, id, now); err != nil {
			return err
		}
		return in.AttachableBy(tokenHash, now)
	})
	if err != nil {
		return nil, err
	}
	return &in, nil
}

// SetAttachment sets or removes the draft's attachment with its ledger
// evidence in one transaction (see intake.Attacher).
func (s *IntakeStore) SetAttachment(ctx context.Context, id string, tokenHash []byte, now time.Time, a *intake.Attachment,
	purposeOf func(formID, formVersion string) string) (*intake.Attachment, error) {
	if !intake.StorableID(id) {
		return nil, intake.ErrNotFound
	}
	if err := intake.CheckStorableAttachment(id, a); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref, ledgerRef := s.introductionRef(id), s.ledgerRef(id)
	var previous *intake.Attachment
	err := s.op(ctx, []string{lockKey(ref), lockKey(ledgerRef)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			snaps, err := tx.GetAll([]*firestore.DocumentRef{ref, ledgerRef})
			if err != nil {
				return err
			}
			in, err := liveIntroduction(snaps[0], nil, id, now)
			if err != nil {
				return err
			}
			if err := in.AttachableBy(tokenHash, now); err != nil {
				return err
			}
			if !snaps[1].Exists() {
				return intake.Internal(errors.New("SetAttachment: the draft has no ledger entry"))
			}
			var e intake.LedgerEntry
			if err := snaps[1].DataTo(&e); err != nil {
				return err
			}
			e.RecordAttachment(purposeOf(in.FormID, in.FormVersion), a)
			previous = in.Attachment
			var kept, evidence any = firestore.Delete, firestore.Delete
			if a != nil {
				kept, evidence = a, e.Attachment
			}
			return errors.Join(
				tx.Update(ref, []firestore.Update{{Path: "attachment", Value: kept}}),
				tx.Update(ledgerRef, []firestore.Update{{Path: "attachment", Value: evidence},
					{Path: "redaction.stored", Value: e.Redaction.Stored}, {Path: "purposes", Value: e.Purposes}, {Path: "updatedAt", Value: now}}),
			)
		})
	})
	s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.SetAttachment", slog.String("introductionId", id),
		slog.String("code", string(intake.CodeOf(err))))
	if err != nil {
		return nil, err
	}
	return previous, nil
}

// AttachmentObjects returns the object of each live introduction of ids
// ("" for one without an attachment); an id whose introduction is gone or
// expired is left out (see attachment.Kept). Errors: UNAVAILABLE.
func (s *SweepStore) AttachmentObjects(ctx context.Context, ids []string, now time.Time) (map[string]string, error) {
	out := map[string]string{}
	var refs []*firestore.DocumentRef
	for _, id := range ids {
		if intake.StorableID(id) {
			refs = append(refs, s.introductionRef(id))
		}
	}
	if len(refs) == 0 {
		return out, nil
	}
	err := s.op(ctx, nil, func(ctx context.Context) error {
		snaps, err := s.client.GetAll(ctx, refs)
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			if !snap.Exists() || !live(snap, now) {
				continue
			}
			var d introductionDoc
			if err := snap.DataTo(&d); err != nil {
				return err
			}
			out[snap.Ref.ID] = ""
			if d.Attachment != nil {
				out[snap.Ref.ID] = d.Attachment.Object
			}
		}
		return nil
	})
	return out, err
}
