package intake

import (
	_ "embed"
	"slices"
	"time"
)

// LedgerVersion names the shape of LedgerEntry.
const LedgerVersion = "intake-ledger/v1"

// Validation is the outcome of the content, form and consent rules.
type Validation string

// Validation outcomes. Missing evidence is UNKNOWN, never PASS.
const (
	ValidationPass    Validation = "PASS"
	ValidationFail    Validation = "FAIL"
	ValidationUnknown Validation = "UNKNOWN"
)

// AbuseState is what the intake concluded about the attempt.
type AbuseState string

// The abuse states.
const (
	AbuseClean           AbuseState = "CLEAN"
	AbuseHoneypot        AbuseState = "HONEYPOT"
	AbuseContentRejected AbuseState = "CONTENT_REJECTED"
	AbusePowFailed       AbuseState = "POW_FAILED"
	AbuseRateLimited     AbuseState = "RATE_LIMITED"
)

// Decision is the ledger's verdict on a submission.
type Decision string

// The decisions: a kept draft AWAITING_CONFIRMATION, a confirmed one HANDOFF_PENDING until its
// evidence closes, a draft never confirmed EXPIRED.
const (
	DecisionAwaitingConfirmation Decision = "AWAITING_CONFIRMATION"
	DecisionExpired              Decision = "EXPIRED"
	DecisionHandoffPending       Decision = "HANDOFF_PENDING"
	DecisionHandoffComplete      Decision = "HANDOFF_COMPLETE"
	DecisionRejected             Decision = "REJECTED"
	DecisionWithdrawn            Decision = "WITHDRAWN"
	DecisionRepairNeeded         Decision = "REPAIR_NEEDED"
)

// RateVerdict is one rate-limit layer's answer.
type RateVerdict string

// The rate-limit verdicts.
const (
	RateAllow RateVerdict = "ALLOW"
	RateBlock RateVerdict = "BLOCK"
)

// RateDecision records one layer's decision on one keyed hash.
type RateDecision struct {
	Layer         string      `json:"layer" firestore:"layer"`
	KeyHash       string      `json:"keyHash" firestore:"keyHash"`
	WindowSeconds int64       `json:"windowSeconds" firestore:"windowSeconds"`
	Count         int         `json:"count" firestore:"count"`
	Limit         int         `json:"limit" firestore:"limit"`
	Decision      RateVerdict `json:"decision" firestore:"decision"`
}

// PurposeRecord is one purpose, its basis, and whether this submission carries data for it.
type PurposeRecord struct {
	ID       string `json:"id" firestore:"id"`
	Basis    Basis  `json:"basis" firestore:"basis"`
	Required bool   `json:"required" firestore:"required"`
	Granted  bool   `json:"granted" firestore:"granted"`
}

// ValidationRecord is the validation verdict with the codes behind it.
type ValidationRecord struct {
	Result Validation `json:"result" firestore:"result"`
	Codes  []Code     `json:"codes" firestore:"codes"`
}

// AbuseRecord is the abuse state, the signals' names behind it, the likely-spam verdict and
// the reported solve.
type AbuseRecord struct {
	State      AbuseState   `json:"state" firestore:"state"`
	Signals    []string     `json:"signals" firestore:"signals"`
	LikelySpam bool         `json:"likelySpam" firestore:"likelySpam"`
	Solve      *SolveRecord `json:"solve,omitempty" firestore:"solve,omitempty"`
}

// SolveRecord is one solve's telemetry: its SolveBucket, workers and max number.
type SolveRecord struct {
	Millis    int64 `json:"millis" firestore:"millis"`
	Workers   int   `json:"workers" firestore:"workers"`
	MaxNumber int64 `json:"maxNumber" firestore:"maxNumber"`
}

// RetentionRecord is the entry's own retention; DeleteAfter equals the entry's ExpireAt.
type RetentionRecord struct {
	Class       string    `json:"class" firestore:"class"`
	DeleteAfter time.Time `json:"deleteAfter" firestore:"deleteAfter"`
}

// RedactionRecord says what the intake stored and what it kept out of logs.
type RedactionRecord struct {
	Stored           []string `json:"stored" firestore:"stored"`
	RedactedFromLogs []string `json:"redactedFromLogs" firestore:"redactedFromLogs"`
}

