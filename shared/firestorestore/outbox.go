package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// The handoff outbox: envelopes/{id}, written by Confirm and Withdraw, moved by the delivery
// service with their ledger mirror; providerEvents/{provider:token}, the events applied.

// dueAtField is set on an envelope while an attempt is due, absent otherwise.
const dueAtField = "dueAt"

// envelopeDoc is envelopes/{id}: the envelope and, while an attempt is due, when.
type envelopeDoc struct {
	intake.Envelope
	DueAt *time.Time `firestore:"dueAt,omitempty"`
}

func toEnvelopeDoc(e intake.Envelope) envelopeDoc {
	d := envelopeDoc{Envelope: e}
	if d.Attempts == nil {
		d.Attempts = []intake.DeliveryAttempt{}
	}
	switch e.Status {
	case intake.DeliveryPending:
		d.DueAt = &e.CreatedAt
	case intake.DeliveryRetryPending:
		d.DueAt = &e.NextAttemptAt
	}
	return d
}

// providerEventDoc is providerEvents/{escaped provider:token}: content-free.
type providerEventDoc struct {
	Provider   string                   `firestore:"provider"`
	EnvelopeID string                   `firestore:"envelopeId"`
	Kind       intake.ProviderEventKind `firestore:"kind"`
	At         time.Time                `firestore:"at"`
	ExpireAt   time.Time                `firestore:"expireAt"`
}

func (s *DB) envelopeRef(id string) *firestore.DocumentRef { return s.doc(Envelopes, id) }
func (s *DB) providerEventRef(provider, token string) *firestore.DocumentRef {
	return s.doc(ProviderEvents, escapeKey(provider+":"+token))
}

// boundOutbox binds each envelope to its submission and event and checks it is storable.
func boundOutbox(outbox []intake.Envelope, submissionID, event string, now, expireAt time.Time) ([]intake.Envelope, error) {
	out := make([]intake.Envelope, 0, len(outbox))
	for _, e := range outbox {
		if e.SubmissionID != submissionID || e.Event != event || e.ID != intake.EnvelopeID(submissionID, e.Destination, event) {
			return nil, intake.Internal(fmt.Errorf("outbox: envelope %s is not the %s envelope of %s", e.ID, event, submissionID))
		}
		e.CreatedAt, e.UpdatedAt, e.ExpireAt = now, now, expireAt
		for i := range e.Attempts {
			e.Attempts[i].At = now
		}
		if err := intake.CheckStorableEnvelope(e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Envelope returns envelopes/{id}, for the outbox and the owner's stores. Errors:
// intake.ErrNotFound (absent or expired); UNAVAILABLE.
func (s *DB) Envelope(ctx context.Context, id string, now time.Time) (intake.Envelope, error) {
	if !intake.StorableID(id) {
		return intake.Envelope{}, intake.ErrNotFound
	}
	var e intake.Envelope
	err := s.op(ctx, nil, func(ctx context.Context) error {
		snap, err := s.envelopeRef(id).Get(ctx)
		if err := liveOrNotFound(snap, err, now); err != nil {
			return err
		}
		e, err = readEnvelope(snap)
		return err
	})
	return e, err
}

// submissionEnvelopes returns one submission's live envelopes, oldest first, then inbox, email,
// webhook. Errors: UNAVAILABLE.
func (s *DB) submissionEnvelopes(ctx context.Context, submissionID string, now time.Time) ([]intake.Envelope, error) {
	out := []intake.Envelope{}
	if !intake.StorableID(submissionID) {
		return out, nil
	}
	err := s.op(ctx, nil, func(ctx context.Context) error {
		q := s.client.Collection(Envelopes).Where("submissionId", "==", submissionID)
		return eachLive(ctx, q, now, func(snap *firestore.DocumentSnapshot) error {
			e, err := readEnvelope(snap)
			if err != nil {
				return err
			}
			out = append(out, e)
			return nil
		})
	})
	slices.SortFunc(out, func(a, b intake.Envelope) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return destinationOrder[a.Destination] - destinationOrder[b.Destination]
	})
	return out, err
}

// destinationOrder lists a submission's envelopes as the admin shows them.
var destinationOrder = map[intake.Destination]int{intake.DestinationInbox: 0, intake.DestinationEmail: 1, intake.DestinationWebhook: 2}

// DueEnvelopes returns the ids of up to limit envelopes due at now, longest-waiting first.
// Errors: UNAVAILABLE.
func (s *OutboxStore) DueEnvelopes(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.op(ctx, nil, func(ctx context.Context) error {
		q := s.client.Collection(Envelopes).Where(dueAtField, "<=", now).OrderBy(dueAtField, firestore.Asc).Limit(limit)
		return eachLive(ctx, q, now, func(snap *firestore.DocumentSnapshot) error {
			ids = append(ids, snap.Ref.ID)
			return nil
		})
	})
	return ids, err
}

// LeaseEnvelope claims envelope id until now+leaseFor and returns it with true when it is due
// and not leased; false, writing nothing, otherwise. Errors: intake.ErrNotFound, UNAVAILABLE.
func (s *OutboxStore) LeaseEnvelope(ctx context.Context, id string, now time.Time, leaseFor time.Duration) (intake.Envelope, bool, error) {
	if !intake.StorableID(id) {
		return intake.Envelope{}, false, intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.envelopeRef(id)
	var e intake.Envelope
	var leased bool
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			leased = false
			snap, err := tx.Get(ref)
			if err := liveOrNotFound(snap, err, now); err != nil {
				return err
			}
			if e, err = readEnvelope(snap); err != nil {
				return err
			}
			due := e.Status == intake.DeliveryPending || e.Status == intake.DeliveryRetryPending && !e.NextAttemptAt.After(now)
			if !due || e.LeaseUntil.After(now) {
				return nil
			}
			e.LeaseUntil = now.Add(leaseFor)
			leased = true
			return tx.Update(ref, []firestore.Update{{Path: "leaseUntil", Value: e.LeaseUntil}})
		})
	})
	return e, leased, err
}

