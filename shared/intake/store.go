package intake

import (
	"context"
	"time"
)

// Submission is a decoded draft body, before any rule has looked at it.
type Submission struct {
	FormID      string
	FormVersion string
	// Lang is the language the page showed the form in; empty for the
	// version file's own.
	Lang   string
	Fields Fields
	// Added holds the fields the form version adds beyond Fields, by name.
	Added        map[string]string
	Conversation string
	Consents     []ConsentClaim
	// Honeypot is the value of the form version's honeypot field.
	Honeypot string
	// Altcha is the base64 ALTCHA v1 payload.
	Altcha string
	// Page is what the page reported about how it was filled and solved;
	// it is no part of the draft's content (nor of its idempotency
	// fingerprint: a retry solves again).
	Page PageReport `json:"-"`
}

// PageReport is what the page says, content-free, about how the form was
// filled and its proof of work solved. A robot can report anything, so a
// report only ever adds signals and figures: it never lowers a cost or
// skips a check.
type PageReport struct {
	// Reported is false when the draft carried no report.
	Reported bool
	// FillMillis is the time from the form's first render to Review.
	FillMillis int64
	// Automation is true when the page saw navigator.webdriver or a
	// headless browser.
	Automation bool
	// SolveMillis is how long the proof of work took, rounded to a
	// SolveBucket; Workers how many Web Workers solved it.
	SolveMillis int64
	Workers     int
}

// SolveBuckets are the durations, in milliseconds, a solve time is
// rounded to (the largest one at or below it), so the ledger keeps a
// coarse figure, not a fingerprint.
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

// SpentChallenge is a solved proof-of-work challenge, remembered until it
// expires so that no solution is spent twice.
type SpentChallenge struct {
	Key      string
	ExpireAt time.Time
	// MaxNumber is the signed max number the challenge was issued with:
	// the work its solution stands for.
	MaxNumber int64
}

// IdempotencyRecord binds an Idempotency-Key (by hash) to the draft it made.
// SealedToken is the draft's token encrypted under a key derived from the
// Idempotency-Key itself, so the database alone never yields a usable token.
type IdempotencyRecord struct {
	KeyHash        string
	Fingerprint    string
	IntroductionID string
	SealedToken    []byte
	ExpireAt       time.Time
	// Decoy is set when the key made a honeypot's decoy.
	Decoy bool
}

// DraftKeeping is everything a kept draft writes: all of it in one
// transaction, or none of it.
type DraftKeeping struct {
	Introduction Introduction
	// Transcript is nil when the visitor attached no conversation.
	Transcript  *Transcript
	Ledger      LedgerEntry
	Challenge   SpentChallenge
	Idempotency *IdempotencyRecord
	// RateKeys are the authoritative limits; each one's counter moves in
	// the same transaction.
	RateKeys []RateKey
	// Escalation is what the source owes, counted on the rate key of its
	// layer in the same transaction; zero owes nothing.
	Escalation Escalation
	Now        time.Time
	// Repeat, when set, asks whether another sender sent the same message
	// within its window; nil for a message too short to tell.
	Repeat *RepeatCheck
	// Decoy marks a honeypot's decoy: everything is written as for a real
	// draft (spent challenge, counters, idempotency record, ledger entry
	// with its DecoyRecord) except the introduction and its transcript,
	// which a decoy has none of (CheckStorableDraft refuses content).
	Decoy bool
}

// RepeatCheck names a draft's message and sender by keyed hashes. KeepDraft
// remembers the pair for Window and, when the message was seen from
// another sender within it, adds Signal to the ledger entry's signals and
// sets the entry's and the introduction's LikelySpam to LikelyIfRepeated.
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
	// Replay is set, and nothing written, when the Idempotency-Key already
	// made a live draft.
	Replay *Replay
	// RateDecisions are the authoritative layers' decisions.
	RateDecisions []RateDecision
	// Repeated says the Repeat check found the message from another
	// sender.
	Repeated bool
}

