package intake

import "time"

// Retention is how long each class of record is kept; expireAt <= now is gone.
type Retention struct {
	// Draft is how long an unconfirmed draft lives (30 minutes).
	Draft time.Duration
	// Introduction keeps a confirmed introduction after confirmation.
	Introduction time.Duration
	// RejectedAttempt keeps a rejected attempt's ledger entry.
	RejectedAttempt time.Duration
}

// DefaultRetention is the retention the service ships with.
var DefaultRetention = Retention{
	Draft:           30 * time.Minute,
	Introduction:    180 * 24 * time.Hour,
	RejectedAttempt: 30 * 24 * time.Hour,
}

// Hard caps the store re-checks before writing; a form version's limits stay within them.
const (
	MaxStoredShortField   = 200   // name, company, role (characters)
	MaxStoredEmail        = 254   // characters
	MaxStoredMessage      = 8000  // characters
	MaxStoredConversation = 12000 // characters
	// MaxStoredAdded caps an added field (characters), MaxStoredAddedFields their number.
	MaxStoredAdded       = 2000
	MaxStoredAddedFields = 8
	// MaxStoredLinks caps the links textrules.CountLinks counts.
	MaxStoredLinks = 3
)

// PointInTimeRecoveryWindow is how long point-in-time recovery keeps a deleted record.
const PointInTimeRecoveryWindow = 7 * 24 * time.Hour
