// Package intakeflow is the intake's application service: it takes a
// decoded draft through the check chain, keeps it with its evidence in one
// store call, answers honeypots with decoys, replays idempotent retries, and
// revises, confirms and withdraws, leaving a ledger entry for every
// decision. It speaks domain types only. README.md has the rules.
package intakeflow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/ownersite/introductions/shared/spamsignals"
)

// Rate-limit layers of the authoritative counters.
const (
	LayerIP    = "ip"
	LayerEmail = "email"
)

// FreeDrafts is how many drafts a source keeps per ip window at the base cost.
const FreeDrafts = 3

// Deps is what the service needs; New refuses a missing one.
type Deps struct {
	Store   intake.Store
	Reviser Reviser
	Forms   *formregistry.Registry
	// Chain is the checks a draft passes, in order; without it Draft refuses.
	Chain checks.Chain
	Flood *floodlimit.Limiter
	// Pepper (at least 32 bytes, never rotated) keys the hashes that name
	// sources, emails and Idempotency-Keys, and marks decoys.
	Pepper    []byte
	Clock     intake.Clock
	Entropy   io.Reader // crypto/rand.Reader in production
	Logger    *slog.Logger
	Retention intake.Retention
	// IPLimit and EmailLimit are the authoritative limits per window.
	IPLimit    intake.RateRule
	EmailLimit intake.RateRule
	// Escalation is the work a source owes by its ip counter; zero: the base cost.
	Escalation intake.Escalation
	// Function and Revision name the code in the ledger's provenance.
	Function string
	Revision string
	// Attacher and Files keep attachments, at most AttachmentMaxBytes each;
	// without them Attach and Detach are INTERNAL.
	Attacher           intake.Attacher
	Files              attachment.Files
	AttachmentMaxBytes int64
	// Handoff writes and sends the outbox; without it Confirm and Withdraw
	// are INTERNAL.
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
	d.IPLimit.Layer, d.EmailLimit.Layer, d.Escalation.Layer = LayerIP, LayerEmail, LayerIP
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
	now := s.Clock.Now()
	entry := s.newEntry(req.RequestID, now)
	entry.FormID, entry.FormVersion = req.Submission.FormID, req.Submission.FormVersion
	keys := s.keysOf(req)
	clientKey := keys.client
	version, sub, err := s.resolve(req)
	if err != nil {
		return nil, s.tally(tallyKey{source: clientKey}, now, err, nil, moveDraft)
	}
	req.Submission = sub
	if req.IdempotencyKey != "" {
		entry.IdempotencyKeyHash = keys.idempotency
		if !s.claim(entry.IdempotencyKeyHash) {
			s.Logger.InfoContext(ctx, "draft refused", slog.String("code", string(intake.CodeIdempotencyInFlight)), slog.String("idempotencyKeyHash", entry.IdempotencyKeyHash))
			return nil, intake.Errorf(intake.CodeIdempotencyInFlight, "The same draft is still being kept; try again in a moment.")
		}
		defer func() { s.mu.Lock(); delete(s.inFlight, entry.IdempotencyKeyHash); s.mu.Unlock() }()
	}
	entry.Lang = version.Lang
	entry.Purposes = purposesOf(version)

	a := &checks.Attempt{Now: now, Form: version, Submission: sub, ClientKey: clientKey, EmailKey: keys.email}
	err = s.Chain.Run(ctx, a)
	entry.RateLimits = a.RateDecisions
	entry.Abuse = intake.AbuseRecord{State: a.Abuse, Signals: a.Signals}
	switch {
	case err != nil && a.Abuse == intake.AbuseRateLimited:
		return nil, s.tally(tallyKey{source: clientKey}, now, err, a.Signals, moveDraft) // the chain's first check: nothing else ran
	case a.Abuse == intake.AbuseContentRejected:
		// The content rules run third: a refusal before them leaves validity UNKNOWN.
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationFail, Codes: fieldCodes(intake.AsError(err))}
	case a.Abuse == intake.AbusePowFailed:
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}}
	}
	if err != nil {
		return nil, s.refuse(ctx, entry, err)
	}
	return s.keep(ctx, entry, a, version, req, keys)
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

