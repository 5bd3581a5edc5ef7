// Package intakeflow is the intake's application service: it takes a
// decoded draft through the check chain, keeps it with its evidence in one
// store call, answers honeypots with decoys, replays idempotent retries, and
// revises, confirms and withdraws, leaving a ledger entry for every
// decision. It speaks domain types only. README.md has the rules.
package intakeflow

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
)

// FreeDrafts is how many drafts a source keeps per ip window at the base cost.
const FreeDrafts = 3

// Deps is what the service needs; New refuses a missing one.
type Deps struct {
	// Where drafts and introductions are kept.
	Store     intake.Store
	Reviser   Reviser
	Retention intake.Retention

	// What a draft must pass: its form, the checks in order (without them
	// Draft refuses), the flood layer, the authoritative limits per window
	// and the work a source owes by its ip counter (zero: the base cost).
	Forms               *formregistry.Registry
	Chain               checks.Chain
	Flood               *floodlimit.Limiter
	IPLimit, EmailLimit intake.RateRule
	Escalation          intake.Escalation

	// Pepper (at least 32 bytes, never rotated) keys the hashes that name
	// sources, emails and Idempotency-Keys, and marks decoys.
	Pepper  []byte
	Clock   intake.Clock
	Entropy io.Reader // crypto/rand.Reader in production
	Logger  *slog.Logger
	// Function and Revision name the code in the ledger's provenance.
	Function, Revision string

	// Attacher and Files keep attachments, at most AttachmentMaxBytes each;
	// without them Attach and Detach are INTERNAL.
	Attacher           intake.Attacher
	Files              attachment.Files
	AttachmentMaxBytes int64
	// Handoff writes and sends the outbox; without it Confirm and Withdraw are INTERNAL.
	Handoff Handoff
}

// Handoff is what the service needs of the delivery service.
type Handoff interface {
	// Outbox returns an event's envelopes, one per destination.
	Outbox(submissionID, event string, prov intake.Provenance) []intake.Envelope
	// Dispatch sends written envelopes in the background.
	Dispatch(envelopeIDs []string)
}

// Service is safe for concurrent use.
type Service struct {
	Deps

	mu       sync.Mutex
	inFlight map[string]bool

	// refusals counts refusals before the chain; flushing is held by their
	// one writer, flushes waits for it.
	refusals refusalTally
	flushing sync.Mutex
	flushes  sync.WaitGroup
}

// New returns a service, or an error naming every missing dependency.
func New(d Deps) (*Service, error) {
	var missing []error
	checks := map[string]bool{
		"Store": d.Store != nil, "Reviser": d.Reviser != nil, "Forms": d.Forms != nil, "Flood": d.Flood != nil,
		"Pepper": len(d.Pepper) >= keyring.MinKeyLen, "Clock": d.Clock != nil, "Entropy": d.Entropy != nil, "Logger": d.Logger != nil,
		"Retention":  d.Retention.Draft > 0 && d.Retention.Introduction > 0 && d.Retention.RejectedAttempt > 0,
		"IPLimit":    d.IPLimit.Limit > 0 && d.IPLimit.Window > 0,
		"EmailLimit": d.EmailLimit.Limit > 0 && d.EmailLimit.Window > 0,
	}
	for _, name := range slices.Sorted(maps.Keys(checks)) {
		if !checks[name] {
			missing = append(missing, errors.New("intakeflow: missing or invalid "+name))
		}
	}
	if err := errors.Join(missing...); err != nil {
		return nil, err
	}
	d.IPLimit.Layer, d.EmailLimit.Layer, d.Escalation.Layer = "ip", "email", "ip" // the authoritative counters' layers
	return &Service{Deps: d, inFlight: map[string]bool{}}, nil
}

// DraftRequest is one decoded draft with where it came from.
type DraftRequest struct {
	Submission intake.Submission
	// Members are the body's members beyond the common ones (readMembers).
	Members map[string]json.RawMessage
	// Client is the client address from the trusted X-Forwarded-For position.
	Client netip.Addr
	// IdempotencyKey is the header's key, "" when absent; with
	// IdempotencyKeyMalformed (empty or repeated header) the draft is
	// refused IDEMPOTENCY_KEY_INVALID.
	IdempotencyKey          string
	IdempotencyKeyMalformed bool
	// RequestID names the request in the ledger's provenance.
	RequestID string
}

// Draft is a kept draft as the visitor sees it.
type Draft struct {
	Introduction intake.Introduction
	// Conversation is the transcript as kept, "" when none.
	Conversation string
	// Token confirms or withdraws it; only its hash is stored.
	Token string
	// Replayed is true when an Idempotency-Key retry returned an earlier draft.
	Replayed bool
}

// Confirmation is the answer to a successful confirmation.
type Confirmation struct {
	ID          string
	ConfirmedAt time.Time
	// KeptUntil is when the introduction is deleted.
	KeptUntil time.Time
}

// WithdrawalPath is where the visitor withdraws an introduction.
func WithdrawalPath(id string) string {
	return "/api/introductions/" + id + "/withdrawal"
}

