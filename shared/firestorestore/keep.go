package firestorestore

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// KeepDraft writes the draft, its transcript, the spent challenge, the
// idempotency record, the rate counters and the ledger entry in one
// transaction, or nothing. In order it answers: a replay (the Idempotency-Key
// already made a live draft: outcome.Replay, nothing written), POW_SPENT (the
// challenge is spent and not yet expired), RATE_LIMITED (a counter is at its
// limit: outcome.RateDecisions says which, RetryAfter when to come back),
// POW_TOO_EASY (the challenge's max number is below what k.Escalation owes
// for the drafts its layer's counter holds; the counter is the one already
// read, so this costs no round trip, and the solution stays unspent),
// INTERNAL (a record fails intake.CheckStorableDraft), UNAVAILABLE. When
// Firestore fails the transaction (a deadline, cancellation or outage
// around the commit leaves its outcome unknown), a fresh read by id decides: a draft that was kept is a success, never
// UNAVAILABLE.
// On success outcome.RateDecisions holds each layer's ALLOW.
func (s *IntakeStore) KeepDraft(ctx context.Context, k intake.DraftKeeping) (intake.KeepOutcome, error) {
	if err := intake.CheckStorableDraft(k); err != nil {
		return intake.KeepOutcome{}, err
	}
	now := k.Now
	introRef := s.introductionRef(k.Introduction.ID)
	ledgerRef := s.ledgerRef(k.Ledger.ID)
	challengeRef := s.challengeRef(k.Challenge.Key)

	// reads are fetched in one GetAll: [idempotency], challenge, counters.
	var reads []*firestore.DocumentRef
	var idemRef *firestore.DocumentRef
	if k.Idempotency != nil {
		idemRef = s.idempotencyRef(k.Idempotency.KeyHash)
		reads = append(reads, idemRef)
	}
	reads = append(reads, challengeRef)
	firstCounter := len(reads)
	for _, rk := range k.RateKeys {
		reads = append(reads, s.rateCounterRef(rk))
	}
	var repeatRef *firestore.DocumentRef
	if k.Repeat != nil {
		repeatRef = s.recentMessageRef(k.Repeat.MessageHash)
		reads = append(reads, repeatRef)
	}
	keys := []string{lockKey(introRef), lockKey(ledgerRef)}
	for _, r := range reads {
		keys = append(keys, lockKey(r))
	}

	var out intake.KeepOutcome
	var firestoreErr error // what Firestore (not our own rules) answered, if it failed
	err := s.op(ctx, keys, func(ctx context.Context) error {
		err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			out = intake.KeepOutcome{}
			snaps, err := tx.GetAll(reads)
			if err != nil {
				return err
			}
			if idemRef != nil {
				replay, err := s.replay(tx, snaps[0], k.Idempotency.KeyHash, now)
				if err != nil || replay != nil {
					out.Replay = replay
					return err
				}
			}
			if live(snaps[firstCounter-1], now) {
				return intake.Errorf(intake.CodePowSpent, "This proof of work was already used; please solve a new challenge.")
			}
			counters := make([]rateCounterDoc, len(k.RateKeys))
			var retryAfter time.Duration
			blocked := false
			owed := int64(0)
			for i, rk := range k.RateKeys {
				var c rateCounterDoc
				if snap := snaps[firstCounter+i]; live(snap, now) {
					if err := snap.DataTo(&c); err != nil {
						return err
					}
				}
				kept, d, wait := rk.Admit(c.Hits, now)
				out.RateDecisions = append(out.RateDecisions, d)
				if rk.Layer == k.Escalation.Layer {
					owed = k.Escalation.Owed(d.Count - 1) // the drafts kept before this one
				}
				if d.Decision == intake.RateBlock {
					blocked = true
					retryAfter = max(retryAfter, wait)
				}
				counters[i] = rateCounterDoc{Layer: rk.Layer, Hits: kept, ExpireAt: newest(kept).Add(rk.Window)}
			}
			if blocked {
				return intake.RateLimited(retryAfter)
			}
			if k.Challenge.MaxNumber < owed {
				return intake.PowTooEasy(owed)
			}

			// The ledger entry records the authoritative layers' decisions
			// beside those the caller already made (the flood layer).
			entry := k.Ledger
			entry.RateLimits = append(slices.Clone(entry.RateLimits), out.RateDecisions...)
			intro := k.Introduction
			var writes []error
			if r := k.Repeat; r != nil {
				var last recentMessageDoc
				if snap := snaps[len(snaps)-1]; live(snap, now) {
					if err := snap.DataTo(&last); err != nil {
						return err
					}
					out.Repeated = last.Sender != r.SenderHash
				}
				if out.Repeated {
					entry.Abuse.Signals = append(slices.Clone(entry.Abuse.Signals), r.Signal)
					entry.Abuse.LikelySpam = r.LikelyIfRepeated
					intro.LikelySpam = r.LikelyIfRepeated
				}
				writes = append(writes, tx.Set(repeatRef, recentMessageDoc{Sender: r.SenderHash, ExpireAt: now.Add(r.Window)}))
			}
			if err := intake.CheckStorableLedgerEntry(entry); err != nil {
				return err
			}
			writes = append(writes,
				tx.Set(challengeRef, spentChallengeDoc{ExpireAt: k.Challenge.ExpireAt}),
				tx.Create(ledgerRef, entry),
			)
			if !k.Decoy {
				writes = append(writes, tx.Create(introRef, toIntroductionDoc(intro)))
			}
			if t := k.Transcript; t != nil && !k.Decoy {
				writes = append(writes, tx.Set(s.transcriptRef(t.IntroductionID), transcriptDoc{Text: t.Text, ExpireAt: t.ExpireAt}))
			}
			if r := k.Idempotency; r != nil {
				writes = append(writes, tx.Set(idemRef, idempotencyDoc{Fingerprint: r.Fingerprint,
					IntroductionID: r.IntroductionID, SealedToken: r.SealedToken, ExpireAt: r.ExpireAt, Decoy: r.Decoy}))
			}
			for i, rk := range k.RateKeys {
				writes = append(writes, tx.Set(s.rateCounterRef(rk), counters[i]))
			}
			return errors.Join(writes...)
		})
		var ours *intake.Error
		if err != nil && !errors.As(err, &ours) {
			firestoreErr = err
		}
		return err
	})
	if firestoreErr != nil && out.Replay == nil {
		// A deadline, a cancellation, an outage or a retry refused around the
		// commit does not say whether the commit happened: Firestore may
		// have kept the draft and lost only the answer. Telling the visitor 503 then would make
		// their retry spend the proof of work again (POW_SPENT) and charge
		// the counters twice. A fresh read by id decides.
		if kept, readErr := s.wasKept(ctx, k, introRef, ledgerRef); readErr == nil && kept {
			s.logger.LogAttrs(ctx, slog.LevelInfo, "firestorestore.KeepDraft: the commit's answer was lost; the draft is kept",
				slog.String("introductionId", k.Introduction.ID))
			err = nil
		}
	}
	attrs := []slog.Attr{slog.String("introductionId", k.Introduction.ID), slog.String("code", string(intake.CodeOf(err)))}
	if out.Replay != nil {
		attrs = append(attrs, slog.String("replayOf", out.Replay.Introduction.ID))
	}
	s.logger.LogAttrs(ctx, slog.LevelDebug, "firestorestore.KeepDraft", attrs...)
	return out, err
}