// Store keeps introductions and their evidence. Implementations translate
// their own failures into *Error: CodeUnavailable (with RetryAfter) for an
// outage or contention, never a vendor error.
type Store interface {
	// KeepDraft writes a draft, its transcript, the spent challenge, the
	// idempotency record, the rate counters and the ledger entry atomically.
	// Errors: RATE_LIMITED (outcome.RateDecisions says which layer), POW_SPENT,
	// POW_TOO_EASY (the challenge's max number is below what k.Escalation
	// says the source owes: RequiredMaxNumber), UNAVAILABLE. On a replay, and
	// on any refusal, it writes nothing; a replay returns outcome.Replay.
	KeepDraft(ctx context.Context, k DraftKeeping) (KeepOutcome, error)

	// Confirm applies the confirm move to c's subject with one conditional
	// update, binds the consent evidence to the confirm step, moves the
	// retention to keepFor from now, writes the outbox (one Envelope per
	// destination, bound to the submission and kept as long as it; none for
	// a decoy) and updates the ledger entry, all in one atomic write. A
	// repeat by the token holder returns the same introduction unchanged and
	// writes nothing. Errors: NOT_FOUND (unknown id, expired draft, or wrong
	// token alike), UNAVAILABLE.
	Confirm(ctx context.Context, c Claim, now time.Time, keepFor time.Duration, outbox []Envelope) (*Introduction, error)

	// Withdraw erases the introduction and its transcript (a decoy's file)
	// and records the withdrawal in the ledger entry without content,
	// naming the destinations the content had already reached; it writes
	// each notice (an introduction.withdrawn Envelope) whose destination had
	// an envelope of the confirmation. Errors: NOT_FOUND, STATE_CONFLICT (a
	// draft cannot be withdrawn), UNAVAILABLE.
	Withdraw(ctx context.Context, c Claim, now time.Time, notices []Envelope) error

	// RecordAttempt creates the ledger entry of an attempt that kept
	// nothing; writing the same id again is no error. Errors: UNAVAILABLE.
	RecordAttempt(ctx context.Context, e LedgerEntry) error
}

// Clock tells the time; tests inject a fixed one.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Keyring holds the HMAC keys the service signs with, by version, so that a
// rotation does not fail what was signed before it.
type Keyring interface {
	// Current returns the version and key new signatures use.
	Current() (version string, key []byte)
	// Key returns the key of version, and false when it is not known here.
	Key(version string) ([]byte, bool)
	// Versions lists every version Key knows, the current one included.
	Versions() []string
}

// Claim names the subject of a move (confirm, revise, withdraw, attach)
// and what its holder presents: the id and the hash of the token. A
// honeypot's decoy keeps no token hash: DecoyTokenHash is the hash of its
// own token, against which the presented one is checked as a draft's is;
// nil for a draft. A store moves a decoy's content-free ledger entry as it
// moves a draft, with the same reads and writes.
type Claim struct {
	ID             string
	TokenHash      []byte
	DecoyTokenHash []byte
}

// Decoy reports whether c names a honeypot's decoy.
func (c Claim) Decoy() bool { return c.DecoyTokenHash != nil }

// Attacher keeps a draft's attachment (firestorestore's intake store is
// one): the metadata on the draft and its evidence in the ledger entry. A
// decoy keeps a (with no object, CheckStorableDecoyAttachment) for its
// answers only until its draft would have expired or it is withdrawn, and
// its ledger entry a's type and size.
type Attacher interface {
	// AttachableDraft returns c's live draft, before any byte of a file is
	// read. Errors: NOT_FOUND, STATE_CONFLICT (see AttachableBy),
	// UNAVAILABLE.
	AttachableDraft(ctx context.Context, c Claim, now time.Time) (*Introduction, error)
	// SetAttachment sets the draft's attachment to a (nil removes it) and
	// its ledger entry's record of it with it (LedgerEntry.RecordAttachment,
	// the purpose being purposeOf the draft's form version), in one
	// transaction that checks AttachableBy again, and returns the
	// attachment it replaced (nil for none). Errors: as AttachableDraft,
	// INTERNAL when a is not storable; nothing is written then.
	SetAttachment(ctx context.Context, c Claim, now time.Time, a *Attachment,
		purposeOf func(formID, formVersion string) string) (previous *Attachment, err error)
}