// Provenance says which code made the decision, where and when.
type Provenance struct {
	Function  string    `json:"function" firestore:"function"`
	Revision  string    `json:"revision" firestore:"revision"`
	RequestID string    `json:"requestId" firestore:"requestId"`
	Time      time.Time `json:"time" firestore:"time"`
}

// HandoffRecord is the ledger's content-free view of one envelope.
type HandoffRecord struct {
	EnvelopeID    string         `json:"envelopeId" firestore:"envelopeId"`
	Destination   Destination    `json:"destination" firestore:"destination"`
	Event         string         `json:"event" firestore:"event"`
	Status        DeliveryStatus `json:"status" firestore:"status"`
	Attempts      int            `json:"attempts" firestore:"attempts"`
	NextAttemptAt time.Time      `json:"nextAttemptAt,omitzero" firestore:"nextAttemptAt"`
	LastError     string         `json:"lastError,omitempty" firestore:"lastError"`
	// PayloadSHA256 is the envelope's binding of what it sends.
	PayloadSHA256 string `json:"payloadSha256,omitempty" firestore:"payloadSha256,omitempty"`
}

// WithdrawalRecord says when a confirmed introduction was withdrawn and where it had reached.
type WithdrawalRecord struct {
	At                 time.Time     `json:"at" firestore:"at"`
	AlreadyDeliveredTo []Destination `json:"alreadyDeliveredTo" firestore:"alreadyDeliveredTo"`
}

// ErasureRecord is an erasure's tombstone: when, on whose request and why.
type ErasureRecord struct {
	At          time.Time `json:"at" firestore:"at"`
	RequestedBy string    `json:"requestedBy" firestore:"requestedBy"`
	Reason      string    `json:"reason" firestore:"reason"`
}

// AdminAction records one action of the owner on a submission, content-free.
type AdminAction struct {
	At     time.Time `json:"at" firestore:"at"`
	Actor  string    `json:"actor" firestore:"actor"`
	Action string    `json:"action" firestore:"action"`
	Target string    `json:"target,omitempty" firestore:"target"`
}

// DecoyRecord is a honeypot decoy's state, so it answers as a real draft would on every
// instance.
type DecoyRecord struct {
	DraftExpireAt time.Time `json:"draftExpireAt" firestore:"draftExpireAt"`
	ConfirmedAt   time.Time `json:"confirmedAt,omitzero" firestore:"confirmedAt"`
	WithdrawnAt   time.Time `json:"withdrawnAt,omitzero" firestore:"withdrawnAt"`
}

// RefusalCount is what an aggregated entry stands for: the requests refused before the check
// chain from one keyed source in one window, or one draft's revisions refused by the content
// rules, recorded once with a count. KeyHash is "" on an entry that sums Sources sources past
// the per-window bound.
type RefusalCount struct {
	KeyHash       string    `json:"keyHash" firestore:"keyHash"`
	Sources       int       `json:"sources" firestore:"sources"`
	WindowStart   time.Time `json:"windowStart" firestore:"windowStart"`
	WindowSeconds int64     `json:"windowSeconds" firestore:"windowSeconds"`
	Count         int       `json:"count" firestore:"count"`
	Codes         []Code    `json:"codes" firestore:"codes"`
	// Moves names what was refused: "draft", "confirmation", "withdrawal", "revision".
	Moves []string `json:"moves" firestore:"moves"`
}

