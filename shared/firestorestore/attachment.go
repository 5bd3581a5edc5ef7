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

// AttachableDraft reads c's draft for the holder of its token in one
// round trip (see intake.Attacher). Errors: NOT_FOUND, STATE_CONFLICT,
// UNAVAILABLE.
func (s *IntakeStore) AttachableDraft(ctx context.Context, c intake.Claim, now time.Time) (*intake.Introduction, error) {
	if !intake.StorableID(c.ID) {
		return nil, intake.ErrNotFound
	}
	var in intake.Introduction
	err := s.op(ctx, nil, func(ctx context.Context) error {
		sub, err := s.readSubject(func(refs []*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error) {
			return s.client.GetAll(ctx, refs)
		}, c, now)
		if err != nil {
			return err
		}
		in = sub.in
		return in.AttachableBy(c.TokenHash, now)
	})
	if err != nil {
		return nil, err
	}
	return &in, nil
}

// SetAttachment sets or removes the draft's attachment with its ledger
// evidence in one transaction (see intake.Attacher); a decoy's file keeps
// no object.
func (s *IntakeStore) SetAttachment(ctx context.Context, c intake.Claim, now time.Time, a *intake.Attachment,
	purposeOf func(formID, formVersion string) string) (*intake.Attachment, error) {
	if !intake.StorableID(c.ID) {
		return nil, intake.ErrNotFound
	}
	check := intake.CheckStorableAttachment(c.ID, a)
	if c.Decoy() {
		check = intake.CheckStorableDecoyAttachment(a)
	}
	if check != nil {
		return nil, check
	}
	now = now.UTC().Truncate(time.Microsecond)
	id := c.ID
	ref, ledgerRef := s.introductionRef(id), s.ledgerRef(id)
	var previous *intake.Attachment
	err := s.op(ctx, append(s.moveLocks(id), lockKey(s.decoyAttachmentRef(id))), func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			sub, err := s.readSubject(tx.GetAll, c, now)
			if err != nil {
				return err
			}
			in := sub.in
			if err := in.AttachableBy(c.TokenHash, now); err != nil {
				return err
			}
			previous = in.Attachment
			if sub.decoy != nil {
				return s.setDecoyAttachment(tx, id, sub.decoy, now, a)
			}
			if !sub.ledger.Exists() {
				return intake.Internal(errors.New("SetAttachment: the draft has no ledger entry"))
			}
			var e intake.LedgerEntry
			if err := sub.ledger.DataTo(&e); err != nil {
				return err
			}
			e.RecordAttachment(purposeOf(in.FormID, in.FormVersion), a)
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