// readAfterTimeout bounds the read that decides whether an uncertain commit
// kept a draft.
const readAfterTimeout = 3 * time.Second

// wasKept reads what k's commit would have made with a budget of its own
// (the request's may be spent or cancelled) and reports whether it is
// there: the introduction with k's token hash, or for a decoy its ledger
// entry — then the whole transaction committed. Errors: the read's.
func (s *DB) wasKept(ctx context.Context, k intake.DraftKeeping, introRef, ledgerRef *firestore.DocumentRef) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(readAfterTimeout, s.cfg.OpTimeout))
	defer cancel()
	ref := introRef
	if k.Decoy {
		ref = ledgerRef
	}
	snap, err := ref.Get(ctx)
	if status.Code(err) == codes.NotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if k.Decoy {
		return true, nil // ledger ids are fresh 128-bit values: this entry is k's
	}
	var d introductionDoc
	if err := snap.DataTo(&d); err != nil {
		return false, err
	}
	return bytes.Equal(d.TokenHash, k.Introduction.TokenHash), nil
}

// replay reads, inside tx, the draft a live idempotency record names. It
// returns nil (and no error) when the record is absent, expired, or names a
// draft that is gone: the key then counts as unused.
func (s *DB) replay(tx *firestore.Transaction, snap *firestore.DocumentSnapshot, keyHash string, now time.Time) (*intake.Replay, error) {
	if !live(snap, now) {
		return nil, nil
	}
	var d idempotencyDoc
	if err := snap.DataTo(&d); err != nil {
		return nil, err
	}
	if !intake.StorableID(d.IntroductionID) {
		return nil, errors.New("idempotency record names an unstorable introduction id")
	}
	c := intake.Claim{ID: d.IntroductionID}
	if d.Decoy {
		c.DecoyTokenHash = []byte{} // the answer carries no token hash
	}
	sub, err := s.readSubject(tx.GetAll, c, now)
	if intake.CodeOf(err) == intake.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &intake.Replay{Record: d.record(keyHash), Introduction: sub.in}, nil
}

// newest returns the latest of ts (zero for none).
func newest(ts []time.Time) time.Time {
	var n time.Time
	for _, t := range ts {
		if t.After(n) {
			n = t
		}
	}
	return n
}