func (s *Service) keep(ctx context.Context, entry intake.LedgerEntry, a *checks.Attempt, version *formregistry.Version, req DraftRequest, keys draftKeys) (*Draft, error) {
	now, kept := a.Now, a.Submission
	id, token, sealed, err := s.newIdentity(a.Honeypot, req.IdempotencyKey)
	if err != nil {
		return nil, intake.Internal(err)
	}
	consents, purposes := contentrules.Evidence(version, kept, now, WithdrawalPath(id))
	in := intake.Introduction{
		ID: id, State: intake.StateDraft, FormID: version.FormID, FormVersion: version.Version, Lang: version.Lang,
		Fields: kept.Fields, Added: kept.Added, HasConversation: kept.Conversation != "", Consents: consents,
		// Firestore keeps times to the microsecond: the answer says what was kept.
		TokenHash: intake.HashToken(token), CreatedAt: now.Truncate(time.Microsecond), ExpireAt: now.Add(s.Retention.Draft).Truncate(time.Microsecond),
		SubjectKey: contentrules.SubjectKey(kept.Fields.Email),
	}
	entry.ID, entry.SubmissionID = id, id
	entry.Validation = intake.ValidationRecord{Result: intake.ValidationPass, Codes: []intake.Code{}}
	entry.Purposes, entry.Consents, entry.WithdrawalPath = purposes, consents, WithdrawalPath(id)
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
	if keys.message != "" && !a.Honeypot {
		k.Repeat = &intake.RepeatCheck{MessageHash: keys.message, SenderHash: keys.sender,
			Window: spamsignals.RepeatWindow * time.Second, Signal: spamsignals.RepeatedMessage, LikelyIfRepeated: spamsignals.Likely(append(spam, spamsignals.RepeatedMessage))}
	}
	if a.Honeypot {
		k = s.decoyKeeping(k, a)
	}
	fingerprint := fingerprintOf(req.Submission)
	if req.IdempotencyKey != "" {
		k.Idempotency = &intake.IdempotencyRecord{KeyHash: entry.IdempotencyKeyHash, Fingerprint: fingerprint,
			IntroductionID: id, SealedToken: sealed, ExpireAt: in.ExpireAt, Decoy: k.Decoy}
	}

	out, err := s.Store.KeepDraft(ctx, k)
	if out.Replay != nil {
		return s.replay(ctx, entry, out.Replay, fingerprint, req.IdempotencyKey, version, kept)
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
			return nil, err // unavailable or internal: nothing was kept, and the ledger cannot be written either
		}
		return nil, s.refuse(ctx, entry, err)
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

func (s *Service) replay(ctx context.Context, entry intake.LedgerEntry, r *intake.Replay, fingerprint, key string, version *formregistry.Version, kept intake.Submission) (*Draft, error) {
	conversation := kept.Conversation
	if r.Record.Fingerprint != fingerprint {
		entry.ID, entry.SubmissionID = "", ""
		entry.Consents, entry.WithdrawalPath, entry.Redaction.Stored = nil, "", nil
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{intake.CodeIdempotencyKeyReused}}
		return nil, s.refuse(ctx, entry, intake.Errorf(intake.CodeIdempotencyKeyReused, "This Idempotency-Key was used for a different draft."))
	}
	token, err := unseal(key, r.Record.SealedToken)
	if err != nil {
		return nil, intake.Internal(err)
	}
	s.Logger.InfoContext(ctx, "draft replayed", slog.String("submissionId", r.Introduction.ID), slog.String("idempotencyKeyHash", entry.IdempotencyKeyHash))
	if r.Record.Decoy {
		// A decoy kept no content: the same body gives the same answer.
		in := r.Introduction
		in.Fields, in.Added, in.HasConversation, in.Lang = kept.Fields, kept.Added, kept.Conversation != "", version.Lang
		in.Consents, _ = contentrules.Evidence(version, kept, in.CreatedAt, WithdrawalPath(in.ID))
		r.Introduction = in
	}
	if !r.Introduction.HasConversation {
		conversation = ""
	}
	return &Draft{Introduction: r.Introduction, Conversation: conversation, Token: token, Replayed: true}, nil
}

