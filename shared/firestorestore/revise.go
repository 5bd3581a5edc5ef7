package firestorestore

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// ReviseDraft replaces a live draft's content in one transaction with what
// revise (run again on retry) returns; a refused revision (Revision.Refusal)
// writes only the revision count and is returned, as is every decoy's.
// Errors: intake.ErrNotFound; STATE_CONFLICT; RATE_LIMITED after
// intake.MaxRevisions; the refusal; revise's; INTERNAL; UNAVAILABLE.
func (s *IntakeStore) ReviseDraft(ctx context.Context, c intake.Claim, now time.Time,
	revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error) {
	if !intake.StorableID(c.ID) {
		return nil, intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	id, tokenHash := c.ID, c.TokenHash
	ref, transcriptRef, ledgerRef := s.introductionRef(id), s.transcriptRef(id), s.ledgerRef(id)
	var result *intake.Introduction
	var refusal *intake.Error
	err := s.op(ctx, append(s.moveLocks(id), lockKey(transcriptRef)), func(ctx context.Context) error {
		refusal = nil // the transaction may run again
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			sub, err := s.readSubject(tx.GetAll, c, now)
			if err != nil {
				return err
			}
			in := sub.in
			if err := in.RevisableBy(tokenHash, now); err != nil {
				return err
			}
			r, err := revise(in)
			if err != nil {
				return err
			}
			if refusal = r.Refusal; refusal != nil {
				err = in.RefuseRevisionBy(tokenHash, now) // it counts all the same
			} else {
				err = in.ReviseBy(tokenHash, now, r)
			}
			if err != nil {
				return err
			}
			result = &in
			counts := []firestore.Update{{Path: "revisions", Value: in.Revisions}, {Path: "updatedAt", Value: now}}
			if sub.decoy != nil {
				return tx.Update(ledgerRef, counts)
			}
			if refusal != nil {
				if err := intake.CheckStorableIntroduction(in); err != nil {
					return err
				}
				return errors.Join(tx.Update(ref, counts[:1]), tx.Update(ledgerRef, counts))
			}
			if err := checkStorableRevision(in, r); err != nil {
				return err
			}
			writes := []error{
				tx.Set(ref, toIntroductionDoc(in)), // read in this transaction: only the revised fields change
				tx.Update(ledgerRef, append(counts,
					firestore.Update{Path: "lang", Value: in.Lang},
					firestore.Update{Path: "consents", Value: in.Consents},
					firestore.Update{Path: "purposes", Value: r.Purposes},
					firestore.Update{Path: "redaction.stored", Value: r.Stored},
				)),
			}
			if in.HasConversation {
				writes = append(writes, tx.Set(transcriptRef, transcriptDoc{Text: r.Conversation, ExpireAt: in.ExpireAt}))
			} else {
				writes = append(writes, tx.Delete(transcriptRef))
			}
			return errors.Join(writes...)
		})
	})
	if err == nil && refusal != nil {
		err = refusal
	}
	s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.ReviseDraft", slog.String("introductionId", id),
		slog.String("code", string(intake.CodeOf(err))))
	if err != nil {
		return nil, err
	}
	return result, nil
}

// checkStorableRevision re-checks what a revision writes.
func checkStorableRevision(in intake.Introduction, r intake.Revision) error {
	errs := []error{intake.CheckStorableIntroduction(in)}
	if in.State != intake.StateDraft {
		errs = append(errs, intake.Internal(errors.New("revision: not a draft")))
	}
	if in.HasConversation {
		errs = append(errs, intake.CheckStorableTranscript(intake.Transcript{IntroductionID: in.ID, Text: r.Conversation, ExpireAt: in.ExpireAt}))
	}
	if len(r.Purposes) > intake.MaxStoredList || len(r.Stored) > intake.MaxStoredList {
		errs = append(errs, intake.Internal(errors.New("revision: ledger lists over the stored cap")))
	}
	return cmp.Or(errs...)
}
