// Package adminseed writes sample records into a Firestore database through
// the real store, for the admin's tests, its browser test and its
// screenshots: confirmed introductions (kept as drafts, then confirmed, and
// some marked handled), their envelopes, refused attempts and sweep runs.
package adminseed

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Sample is one introduction to keep and confirm; a zero field is left unset.
type Sample struct {
	ID           string // "" derives one from the name and confirmation time
	Fields       intake.Fields
	Conversation string
	ConfirmedAt  time.Time
	Lang         string
	HandledAt    time.Time
	// Signals and LikelySpam are as the intake computed them; Spam is the owner's word.
	Signals    []string
	LikelySpam bool
	Spam       *bool
	// SolveMillis is the solve time its page reported, at PowMaxNumber; 0 for none.
	SolveMillis int64
	// Envelopes are its confirmation's outbox; Keep sets their ids, submission and event.
	Envelopes []intake.Envelope
}

var registry = sync.OnceValues(formregistry.Load)

// Retention is how long a seeded introduction is kept after confirmation.
const Retention = 180 * 24 * time.Hour

// PowMaxNumber is the base cost the seeded solves were made at (the default POW_MAX_NUMBER).
const PowMaxNumber = 100_000

// IDFor derives a stable id of the service's shape from a seed string.
func IDFor(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

func hexOf(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])
}

// Keep keeps s through the store as a visitor's draft, confirms it with its
// envelopes, and marks it as s says. It returns the id.
func Keep(ctx context.Context, db *firestorestore.DB, s Sample) (string, error) {
	id := cmp.Or(s.ID, IDFor(s.Fields.Name+s.ConfirmedAt.String()))
	confirmedAt := s.ConfirmedAt.UTC().Truncate(time.Microsecond)
	created := confirmedAt.Add(-4 * time.Minute)
	tokenHash := intake.HashToken("token of " + id)
	registry, err := registry()
	if err != nil {
		return "", err
	}
	form, ok := registry.Latest("introduction")
	if ok && s.Lang != "" {
		form, ok = form.In(s.Lang)
	}
	if !ok {
		return "", fmt.Errorf("the form registry has no introduction form in %q", s.Lang)
	}
	// Every purpose of the version, and consent evidence for one granted (with a conversation).
	withdrawal := "/api/introductions/" + id + "/withdrawal"
	consents := []intake.ConsentEvidence{}
	purposes := []intake.PurposeRecord{}
	for _, p := range form.Purposes {
		granted := p.Consent == nil || s.Conversation != ""
		purposes = append(purposes, intake.PurposeRecord{ID: p.ID, Basis: p.Basis, Required: p.Required, Granted: granted})
		if p.Consent != nil && granted {
			consents = append(consents, intake.ConsentEvidence{Purpose: p.ID, Basis: p.Basis, Lang: s.Lang, TextVersion: p.Consent.TextVersion,
				TextSHA256: p.Consent.SHA256, Control: p.Consent.Control, ActivelyChecked: true, GivenAt: created, WithdrawalPath: withdrawal})
		}
	}
	in := intake.Introduction{
		ID: id, State: intake.StateDraft, FormID: form.FormID, FormVersion: form.Version, Lang: s.Lang,
		Fields: s.Fields, HasConversation: s.Conversation != "", Consents: consents, TokenHash: tokenHash,
		CreatedAt: created, ExpireAt: created.Add(30 * time.Minute), SubjectKey: contentrules.SubjectKey(s.Fields.Email),
		LikelySpam: s.LikelySpam,
	}
	signals := append([]string{}, s.Signals...)
	var solve *intake.SolveRecord
	if s.SolveMillis > 0 {
		solve = &intake.SolveRecord{Millis: intake.SolveBucket(s.SolveMillis), Workers: 4, MaxNumber: PowMaxNumber}
	}
	entry := intake.LedgerEntry{
		ID: id, Version: intake.LedgerVersion, FormID: in.FormID, FormVersion: in.FormVersion, Lang: s.Lang, SubmissionID: id,
		Validation: intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}},
		Purposes:   purposes,
		Consents:   consents, WithdrawalPath: withdrawal,
		Retention: intake.RetentionRecord{Class: intake.RetentionDraft, DeleteAfter: in.ExpireAt},
		RateLimits: []intake.RateDecision{
			{Layer: "flood", KeyHash: hexOf("flood" + id)[:32], WindowSeconds: 600, Count: 2, Limit: 60, Decision: intake.RateAllow},
			{Layer: "ip", KeyHash: hexOf("ip" + id), WindowSeconds: 3600, Count: 1, Limit: 10, Decision: intake.RateAllow},
			{Layer: "email", KeyHash: hexOf("email" + id), WindowSeconds: 3600, Count: 1, Limit: 5, Decision: intake.RateAllow},
		},
		Abuse:     intake.AbuseRecord{State: intake.AbuseClean, Signals: signals, LikelySpam: s.LikelySpam, Solve: solve},
		Redaction: intake.RedactionRecord{Stored: []string{"name", "company", "role", "email", "message", "conversation"}, RedactedFromLogs: intake.RedactedFromLogs},
		Decision:  intake.DecisionAwaitingConfirmation, Reason: "draft kept; it is sent on only when the visitor confirms it",
		Provenance: intake.Provenance{Function: "drafts", Revision: "drafts-00042-kit", RequestID: hexOf("request" + id)[:32], Time: created},
		UpdatedAt:  created, ExpireAt: in.ExpireAt,
	}
	k := intake.DraftKeeping{Introduction: in, Ledger: entry, Now: created,
		Challenge: intake.SpentChallenge{Key: "seed-challenge-" + id, ExpireAt: created.Add(10 * time.Minute)}}
	if s.Conversation != "" {
		k.Transcript = &intake.Transcript{IntroductionID: id, Text: s.Conversation, ExpireAt: in.ExpireAt}
	}
	if _, err := db.Intake(nil).KeepDraft(ctx, k); err != nil {
		return "", fmt.Errorf("keeping %s: %w", id, err)
	}
	outbox := make([]intake.Envelope, 0, len(s.Envelopes))
	for i, e := range s.Envelopes {
		e.Event, e.PayloadVersion, e.SubmissionID = intake.EventConfirmed, intake.HandoffPayloadVersion, id
		e.ID = intake.EnvelopeID(id, e.Destination, e.Event)
		if e.CreatedAt.IsZero() {
			e.CreatedAt = confirmedAt.Add(time.Duration(i) * time.Millisecond)
		}
		e.UpdatedAt, e.ExpireAt = e.CreatedAt, confirmedAt.Add(Retention)
		e.Provenance = intake.Provenance{Function: "confirmation", Revision: "confirmation-00017-roc", RequestID: hexOf("confirm" + id)[:32], Time: confirmedAt}
		outbox = append(outbox, e)
	}
	if _, err := db.Intake(nil).Confirm(ctx, intake.Claim{ID: id, TokenHash: tokenHash}, confirmedAt, Retention, outbox); err != nil {
		return "", fmt.Errorf("confirming %s: %w", id, err)
	}
	if s.Spam != nil {
		if _, err := db.Owner().MarkSpam(ctx, id, "owner@example.com", *s.Spam, confirmedAt.Add(time.Hour)); err != nil {
			return "", fmt.Errorf("marking %s: %w", id, err)
		}
	}
	if !s.HandledAt.IsZero() {
		if _, err := db.Owner().MarkHandled(ctx, id, "owner@example.com", s.HandledAt); err != nil {
			return "", fmt.Errorf("handling %s: %w", id, err)
		}
	}
	return id, nil
}

