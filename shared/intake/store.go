package intake

import (
	"context"
	"time"
)

// Submission is a decoded draft body, before any rule has looked at it.
type Submission struct {
	FormID, FormVersion string
	Lang                string // the page's; empty for the version file's own
	Fields              Fields
	Added               map[string]string // the version's fields beyond Fields, by name
	Conversation        string
	Consents            []ConsentClaim
	Honeypot            string     // the version's honeypot field
	Altcha              string     // the base64 ALTCHA v1 payload
	Page                PageReport `json:"-"` // no part of content or fingerprint
}

// PageReport is what the page says, content-free, about how the form was
// filled and solved; it only adds signals, never lowers a cost.
type PageReport struct {
	Reported    bool  // false when the draft carried no report
	FillMillis  int64 // from the form's first render to Review
	Automation  bool  // the page saw a driven or headless browser
	SolveMillis int64 // rounded to a SolveBucket
	Workers     int   // Web Workers that solved it
}

// SolveBuckets are the milliseconds a solve time is rounded down to.
var SolveBuckets = []int64{0, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000, 30000, 60000}

// SolveBucket rounds ms down to its bucket (negative is 0).
func SolveBucket(ms int64) int64 {
	b := int64(0)
	for _, v := range SolveBuckets {
		if ms >= v {
			b = v
		}
	}
	return b
}

// MaxReportedWorkers caps the worker count a report may state.
const MaxReportedWorkers = 64

// SpentChallenge is a solved challenge, remembered until it expires.
type SpentChallenge struct {
	Key       string
	ExpireAt  time.Time
	MaxNumber int64 // signed at issue
}

// IdempotencyRecord binds an Idempotency-Key (by hash) to the draft it made.
// SealedToken is the token sealed under a key derived from the
// Idempotency-Key, so the database alone never yields a usable token.
type IdempotencyRecord struct {
	KeyHash        string
	Fingerprint    string
	IntroductionID string
	SealedToken    []byte
	ExpireAt       time.Time
	Decoy          bool // the key made a honeypot's decoy
}

// DraftKeeping is everything a kept draft writes, all or nothing.
type DraftKeeping struct {
	Introduction Introduction
	Transcript   *Transcript // nil without a conversation
	Ledger       LedgerEntry
	Challenge    SpentChallenge
	Idempotency  *IdempotencyRecord
	RateKeys     []RateKey  // the authoritative limits
	Escalation   Escalation // what the source owes, counted on its layer's key
	Now          time.Time
	Repeat       *RepeatCheck // nil for a message too short to tell
	Decoy        bool         // a honeypot's decoy: no introduction nor transcript
}

// RepeatCheck names a draft's message and sender by keyed hashes; when
// another sender sent the message within Window, KeepDraft adds Signal and
// sets LikelySpam to LikelyIfRepeated.
type RepeatCheck struct {
	MessageHash      string
	SenderHash       string
	Window           time.Duration
	Signal           string
	LikelyIfRepeated bool
}

// Replay is what KeepDraft finds when the Idempotency-Key was used before.
type Replay struct {
	Record       IdempotencyRecord
	Introduction Introduction
}

// KeepOutcome reports what KeepDraft decided.
type KeepOutcome struct {
	Replay        *Replay // set, and nothing written, for a used Idempotency-Key
	RateDecisions []RateDecision
	Repeated      bool // the Repeat check fired
}

// Store keeps introductions and their evidence; its failures are *Error
// only (UNAVAILABLE with RetryAfter for an outage or contention).
type Store interface {
	// KeepDraft writes k atomically; a replay returns outcome.Replay and
	// writes nothing, as does a refusal. Errors: RATE_LIMITED, POW_SPENT,
	// POW_TOO_EASY, UNAVAILABLE.
	KeepDraft(ctx context.Context, k DraftKeeping) (KeepOutcome, error)

	// Confirm confirms c's subject, keeps it for keepFor and writes the
	// outbox (none for a decoy) and ledger entry in one atomic write; a
	// repeat returns the same introduction. Errors: NOT_FOUND, UNAVAILABLE.
	Confirm(ctx context.Context, c Claim, now time.Time, keepFor time.Duration, outbox []Envelope) (*Introduction, error)

	// Withdraw erases the content, records the withdrawal in the ledger
	// entry and writes each notice whose destination had a confirmation
	// envelope. Errors: NOT_FOUND, STATE_CONFLICT (a draft), UNAVAILABLE.
	Withdraw(ctx context.Context, c Claim, now time.Time, notices []Envelope) error

	// RecordAttempt creates the ledger entry of an attempt that kept
	// nothing; the same id again is no error. Errors: UNAVAILABLE.
	RecordAttempt(ctx context.Context, e LedgerEntry) error
}

// Clock tells the time; tests inject a fixed one.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Keyring holds the HMAC signing keys by version.
type Keyring interface {
	// Current returns the version and key new signatures use.
	Current() (version string, key []byte)
	// Key returns the key of version, or false.
	Key(version string) ([]byte, bool)
	// Versions lists every version Key knows, the current one included.
	Versions() []string
}

// Claim names a move's subject and the hash of the token presented.
// DecoyTokenHash, nil for a draft, is a decoy's own token hash, against
// which TokenHash is checked.
type Claim struct {
	ID             string
	TokenHash      []byte
	DecoyTokenHash []byte
}

// Decoy reports whether c names a honeypot's decoy.
func (c Claim) Decoy() bool { return c.DecoyTokenHash != nil }

// Attacher keeps a draft's attachment metadata and its ledger evidence.
type Attacher interface {
	// AttachableDraft returns c's live draft. Errors: NOT_FOUND,
	// STATE_CONFLICT (see AttachableBy), UNAVAILABLE.
	AttachableDraft(ctx context.Context, c Claim, now time.Time) (*Introduction, error)
	// SetAttachment sets the draft's attachment to a (nil removes it) and
	// its ledger record in one transaction, and returns the one it replaced.
	// Errors: as AttachableDraft; INTERNAL when a is not storable.
	SetAttachment(ctx context.Context, c Claim, now time.Time, a *Attachment,
		purposeOf func(formID, formVersion string) string) (previous *Attachment, err error)
}