// Draft takes a draft through the chain and keeps it; a honeypot gets a
// decoy success. Errors are *intake.Error: FORM_VERSION_UNKNOWN, the content
// codes, CONSENT_REQUIRED, POW_*, RATE_LIMITED, IDEMPOTENCY_*, UNAVAILABLE,
// and UNREADABLE_BODY or FIELD_INVALID for req.Members. Every refusal past
// decoding leaves a content-free ledger entry: its own for the checks' or
// the store's, a tally per source and window for one before the checks.
func (s *Service) Draft(ctx context.Context, req DraftRequest) (*Draft, error) {
	if len(s.Chain) == 0 {
		return nil, errors.New("intakeflow: this service keeps no drafts (it has no check chain)")
	}
	d, r := s.draft(ctx, req)
	if r != nil {
		return nil, s.settle(ctx, r)
	}
	return d, nil
}

// draft resolves req's form version, runs the chain and keeps the draft
// (keep), or returns how it was refused.
func (s *Service) draft(ctx context.Context, req DraftRequest) (*Draft, *refusal) {
	now := s.Clock.Now()
	entry := s.newEntry(req.RequestID, now)
	entry.FormID, entry.FormVersion = req.Submission.FormID, req.Submission.FormVersion
	key := req.IdempotencyKey
	keyInvalid := req.IdempotencyKeyMalformed || key != "" && (len(key) < 8 || len(key) > 255 ||
		strings.ContainsFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }))
	keys := s.keysOf(req)
	if keyInvalid {
		return nil, &refusal{source: keys.client, now: now,
			err: intake.Errorf(intake.CodeIdempotencyKeyInvalid, "The Idempotency-Key header must be 8 to 255 visible ASCII characters.")}
	}
	version, sub, err := s.Forms.Resolve(req.Submission, req.Members)
	if err != nil {
		return nil, &refusal{source: keys.client, now: now, err: err}
	}
	req.Submission = sub
	if key != "" {
		entry.IdempotencyKeyHash = keys.idempotency
		s.mu.Lock()
		busy := s.inFlight[keys.idempotency]
		s.inFlight[keys.idempotency] = true
		s.mu.Unlock()
		if busy {
			s.Logger.InfoContext(ctx, "draft refused", slog.String("code", string(intake.CodeIdempotencyInFlight)), slog.String("idempotencyKeyHash", keys.idempotency))
			return nil, &refusal{err: intake.Errorf(intake.CodeIdempotencyInFlight, "The same draft is still being kept; try again in a moment.")}
		}
		defer func() { s.mu.Lock(); delete(s.inFlight, keys.idempotency); s.mu.Unlock() }()
	}
	entry.Lang = version.Lang
	for _, p := range version.Purposes {
		entry.Purposes = append(entry.Purposes, intake.PurposeRecord{ID: p.ID, Basis: p.Basis, Required: p.Required, Granted: p.Required})
	}

	a := &checks.Attempt{Now: now, Form: version, Submission: sub, ClientKey: keys.client, EmailKey: keys.email}
	err = s.Chain.Run(ctx, a)
	entry.RateLimits = a.RateDecisions
	entry.Abuse = intake.AbuseRecord{State: a.Abuse, Signals: a.Signals}
	switch {
	case err != nil && a.Abuse == intake.AbuseRateLimited:
		return nil, &refusal{source: keys.client, now: now, err: err, signals: a.Signals} // the chain's first check: nothing else ran
	case a.Abuse == intake.AbuseContentRejected:
		// The content rules run third: a refusal before them leaves validity UNKNOWN.
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationFail, Codes: fieldCodes(intake.AsError(err))}
	case a.Abuse == intake.AbusePowFailed:
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}}
	}
	if err != nil {
		return nil, &refusal{entry: &entry, err: err}
	}
	// The evidence is stamped with the draft's id and time when it is kept.
	consents, purposes := contentrules.Evidence(version, a.Submission, time.Time{}, "")
	return s.keep(ctx, checked{entry: entry, a: a, version: version, req: req, keys: keys, consents: consents, purposes: purposes})
}

func (s *Service) newEntry(requestID string, now time.Time) intake.LedgerEntry {
	return intake.LedgerEntry{
		Version:    intake.LedgerVersion,
		Purposes:   []intake.PurposeRecord{},
		Consents:   []intake.ConsentEvidence{},
		RateLimits: []intake.RateDecision{},
		Redaction:  intake.RedactionRecord{Stored: []string{}, RedactedFromLogs: intake.RedactedFromLogs},
		Provenance: s.provenance(requestID, now),
		UpdatedAt:  now,
		ExpireAt:   now.Add(s.Retention.RejectedAttempt),
	}
}

func fieldCodes(e *intake.Error) []intake.Code {
	codes := make([]intake.Code, 0, len(e.Fields))
	for _, f := range e.Fields {
		codes = append(codes, f.Code)
	}
	return codes
}

func storedFields(in intake.Introduction) []string {
	out := []string{"name", "email", "message"}
	if in.Fields.Company != "" {
		out = append(out, "company")
	}
	if in.Fields.Role != "" {
		out = append(out, "role")
	}
	for _, name := range slices.Sorted(maps.Keys(in.Added)) {
		out = append(out, name)
	}
	if in.HasConversation {
		out = append(out, "conversation")
	}
	if in.Attachment != nil {
		out = append(out, intake.StoredAttachment)
	}
	return append(out, "consents", "tokenHash")
}
