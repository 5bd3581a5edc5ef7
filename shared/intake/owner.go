package intake

import "time"

// Record is everything held about one introduction: it, its conversation ("" when none), its
// ledger entry and its envelopes.
type Record struct {
	Introduction Introduction
	Conversation string
	Ledger       LedgerEntry
	Envelopes    []Envelope
}

// ListPosition is where a page of the owner's list ends.
type ListPosition struct {
	ConfirmedAt time.Time
	ID          string
}

// Admin actions recorded in a ledger entry's AdminActions.
const (
	ActionHandled = "handled"
	ActionRetry   = "retry-delivery"
	ActionErased  = "erased"
	// ActionMarkedSpam and ActionMarkedNotSpam record the owner's word; ActionErasedSpam the
	// erasure of what the owner marked spam.
	ActionMarkedSpam    = "marked-spam"
	ActionMarkedNotSpam = "marked-not-spam"
	ActionErasedSpam    = "erased-spam"
	// ActionOpened records the owner's first opening of an introduction.
	ActionOpened = "opened"
)

// ReasonErased is the ledger reason of an erasure on the data subject's request.
const ReasonErased = "erased on the data subject's request; content gone"

// ReasonErasedSpam is the ledger reason of an erasure as spam.
const ReasonErasedSpam = "erased as spam by the owner; content gone"

// ErasureReasonSpam is the ErasureRecord reason of the erasure as spam.
const ErasureReasonSpam = "the owner's erasure of what they marked spam"

// SchedulerStatus is how the sweep's Cloud Scheduler job stands: schedule, time zone, state
// and its last attempt.
type SchedulerStatus struct {
	Job         string
	Schedule    string
	TimeZone    string
	State       string
	LastAttempt time.Time
	LastStatus  string
}