// refuse records a refused attempt and returns the refusal, or UNAVAILABLE
// when the ledger cannot be written: no decision goes unrecorded.
func (s *Service) refuse(ctx context.Context, entry intake.LedgerEntry, refusal error) error {
	code := intake.CodeOf(refusal)
	if entry.Validation.Result == "" {
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{}}
	}
	if entry.Abuse.State == "" {
		entry.Abuse = intake.AbuseRecord{State: intake.AbuseClean, Signals: []string{}}
	}
	if err := s.record(ctx, entry, intake.DecisionRejected, "refused: "+string(code)); err != nil {
		return err
	}
	return refusal
}

func (s *Service) record(ctx context.Context, entry intake.LedgerEntry, d intake.Decision, reason string) error {
	id, err := s.newID()
	if err != nil {
		return intake.Internal(err)
	}
	entry.ID = id
	entry.Decision, entry.Reason = d, reason
	entry.Retention = intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: entry.Provenance.Time.Add(s.Retention.RejectedAttempt)}
	entry.ExpireAt = entry.Retention.DeleteAfter
	if err := s.Store.RecordAttempt(ctx, entry); err != nil {
		return err
	}
	s.Logger.InfoContext(ctx, "draft refused", slog.String("ledgerId", id), slog.String("decision", string(d)),
		slog.String("reason", reason), slog.String("abuse", string(entry.Abuse.State)))
	return nil
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

func (s *Service) claim(keyHash string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	claimed := !s.inFlight[keyHash]
	s.inFlight[keyHash] = true
	return claimed
}

func purposesOf(v *formregistry.Version) []intake.PurposeRecord {
	out := make([]intake.PurposeRecord, 0, len(v.Purposes))
	for _, p := range v.Purposes {
		out = append(out, intake.PurposeRecord{ID: p.ID, Basis: p.Basis, Required: p.Required, Granted: p.Required})
	}
	return out
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

// resolve checks the Idempotency-Key and reads the form version as shown
// and the members it adds.
func (s *Service) resolve(req DraftRequest) (*formregistry.Version, intake.Submission, error) {
	if req.IdempotencyKeyMalformed || req.IdempotencyKey != "" && (len(req.IdempotencyKey) < 8 || len(req.IdempotencyKey) > 255 ||
		strings.ContainsFunc(req.IdempotencyKey, func(r rune) bool { return r < 0x21 || r > 0x7e })) {
		return nil, intake.Submission{}, intake.Errorf(intake.CodeIdempotencyKeyInvalid, "The Idempotency-Key header must be 8 to 255 visible ASCII characters.")
	}
	sub := req.Submission
	version, err := s.Forms.Version(sub.FormID, sub.FormVersion)
	if err == nil {
		version, err = version.Shown(sub.Lang)
	}
	if err == nil {
		sub, err = readMembers(version, sub, req.Members)
	}
	return version, sub, err
}

// readMembers reads into sub v's added fields (FIELD_INVALID when not
// text) and honeypot (any value but "" fills it); an unknown member is
// UNREADABLE_BODY.
func readMembers(v *formregistry.Version, sub intake.Submission, members map[string]json.RawMessage) (intake.Submission, error) {
	var errs []intake.FieldError
	for _, name := range v.AddedFields() {
		raw, ok := members[name]
		var text string
		switch {
		case !ok || string(raw) == "null":
		case json.Unmarshal(raw, &text) != nil:
			errs = append(errs, intake.FieldError{Field: name, Code: intake.CodeFieldInvalid, Detail: "Must be text."})
		default:
			if sub.Added == nil {
				sub.Added = map[string]string{}
			}
			sub.Added[name] = text
		}
	}
	for name, raw := range members {
		if v.Honeypot != "" && name == v.Honeypot {
			if json.Unmarshal(raw, &sub.Honeypot) != nil {
				sub.Honeypot = string(raw)
			}
		} else if f, ok := v.Field(name); !ok || !f.Added() {
			return intake.Submission{}, intake.Errorf(intake.CodeUnreadableBody, "The body has a member this form does not know.")
		}
	}
	if len(errs) > 0 {
		return intake.Submission{}, intake.Invalid(errs...)
	}
	return sub, nil
}

// fingerprintOf identifies a draft body for Idempotency-Key reuse.
func fingerprintOf(sub intake.Submission) string {
	b, _ := json.Marshal(sub)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
