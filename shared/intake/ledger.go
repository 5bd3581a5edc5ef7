package intake

import (
	_ "embed"
	"time"
)

// LedgerVersion names the shape of LedgerEntry ("Form Intake Decision Ledger
// & Handoff Envelope v1").
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

// The decisions. AWAITING_CONFIRMATION is a kept draft's; a confirmed one is
// HANDOFF_PENDING until its evidence is closed; a draft never confirmed ends
// EXPIRED.
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

// PurposeRecord is one purpose of the form version, its declared basis, and
// whether this submission carries data for it.
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

// AbuseRecord is the abuse state with the signals that led there (names
// only), whether they make the introduction likely spam, and the figures
// of its proof of work's solve as the page reported them.
type AbuseRecord struct {
	State      AbuseState   `json:"state" firestore:"state"`
	Signals    []string     `json:"signals" firestore:"signals"`
	LikelySpam bool         `json:"likelySpam" firestore:"likelySpam"`
	Solve      *SolveRecord `json:"solve,omitempty" firestore:"solve,omitempty"`
}

// SolveRecord is one solve's telemetry: its duration rounded to a
// SolveBucket, the workers the page used, and the max number of the
// challenge solved (the work it stood for).
type SolveRecord struct {
	Millis    int64 `json:"millis" firestore:"millis"`
	Workers   int   `json:"workers" firestore:"workers"`
	MaxNumber int64 `json:"maxNumber" firestore:"maxNumber"`
}

// RetentionRecord is the ledger entry's own retention: its class and when
// the entry is deleted. DeleteAfter always equals the entry's ExpireAt (the
// store refuses an entry where they differ).
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

// HandoffRecord is the ledger's content-free view of one envelope: where it
// went, how it stands, how often it was tried and when it is tried next.
type HandoffRecord struct {
	EnvelopeID    string         `json:"envelopeId" firestore:"envelopeId"`
	Destination   Destination    `json:"destination" firestore:"destination"`
	Event         string         `json:"event" firestore:"event"`
	Status        DeliveryStatus `json:"status" firestore:"status"`
	Attempts      int            `json:"attempts" firestore:"attempts"`
	NextAttemptAt time.Time      `json:"nextAttemptAt,omitzero" firestore:"nextAttemptAt"`
	LastError     string         `json:"lastError,omitempty" firestore:"lastError"`
	// PayloadSHA256 is the envelope's binding of what it sends (see
	// Envelope.PayloadSHA256), so an auditor can match a receiver's copy.
	PayloadSHA256 string `json:"payloadSha256,omitempty" firestore:"payloadSha256,omitempty"`
}

// WithdrawalRecord says when a confirmed introduction was withdrawn and to
// which destinations its content had already been delivered.
type WithdrawalRecord struct {
	At                 time.Time     `json:"at" firestore:"at"`
	AlreadyDeliveredTo []Destination `json:"alreadyDeliveredTo" firestore:"alreadyDeliveredTo"`
}

// ErasureRecord is the tombstone an erasure leaves: when, on whose request
// and why, never what was erased.
type ErasureRecord struct {
	At          time.Time `json:"at" firestore:"at"`
	RequestedBy string    `json:"requestedBy" firestore:"requestedBy"`
	Reason      string    `json:"reason" firestore:"reason"`
}

// AdminAction records one action the owner took on a submission (marked
// handled, retried a delivery, erased), content-free.
type AdminAction struct {
	At     time.Time `json:"at" firestore:"at"`
	Actor  string    `json:"actor" firestore:"actor"`
	Action string    `json:"action" firestore:"action"`
	Target string    `json:"target,omitempty" firestore:"target"`
}

// DecoyRecord is the state of a honeypot's decoy, kept in its content-free
// ledger entry so that the decoy answers confirmations and withdrawals as a
// real draft would, on every instance: when its draft would expire, and
// when it was confirmed and withdrawn (zero: not yet).
type DecoyRecord struct {
	DraftExpireAt time.Time `json:"draftExpireAt" firestore:"draftExpireAt"`
	ConfirmedAt   time.Time `json:"confirmedAt,omitzero" firestore:"confirmedAt"`
	WithdrawnAt   time.Time `json:"withdrawnAt,omitzero" firestore:"withdrawnAt"`
}

