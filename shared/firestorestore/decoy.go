package firestorestore

import (
	"errors"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// subject is what a move (confirm, revise, withdraw, attach) acts on, as
// read: a draft's introduction, or a honeypot decoy's view of its
// content-free ledger entry (ledger/{decoy id}, LedgerEntry.Decoy) and of
// the file it was sent. Each move checks and moves in the same way for
// both, and writes to the decoy's records only what a decoy keeps.
type subject struct {
	in intake.Introduction
	// guard is the document whose update time conditions the move's
	// write: the introduction, or the decoy's ledger entry.
	guard  *firestore.DocumentSnapshot
	ledger *firestore.DocumentSnapshot
	decoy  *intake.DecoyRecord // nil for a draft
}

// getAll is a client's GetAll (with its context) or a transaction's.
type getAll func([]*firestore.DocumentRef) ([]*firestore.DocumentSnapshot, error)

// readSubject reads c's subject in one round trip: the introduction and
// its ledger entry, and for a decoy the file it was sent. A decoy's
// introduction is never there, but it is read all the same, so a decoy's
// answer costs what a draft's does (threat: a bot telling its decoy apart
// by timing). A decoy's view holds c.DecoyTokenHash as its token hash, so
// the introduction's checks refuse a wrong token as a draft's do. Errors:
// NOT_FOUND for a subject that is gone (a decoy whose draft expired
// unconfirmed, or that was withdrawn) or never was.
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

// decoyConfirmation is what confirming a decoy writes to its ledger entry:
// the time, and the entry kept until in (confirmed) expires.
func decoyConfirmation(in intake.Introduction, now time.Time) []firestore.Update {
	return []firestore.Update{
		{Path: "decoy.confirmedAt", Value: now},
		{Path: "retention", Value: intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: in.ExpireAt}},
		{Path: ExpireAtField, Value: in.ExpireAt},
		{Path: "updatedAt", Value: now},
	}
}

// setDecoyAttachment writes a (nil: none) as the file decoy id was sent,
// kept until its draft would have expired, and its type and size into the
// decoy's ledger entry, in tx.
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