// LedgerEntry is the auditable record one intake attempt leaves: ids, hashed keys, codes and
// decisions, never the visitor's words. Handoffs mirrors its envelopes' status.
type LedgerEntry struct {
	ID          string `json:"id" firestore:"-"`
	Version     string `json:"version" firestore:"version"`
	FormID      string `json:"formId" firestore:"formId"`
	FormVersion string `json:"formVersion" firestore:"formVersion"`
	// Lang is the language the form was shown in; empty when unknown.
	Lang               string            `json:"lang,omitempty" firestore:"lang,omitempty"`
	SubmissionID       string            `json:"submissionId" firestore:"submissionId"`
	IdempotencyKeyHash string            `json:"idempotencyKeyHash" firestore:"idempotencyKeyHash"`
	Validation         ValidationRecord  `json:"validation" firestore:"validation"`
	Purposes           []PurposeRecord   `json:"purposes" firestore:"purposes"`
	Consents           []ConsentEvidence `json:"consents" firestore:"consents"`
	WithdrawalPath     string            `json:"withdrawalPath" firestore:"withdrawalPath"`
	Retention          RetentionRecord   `json:"retention" firestore:"retention"`
	RateLimits         []RateDecision    `json:"rateLimits" firestore:"rateLimits"`
	Abuse              AbuseRecord       `json:"abuse" firestore:"abuse"`
	Redaction          RedactionRecord   `json:"redaction" firestore:"redaction"`
	Handoffs           []HandoffRecord   `json:"handoffs" firestore:"handoffs"`
	Withdrawal         *WithdrawalRecord `json:"withdrawal,omitempty" firestore:"withdrawal,omitempty"`
	Erasure            *ErasureRecord    `json:"erasure,omitempty" firestore:"erasure,omitempty"`
	AdminActions       []AdminAction     `json:"adminActions,omitempty" firestore:"adminActions,omitempty"`
	Revisions          int               `json:"revisions" firestore:"revisions"`
	Refusals           *RefusalCount     `json:"refusals,omitempty" firestore:"refusals,omitempty"`
	Decoy              *DecoyRecord      `json:"decoy,omitempty" firestore:"decoy,omitempty"`
	// Attachment is the attached file's evidence; nil when none.
	Attachment *AttachmentEvidence `json:"attachment,omitempty" firestore:"attachment,omitempty"`
	// ConfirmedAt is when the visitor confirmed; zero if never.
	ConfirmedAt time.Time  `json:"confirmedAt,omitzero" firestore:"confirmedAt,omitempty"`
	Decision    Decision   `json:"decision" firestore:"decision"`
	Reason      string     `json:"reason" firestore:"reason"`
	Provenance  Provenance `json:"provenance" firestore:"provenance"`
	UpdatedAt   time.Time  `json:"updatedAt" firestore:"updatedAt"`
	ExpireAt    time.Time  `json:"expireAt" firestore:"expireAt"`
}

// StoredAttachment is the name RedactionRecord.Stored gives a held file.
const StoredAttachment = "attachment"

// RecordAttachment makes the entry say what it holds of attachment a (nil for none), granting
// purpose exactly while a file is held or the purpose is required.
func (e *LedgerEntry) RecordAttachment(purpose string, a *Attachment) {
	e.Attachment = a.Evidence()
	e.Redaction.Stored = withStored(e.Redaction.Stored, StoredAttachment, a != nil)
	e.Purposes = GrantAttachment(e.Purposes, purpose, a != nil)
}

// withStored returns stored with name in it exactly when held.
func withStored(stored []string, name string, held bool) []string {
	out := slices.DeleteFunc(append([]string{}, stored...), func(s string) bool { return s == name })
	if held {
		out = append(out, name)
	}
	return out
}

// GrantAttachment returns purposes with purpose granted exactly when attached or required.
func GrantAttachment(purposes []PurposeRecord, purpose string, attached bool) []PurposeRecord {
	out := make([]PurposeRecord, len(purposes))
	for i, p := range purposes {
		if purpose != "" && p.ID == purpose {
			p.Granted = p.Required || attached
		}
		out[i] = p
	}
	return out
}

// The retention classes of a ledger entry.
const (
	// RetentionDraft is a kept draft's entry: deleted Retention.RejectedAttempt after the draft's
	// expiry.
	RetentionDraft = "draft"
	// RetentionIntroduction is a confirmed introduction's entry: deleted with it.
	RetentionIntroduction = "introduction"
	// RetentionRejectedEntry is an entry that kept nothing: deleted Retention.RejectedAttempt after it.
	RetentionRejectedEntry = "rejected-attempt"
)

// RedactedFromLogs lists what the service never writes to its logs.
var RedactedFromLogs = []string{"name", "company", "role", "email", "message", "conversation", "token", "clientAddress", "idempotencyKey"}

// LedgerSchema is the JSON Schema of a LedgerEntry; its $defs.envelope is an Envelope's.
//
//go:embed ledger.schema.json
var LedgerSchema []byte