// RefusalCount is what an aggregated ledger entry stands for: the requests
// refused before the check chain (by the flood layer, by a remembered
// authoritative block, or as malformed) from one keyed source in one
// window — or the revisions of one draft from one source that the content
// rules refused in one window (the entry's SubmissionID names the draft,
// its validation is FAIL with their codes) — recorded once with a count
// rather than once per request, so a flood costs memory, not writes.
// KeyHash is "" on an entry that sums the sources past the per-window
// bound; Sources says how many it sums.
type RefusalCount struct {
	KeyHash       string    `json:"keyHash" firestore:"keyHash"`
	Sources       int       `json:"sources" firestore:"sources"`
	WindowStart   time.Time `json:"windowStart" firestore:"windowStart"`
	WindowSeconds int64     `json:"windowSeconds" firestore:"windowSeconds"`
	Count         int       `json:"count" firestore:"count"`
	Codes         []Code    `json:"codes" firestore:"codes"`
	// Moves names what was refused: "draft", "confirmation", "withdrawal",
	// "revision".
	Moves []string `json:"moves" firestore:"moves"`
}

// LedgerEntry is the auditable record one intake attempt leaves.
// It never holds the visitor's words: ids, hashed keys, codes and decisions
// only. Envelopes are kept in their own records, bound to SubmissionID;
// Handoffs mirrors each one's status here. Revisions counts how often the
// visitor revised the draft before confirming it, refused revisions
// included (their codes are in the refusal counts bound to the draft).
type LedgerEntry struct {
	ID          string `json:"id" firestore:"-"`
	Version     string `json:"version" firestore:"version"`
	FormID      string `json:"formId" firestore:"formId"`
	FormVersion string `json:"formVersion" firestore:"formVersion"`
	// Lang is the language the visitor was shown the form in, as the
	// introduction's; empty for entries that predate it and for refusals
	// before the form version was known.
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
	// Attachment is the attached file's type, size and SHA-256 (a
	// decoy's, or a withdrawn or erased introduction's: type and size);
	// nil when none is attached.
	Attachment *AttachmentEvidence `json:"attachment,omitempty" firestore:"attachment,omitempty"`
	// ConfirmedAt is when the visitor confirmed; zero for an attempt never
	// confirmed.
	ConfirmedAt time.Time  `json:"confirmedAt,omitzero" firestore:"confirmedAt,omitempty"`
	Decision    Decision   `json:"decision" firestore:"decision"`
	Reason      string     `json:"reason" firestore:"reason"`
	Provenance  Provenance `json:"provenance" firestore:"provenance"`
	UpdatedAt   time.Time  `json:"updatedAt" firestore:"updatedAt"`
	ExpireAt    time.Time  `json:"expireAt" firestore:"expireAt"`
}

// StoredAttachment is the name RedactionRecord.Stored gives a held file.
const StoredAttachment = "attachment"

// RecordAttachment makes the entry say what it holds of attachment a (nil
// for none): its evidence, "attachment" among the stored fields while a
// file is held, and purpose (the form version's attachment purpose, ""
// for none) granted exactly while a file is held or the purpose is
// required.
func (e *LedgerEntry) RecordAttachment(purpose string, a *Attachment) {
	e.Attachment = a.Evidence()
	e.Redaction.Stored = WithStored(e.Redaction.Stored, StoredAttachment, a != nil)
	e.Purposes = GrantAttachment(e.Purposes, purpose, a != nil)
}

// WithStored returns stored with name in it exactly when held.
func WithStored(stored []string, name string, held bool) []string {
	out := make([]string, 0, len(stored)+1)
	for _, s := range stored {
		if s != name {
			out = append(out, s)
		}
	}
	if held {
		out = append(out, name)
	}
	return out
}

// GrantAttachment returns purposes with the attachment's purpose granted
// exactly when a file is attached (or the purpose is required).
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
	// RetentionDraft is the entry of a kept draft: it outlives the draft by
	// the rejected-attempt period (deleted Retention.RejectedAttempt after
	// the draft's expiry), so that a draft never confirmed leaves an entry
	// that says EXPIRED for as long as a refusal's entry is kept.
	RetentionDraft = "draft"
	// RetentionIntroduction is the entry of a confirmed introduction: it is
	// deleted with the introduction, Retention.Introduction after
	// confirmation, and keeps that date when the introduction is withdrawn.
	RetentionIntroduction = "introduction"
	// RetentionRejectedEntry is the entry of an attempt that kept nothing:
	// deleted Retention.RejectedAttempt after the attempt.
	RetentionRejectedEntry = "rejected-attempt"
)

// RedactedFromLogs lists what the service never writes to its logs.
var RedactedFromLogs = []string{"name", "company", "role", "email", "message", "conversation", "token", "clientAddress", "idempotencyKey"}

// LedgerSchema is the JSON Schema (draft 2020-12) of a LedgerEntry as JSON,
// every field group documented; its $defs.envelope is an Envelope's.
//
//go:embed ledger.schema.json
var LedgerSchema []byte
