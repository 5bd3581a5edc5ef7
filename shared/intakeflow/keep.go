package intakeflow

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/spamsignals"
)

// checked is a draft that passed the chain, its evidence not yet stamped.
type checked struct {
	entry    intake.LedgerEntry
	a        *checks.Attempt
	version  *formregistry.Version
	req      DraftRequest
	keys     draftKeys
	consents []intake.ConsentEvidence
	purposes []intake.PurposeRecord
}

// keep keeps c (a honeypot's as a decoy) with its ledger entry and rate
// counters in one store call, or answers an Idempotency-Key retry with
// the draft it kept first; a refusal says how it is recorded.
func (s *Service) keep(ctx context.Context, c checked) (*Draft, *refusal) {
	entry, a, version, req := c.entry, c.a, c.version, c.req
	now, kept := a.Now, a.Submission
	id, token, sealed, err := s.newIdentity(a.Honeypot, req.IdempotencyKey)
	if err != nil {
		return nil, &refusal{err: intake.Internal(err)}
	}
	fingerprint := fingerprintOf(req.Submission)
	consents := stamped(c.consents, now, id)
	in := intake.Introduction{
		ID: id, State: intake.StateDraft, FormID: version.FormID, FormVersion: version.Version, Lang: version.Lang,
		Fields: kept.Fields, Added: kept.Added, HasConversation: kept.Conversation != "", Consents: consents,
		// Firestore keeps times to the microsecond: the answer says what was kept.
		TokenHash: intake.HashToken(token), CreatedAt: now.Truncate(time.Microsecond), ExpireAt: now.Add(s.Retention.Draft).Truncate(time.Microsecond),
		SubjectKey: contentrules.SubjectKey(kept.Fields.Email),
	}
	entry.ID, entry.SubmissionID = id, id
	entry.Validation = intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}}
	entry.Purposes, entry.Consents, entry.WithdrawalPath = c.purposes, consents, WithdrawalPath(id)
	// The entry outlives the draft, to say EXPIRED once the sweep deletes it.
	entry.Retention = intake.RetentionRecord{Class: intake.RetentionDraft, DeleteAfter: in.ExpireAt.Add(s.Retention.RejectedAttempt)}
	entry.ExpireAt = entry.Retention.DeleteAfter
	entry.Redaction.Stored = storedFields(in)
	entry.Decision, entry.Reason = intake.DecisionAwaitingConfirmation, "draft kept; it is sent on only when the visitor confirms it"
	spam := spamsignals.Of(kept)
	entry.Abuse.Signals = append(slices.Clone(entry.Abuse.Signals), spam...)
	entry.Abuse.LikelySpam = spamsignals.Likely(spam)
	in.LikelySpam = entry.Abuse.LikelySpam
	if p := kept.Page; p.Reported {
		entry.Abuse.Solve = &intake.SolveRecord{Millis: intake.SolveBucket(p.SolveMillis), Workers: min(max(p.Workers, 0), intake.MaxReportedWorkers), MaxNumber: a.Challenge.MaxNumber}
	}

	k := intake.DraftKeeping{Introduction: in, Ledger: entry, Challenge: a.Challenge, Now: now,
		RateKeys: []intake.RateKey{{RateRule: s.IPLimit, KeyHash: a.ClientKey}}, Escalation: s.Escalation}
	if a.EmailKey != "" {
		k.RateKeys = append(k.RateKeys, intake.RateKey{RateRule: s.EmailLimit, KeyHash: a.EmailKey})
	}
	if kept.Conversation != "" {
		k.Transcript = &intake.Transcript{IntroductionID: id, Text: kept.Conversation, ExpireAt: in.ExpireAt}
	}
	if c.keys.message != "" && !a.Honeypot {
		k.Repeat = &intake.RepeatCheck{MessageHash: c.keys.message, SenderHash: c.keys.sender,
			Window: spamsignals.RepeatWindow * time.Second, Signal: spamsignals.RepeatedMessage, LikelyIfRepeated: spamsignals.Likely(append(spam, spamsignals.RepeatedMessage))}
	}
	if a.Honeypot {
		k = s.decoyKeeping(k, a)
	}
	if req.IdempotencyKey != "" {
		k.Idempotency = &intake.IdempotencyRecord{KeyHash: entry.IdempotencyKeyHash, Fingerprint: fingerprint,
			IntroductionID: id, SealedToken: sealed, ExpireAt: in.ExpireAt, Decoy: k.Decoy}
	}

	out, err := s.Store.KeepDraft(ctx, k)
	if out.Replay != nil {
		return s.replay(ctx, entry, out.Replay, fingerprint, req.IdempotencyKey, c)
	}
	entry.RateLimits = append(entry.RateLimits, out.RateDecisions...)
	if err != nil {
		entry.ID, entry.SubmissionID = "", ""
		entry.Consents, entry.WithdrawalPath, entry.Redaction.Stored = nil, "", nil
		switch intake.CodeOf(err) {
		case intake.CodeRateLimited:
			entry.Abuse = intake.AbuseRecord{State: intake.AbuseRateLimited, Signals: append(entry.Abuse.Signals, "authoritative-limit")}
			for _, d := range out.RateDecisions {
				if d.Decision == intake.RateBlock {
					s.Flood.Block(d.KeyHash, now.Add(intake.AsError(err).RetryAfter))
				}
			}
		case intake.CodePowSpent, intake.CodePowTooEasy:
			entry.Abuse = intake.AbuseRecord{State: intake.AbusePowFailed, Signals: append(entry.Abuse.Signals, string(intake.CodeOf(err)))}
		default:
			return nil, &refusal{err: err} // unavailable or internal: nothing was kept, and the ledger cannot be written either
		}
		return nil, &refusal{entry: &entry, err: err}
	}
	in.LikelySpam = in.LikelySpam || out.Repeated
	if k.Decoy {
		s.Logger.InfoContext(ctx, "honeypot answered with a decoy; nothing kept", slog.String("ledgerId", id), slog.String("abuse", string(intake.AbuseHoneypot)))
	} else {
		s.Logger.InfoContext(ctx, "draft kept", slog.String("submissionId", id), slog.String("decision", string(entry.Decision)),
			slog.String("formVersion", version.Version), slog.Bool("conversation", kept.Conversation != ""), slog.Bool("likelySpam", k.Ledger.Abuse.LikelySpam || out.Repeated))
	}
	return &Draft{Introduction: in, Conversation: kept.Conversation, Token: token}, nil
}

