package firestorestore

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// ReviseDraft replaces a live draft's content for the holder of tokenHash,
// in one transaction: it reads the draft, checks
// (*intake.Introduction).RevisableBy, asks revise for the new content (the
// caller applies the content rules of the draft's own form version; revise
// may run more than once when the transaction is retried), applies it with
// ReviseBy, re-checks the introduction, the transcript and the ledger
// update as every write of this store does, and writes the introduction,
// its transcript (replaced, or deleted when the revision has none) and the
// ledger entry's revision count, consents, purposes and stored fields. A
// revision revise refuses (Revision.Refusal) is counted instead
// (RefuseRevisionBy): only the revision count of the introduction and of
// its ledger entry is written, and the refusal is returned. The id, token
// hash, form version and expiry stay; no rate counter, spent challenge or
// idempotency record is touched. A decoy's revision writes only its
// ledger entry's revision count. Errors: intake.ErrNotFound (unknown id,
// expired draft, wrong token alike); STATE_CONFLICT; RATE_LIMITED after
// intake.MaxRevisions revisions, refused ones included; the Refusal;
// whatever revise returns (nothing is written then); INTERNAL when a
// record fails its check or the ledger entry is missing; UNAVAILABLE.
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
			refusal = r.Refusal
			if refusal != nil {
				// Refused, it counts all the same: the content stays.
				if err := in.RefuseRevisionBy(tokenHash, now); err != nil {
					return err
				}
				result = &in
				if sub.decoy != nil {
					return tx.Update(ledgerRef, []firestore.Update{{Path: "revisions", Value: in.Revisions}, {Path: "updatedAt", Value: now}})
				}
				if err := intake.CheckStorableIntroduction(in); err != nil {
					return err
				}
				return errors.Join(
					tx.Update(ref, []firestore.Update{{Path: "revisions", Value: in.Revisions}}),
					tx.Update(ledgerRef, []firestore.Update{{Path: "revisions", Value: in.Revisions}, {Path: "updatedAt", Value: now}}),
				)
			}
			if err := in.ReviseBy(tokenHash, now, r); err != nil {
				return err
			}
			result = &in
			if sub.decoy != nil { // a decoy keeps none of the content: only the count
				return tx.Update(ledgerRef, []firestore.Update{{Path: "revisions", Value: in.Revisions}, {Path: "updatedAt", Value: now}})
			}
			if err := checkStorableRevision(in, r); err != nil {
				return err
			}
			writes := []error{
				tx.Update(ref, []firestore.Update{
					{Path: "name", Value: in.Fields.Name},
					{Path: "company", Value: in.Fields.Company},
					{Path: "role", Value: in.Fields.Role},
					{Path: "email", Value: in.Fields.Email},
					{Path: "subjectKey", Value: in.SubjectKey},
					{Path: "message", Value: in.Fields.Message},
					{Path: "hasConversation", Value: in.HasConversation},
					{Path: "added", Value: addedValue(in.Added)},
					{Path: "consents", Value: in.Consents},
					{Path: "lang", Value: in.Lang},
					{Path: "revisions", Value: in.Revisions},
				}),
				tx.Update(ledgerRef, []firestore.Update{
					{Path: "revisions", Value: in.Revisions},
					{Path: "lang", Value: in.Lang},
					{Path: "consents", Value: in.Consents},
					{Path: "purposes", Value: r.Purposes},
					{Path: "redaction.stored", Value: r.Stored},
					{Path: "updatedAt", Value: now},
				}),
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

// checkStorableRevision re-checks what a revision writes: the revised
// introduction (still a draft), its transcript when it has one, and the
// content-free ledger values.
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
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// addedValue is how a revision writes the fields a form version adds: the
// map, or no field at all when there are none (as a new draft stores it).
func addedValue(added map[string]string) any {
	if len(added) == 0 {
		return firestore.Delete
	}
	return added
}