// DeliveryContent returns the introduction and its conversation ("" when none) an
// introduction.confirmed envelope carries. Errors: intake.ErrNotFound once gone; UNAVAILABLE.
func (s *OutboxStore) DeliveryContent(ctx context.Context, submissionID string, now time.Time) (intake.Introduction, string, error) {
	if !intake.StorableID(submissionID) {
		return intake.Introduction{}, "", intake.ErrNotFound
	}
	var in intake.Introduction
	var conversation string
	err := s.op(ctx, nil, func(ctx context.Context) error {
		snaps, err := s.client.GetAll(ctx, []*firestore.DocumentRef{s.introductionRef(submissionID), s.transcriptRef(submissionID)})
		if err != nil {
			return err
		}
		if in, err = liveIntroduction(snaps[0], nil, submissionID, now); err != nil {
			return err
		}
		if in.State != intake.StateConfirmed && in.State != intake.StateHandled {
			return intake.ErrNotFound
		}
		if in.HasConversation && live(snaps[1], now) {
			var t transcriptDoc
			if err := snaps[1].DataTo(&t); err != nil {
				return err
			}
			conversation = t.Text
		}
		return nil
	})
	return in, conversation, err
}

// UpdateEnvelope moves envelope id and its ledger entry through apply in one transaction.
// Errors: intake.ErrNotFound; apply's (nothing written); UNAVAILABLE; INTERNAL when the
// envelope would not be storable.
func (s *OutboxStore) UpdateEnvelope(ctx context.Context, id string, now time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error) {
	if !intake.StorableID(id) {
		return intake.Envelope{}, intake.ErrNotFound
	}
	now = now.UTC().Truncate(time.Microsecond)
	ref := s.envelopeRef(id)
	var out intake.Envelope
	err := s.op(ctx, []string{lockKey(ref)}, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			var err error
			out, err = s.moveEnvelope(tx, ref, now, apply)
			return err
		})
	})
	if err == nil {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.UpdateEnvelope", slog.String("envelopeId", id), slog.String("status", string(out.Status)))
	}
	return out, err
}