// stamped is consents as given at at to the introduction id.
func stamped(consents []intake.ConsentEvidence, at time.Time, id string) []intake.ConsentEvidence {
	out := slices.Clone(consents)
	for i := range out {
		out[i].GivenAt, out[i].WithdrawalPath = at, WithdrawalPath(id)
	}
	return out
}

// decoyKeeping turns k into a honeypot's decoy: every write a draft makes,
// none of its content; the ledger entry is REJECTED, HONEYPOT.
func (s *Service) decoyKeeping(k intake.DraftKeeping, a *checks.Attempt) intake.DraftKeeping {
	in := k.Introduction
	k.Decoy, k.Transcript = true, nil
	k.Introduction = intake.Introduction{ID: in.ID, State: in.State, FormID: in.FormID, FormVersion: in.FormVersion, Lang: in.Lang,
		TokenHash: in.TokenHash, CreatedAt: in.CreatedAt, ExpireAt: in.ExpireAt}
	e := k.Ledger
	e.Consents, e.WithdrawalPath, e.Redaction.Stored = []intake.ConsentEvidence{}, "", []string{}
	for i := range e.Purposes {
		e.Purposes[i].Granted = e.Purposes[i].Required
	}
	e.Abuse = intake.AbuseRecord{State: intake.AbuseHoneypot, Signals: a.Signals}
	e.Decision, e.Reason = intake.DecisionRejected, "honeypot filled: answered with a decoy, nothing kept"
	e.Retention = intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: a.Now.Add(s.Retention.RejectedAttempt)}
	e.ExpireAt = e.Retention.DeleteAfter
	e.Decoy = &intake.DecoyRecord{DraftExpireAt: in.ExpireAt}
	k.Ledger = e
	return k
}

// replay answers a retry with the draft its Idempotency-Key kept first
// (a decoy's with this body, which it kept none of); another body under
// the same key is refused IDEMPOTENCY_KEY_REUSED.
func (s *Service) replay(ctx context.Context, entry intake.LedgerEntry, r *intake.Replay, fingerprint, key string, c checked) (*Draft, *refusal) {
	kept := c.a.Submission
	conversation := kept.Conversation
	if r.Record.Fingerprint != fingerprint {
		entry.ID, entry.SubmissionID = "", ""
		entry.Consents, entry.WithdrawalPath, entry.Redaction.Stored = nil, "", nil
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{intake.CodeIdempotencyKeyReused}}
		return nil, &refusal{entry: &entry, err: intake.Errorf(intake.CodeIdempotencyKeyReused, "This Idempotency-Key was used for a different draft.")}
	}
	token, err := unseal(key, r.Record.SealedToken)
	if err != nil {
		return nil, &refusal{err: intake.Internal(err)}
	}
	s.Logger.InfoContext(ctx, "draft replayed", slog.String("submissionId", r.Introduction.ID), slog.String("idempotencyKeyHash", entry.IdempotencyKeyHash))
	if r.Record.Decoy {
		// A decoy kept no content: the same body gives the same answer.
		in := r.Introduction
		in.Fields, in.Added, in.HasConversation, in.Lang = kept.Fields, kept.Added, kept.Conversation != "", c.version.Lang
		in.Consents = stamped(c.consents, in.CreatedAt, in.ID)
		r.Introduction = in
	}
	if !r.Introduction.HasConversation {
		conversation = ""
	}
	return &Draft{Introduction: r.Introduction, Conversation: conversation, Token: token, Replayed: true}, nil
}

// fingerprintOf identifies a draft body for Idempotency-Key reuse.
func fingerprintOf(sub intake.Submission) string {
	b, _ := json.Marshal(sub)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// newIdentity returns a fresh id and token (a decoy's: newDecoy's) and,
// for an Idempotency-Key, the token sealed under it.
func (s *Service) newIdentity(decoy bool, idempotencyKey string) (id, token string, sealed []byte, err error) {
	var b []byte
	if decoy {
		id, token, err = s.newDecoy()
	} else if id, err = s.newID(); err == nil {
		b, err = s.random(tokenBytes)
		token = b64.EncodeToString(b)
	}
	if err == nil && idempotencyKey != "" {
		sealed, err = s.seal(idempotencyKey, token)
	}
	return id, token, sealed, err
}

// sealer seals a token for replays under the Idempotency-Key, which the database never holds.
func sealer(idempotencyKey string) (cipher.AEAD, error) {
	mac := hmac.New(sha256.New, []byte(idempotencyKey))
	mac.Write([]byte("introductions/idempotency-seal/v1"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (s *Service) seal(idempotencyKey, token string) ([]byte, error) {
	gcm, err := sealer(idempotencyKey)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := io.ReadFull(s.Entropy, nonce); err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, []byte(token), nil), nil
}

func unseal(idempotencyKey string, sealed []byte) (string, error) {
	gcm, err := sealer(idempotencyKey)
	if err != nil {
		return "", err
	}
	if len(sealed) < gcm.NonceSize() {
		return "", errors.New("sealed token too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], nil)
	return string(plain), err
}