// Refused records one content-free refused attempt at t with the given abuse state.
func Refused(ctx context.Context, db *firestorestore.DB, seed string, state intake.AbuseState, t time.Time) error {
	codes := map[intake.AbuseState][]intake.Code{
		intake.AbuseRateLimited: {intake.CodeRateLimited}, intake.AbuseHoneypot: {},
		intake.AbuseContentRejected: {intake.CodeMessageTooManyLinks}, intake.AbusePowFailed: {intake.CodePowInvalid},
	}[state]
	return db.Intake(nil).RecordAttempt(ctx, intake.LedgerEntry{
		ID: IDFor("refused" + seed), Version: intake.LedgerVersion, FormID: "introduction", FormVersion: "1",
		Validation: intake.ValidationRecord{Result: intake.ValidationFail, Codes: codes},
		Purposes:   []intake.PurposeRecord{}, Consents: []intake.ConsentEvidence{}, RateLimits: []intake.RateDecision{},
		Retention: intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: t.Add(30 * 24 * time.Hour)},
		Abuse:     intake.AbuseRecord{State: state, Signals: []string{}},
		Redaction: intake.RedactionRecord{Stored: []string{}, RedactedFromLogs: intake.RedactedFromLogs},
		Decision:  intake.DecisionRejected, Reason: "refused: " + string(state),
		Provenance: intake.Provenance{Function: "drafts", Revision: "drafts-00042-kit", RequestID: hexOf("req" + seed)[:32], Time: t},
		UpdatedAt:  t, ExpireAt: t.Add(30 * 24 * time.Hour),
	})
}

// SweepRun writes one sweep run record.
func SweepRun(ctx context.Context, client *firestore.Client, r intake.SweepRun) error {
	r.ID = cmp.Or(r.ID, IDFor("sweep"+r.StartedAt.String()))
	if r.ExpireAt.IsZero() {
		r.ExpireAt = r.StartedAt.Add(90 * 24 * time.Hour)
	}
	_, err := client.Collection(firestorestore.SweepRuns).Doc(r.ID).Set(ctx, r)
	return err
}
