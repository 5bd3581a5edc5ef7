package firestorestore

import (
	"errors"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// subject is what a move acts on, as read: a draft's introduction, or a
// honeypot decoy's view of its ledger entry and of the file it was sent.
type subject struct {
	in intake.Introduction
	// guard's update time conditions the move's write.
	guard  *firestore.DocumentSnapshot
	ledger *firestore.DocumentSnapshot
	decoy  *intake.DecoyRecord // nil for a draft
}

// getAll is a client's GetAll (with its context) or a transaction's.
type getAll func([]*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error)

// readSubject reads c's subject in one round trip (a decoy's reads the
// introduction too, to cost the same), a decoy's view with c.DecoyTokenHash
// as its token hash. Errors: NOT_FOUND for a subject gone or never there.
func (s *DB) readSubject(get getAll, c intake.Claim, now time.Time) (subject, error) {
	refs := []*firestore.DocumentRef{s.introductionRef(c.ID), s.ledgerRef(c.ID)}
	if c.Decoy() {
		refs = append(refs, s.decoyAttachmentRef(c.ID))
	}
	snaps, err := get(refs)
	if err != nil {
		return subject{}, err
	}
	if !c.Decoy() {
		in, err := liveIntroduction(snaps[0], nil, c.ID, now)
		return subject{in: in, guard: snaps[0], ledger: snaps[1]}, err
	}
	var e intake.LedgerEntry
	if !live(snaps[1], now) {
		return subject{}, intake.ErrNotFound
	}
	if err := snaps[1].DataTo(&e); err != nil {
		return subject{}, err
	}
	if e.Decoy == nil || !e.Decoy.WithdrawnAt.IsZero() {
		return subject{}, intake.ErrNotFound
	}
	d := *e.Decoy
	in := intake.Introduction{ID: c.ID, State: intake.StateDraft, FormID: e.FormID, FormVersion: e.FormVersion,
		CreatedAt: e.Provenance.Time, ExpireAt: d.DraftExpireAt, Revisions: e.Revisions, TokenHash: c.DecoyTokenHash}
	if !d.ConfirmedAt.IsZero() {
		in.State, in.ConfirmedAt, in.ExpireAt = intake.StateConfirmed, d.ConfirmedAt, e.ExpireAt
	}
	if !in.Live(now) {
		return subject{}, intake.ErrNotFound
	}
	if live(snaps[2], now) {
		var f decoyAttachmentDoc
		if err := snaps[2].DataTo(&f); err != nil {
			return subject{}, err
		}
		in.Attachment = &intake.Attachment{Name: f.Name, Type: f.Type, Size: f.Size, SHA256: f.SHA256}
	}
	return subject{in: in, guard: snaps[1], ledger: snaps[1], decoy: &d}, nil
}

// setDecoyAttachment records a (nil: none) as the file decoy id was sent,
// and its evidence in the decoy's ledger entry.
func (s *DB) setDecoyAttachment(tx *firestore.Transaction, id string, d *intake.DecoyRecord, now time.Time, a *intake.Attachment) error {
	if a == nil {
		return errors.Join(tx.Delete(s.decoyAttachmentRef(id)),
			tx.Update(s.ledgerRef(id), []firestore.Update{{Path: "attachment", Value: firestore.Delete}, {Path: "updatedAt", Value: now}}))
	}
	return errors.Join(
		tx.Set(s.decoyAttachmentRef(id), decoyAttachmentDoc{Name: a.Name, Type: a.Type, Size: a.Size, SHA256: a.SHA256, ExpireAt: d.DraftExpireAt}),
		tx.Update(s.ledgerRef(id), []firestore.Update{{Path: "attachment", Value: a.Evidence().Tombstone()}, {Path: "updatedAt", Value: now}}),
	)
}
