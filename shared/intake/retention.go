package intake

import "time"

// Retention is how long each class of record is kept. Every kept
// document carries the resulting expiry; code treats expireAt <= now as gone.
type Retention struct {
	// Draft is how long an unconfirmed draft lives (30 minutes).
	Draft time.Duration
	// Introduction is how long a confirmed introduction, its transcript and
	// its consent evidence are kept after confirmation (180 days).
	Introduction time.Duration
	// RejectedAttempt is how long the content-free ledger entry of a
	// rejected attempt is kept (30 days).
	RejectedAttempt time.Duration
}

// DefaultRetention is the retention the service ships with.
var DefaultRetention = Retention{
	Draft:           30 * time.Minute,
	Introduction:    180 * 24 * time.Hour,
	RejectedAttempt: 30 * 24 * time.Hour,
}

// Hard caps the store re-checks before writing, whatever a form version
// allows: a form version's limits must stay within them.
const (
	MaxStoredShortField   = 200   // name, company, role (characters)
	MaxStoredEmail        = 254   // characters
	MaxStoredMessage      = 8000  // characters
	MaxStoredConversation = 12000 // characters
	// MaxStoredAdded caps a field a form version adds (characters), and
	// MaxStoredAddedFields how many a submission may carry.
	MaxStoredAdded       = 2000
	MaxStoredAddedFields = 8
	// MaxStoredLinks caps the links in a message, a transcript and a field
	// a version adds, as textrules.CountLinks counts them.
	MaxStoredLinks = 3
)

// PointInTimeRecoveryWindow is how long the database's point-in-time
// recovery keeps a copy of each record after it is deleted (Firestore's
// fixed seven days, on in infra/).
const PointInTimeRecoveryWindow = 7 * 24 * time.Hour
