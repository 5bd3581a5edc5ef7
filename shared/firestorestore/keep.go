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

// KeepDraft writes the draft and all its records in one transaction, or
// nothing. In order it answers: a replay (outcome.Replay, nothing written),
// POW_SPENT, RATE_LIMITED (outcome.RateDecisions says which layer),
// POW_TOO_EASY (the challenge is below what k.Escalation owes; it stays
// unspent), INTERNAL (a record is not storable), UNAVAILABLE. A draft that
// a failed commit kept anyway is a success.
func (s *IntakeStore) KeepDraft(ctx context.Context, k intake.DraftKeeping) (intake.KeepOutcome, error) {
	if err := intake.CheckStorableDraft(k); err != nil {
		return intake.KeepOutcome{}, err
	}
	now := k.Now
	introRef := s.introductionRef(k.Introduction.ID)
	ledgerRef := s.ledgerRef(k.Ledger.ID)
	challengeRef := s.challengeRef(k.Challenge.Key)

	// One GetAll: [idempotency], challenge, counters, [recent message].
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
		// The commit may have happened with only its answer lost; a 503
		// would make the retry POW_SPENT, so a fresh read decides.
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

// readAfterTimeout bounds wasKept's read.
const readAfterTimeout = 3 * time.Second

// wasKept reports whether k's transaction committed (its introduction, or
// a decoy's ledger entry, is there), reading on a budget of its own.
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

// replay returns the draft a live idempotency record names, or nil when
// the record or its draft is gone.
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