// moveEnvelope does UpdateEnvelope's reads and writes inside tx.
func (s *DB) moveEnvelope(tx *firestore.Transaction, ref *firestore.DocumentRef, now time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error) {
	snap, err := tx.Get(ref)
	if err := liveOrNotFound(snap, err, now); err != nil {
		return intake.Envelope{}, err
	}
	e, err := readEnvelope(snap)
	if err != nil {
		return intake.Envelope{}, err
	}
	ledgerRef := s.ledgerRef(e.SubmissionID)
	ledgerSnap, err := tx.Get(ledgerRef)
	hasLedger := err == nil && ledgerSnap.Exists()
	if err != nil && status.Code(err) != codes.NotFound {
		return intake.Envelope{}, err
	}
	var entry intake.LedgerEntry
	if hasLedger {
		if entry, err = ledgerOf(ledgerSnap); err != nil {
			return intake.Envelope{}, err
		}
	}
	if err := apply(&e, &entry); err != nil {
		return intake.Envelope{}, err
	}
	e.UpdatedAt = now
	if n := len(e.Attempts); n > maxKeptAttempts {
		e.Attempts = e.Attempts[n-maxKeptAttempts:]
	}
	if err := intake.CheckStorableEnvelope(e); err != nil {
		return intake.Envelope{}, err
	}
	if err := tx.Set(ref, toEnvelopeDoc(e)); err != nil {
		return intake.Envelope{}, err
	}
	if hasLedger {
		updates := []firestore.Update{
			{Path: "handoffs", Value: entry.Handoffs},
			{Path: "decision", Value: entry.Decision},
			{Path: "reason", Value: entry.Reason},
			{Path: "updatedAt", Value: now},
		}
		if entry.Withdrawal != nil {
			updates = append(updates, firestore.Update{Path: "withdrawal", Value: entry.Withdrawal})
		}
		if err := tx.Update(ledgerRef, updates); err != nil {
			return intake.Envelope{}, err
		}
	}
	return e, nil
}

// maxKeptAttempts bounds the attempts an envelope keeps (the newest).
const maxKeptAttempts = 32

// ApplyProviderEvent records the event's token until keepUntil and moves its envelope as
// UpdateEnvelope does, in one transaction. Errors: EVENT_REPLAYED for a token seen before
// (nothing changes); intake.ErrNotFound, token recorded, for an envelope absent or of another
// destination; apply's; UNAVAILABLE.
func (s *OutboxStore) ApplyProviderEvent(ctx context.Context, ev intake.ProviderEvent, now, keepUntil time.Time, apply func(*intake.Envelope, *intake.LedgerEntry) error) (intake.Envelope, error) {
	now = now.UTC().Truncate(time.Microsecond)
	eventRef := s.providerEventRef(ev.Provider, ev.Token)
	var out intake.Envelope
	var unknown bool
	keys, envelopeID := []string{lockKey(eventRef)}, "" // "": an unknown envelope
	if intake.StorableID(ev.EnvelopeID) {
		envelopeID = ev.EnvelopeID
		keys = append(keys, lockKey(s.envelopeRef(envelopeID)))
	}
	err := s.op(ctx, keys, func(ctx context.Context) error {
		return s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			unknown = false
			snap, err := tx.Get(eventRef)
			if err == nil && snap.Exists() {
				return intake.Errorf(intake.CodeEventReplayed, "This event was received before; nothing changed.")
			}
			if err != nil && status.Code(err) != codes.NotFound {
				return err
			}
			doc := providerEventDoc{Provider: ev.Provider, EnvelopeID: envelopeID, Kind: ev.Kind, At: now, ExpireAt: keepUntil}
			if envelopeID != "" {
				out, err = s.moveEnvelope(tx, s.envelopeRef(envelopeID), now, func(e *intake.Envelope, entry *intake.LedgerEntry) error {
					if e.Destination != ev.Destination {
						return intake.ErrNotFound
					}
					return apply(e, entry)
				})
			} else {
				err = intake.ErrNotFound
			}
			if errors.Is(err, intake.ErrNotFound) {
				unknown = true
			} else if err != nil {
				return err
			}
			return tx.Create(eventRef, doc)
		})
	})
	if err == nil && unknown {
		return intake.Envelope{}, intake.ErrNotFound
	}
	return out, err
}

func readEnvelope(snap *firestore.DocumentSnapshot) (intake.Envelope, error) {
	var e intake.Envelope
	if err := snap.DataTo(&e); err != nil {
		return intake.Envelope{}, err
	}
	e.ID = snap.Ref.ID
	return e, nil
}
