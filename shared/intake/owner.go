package intake

import "time"

// Record is everything held about one introduction, as the owner's admin
// shows it and a data subject's access request exports it: the
// introduction, the conversation as the visitor sent it ("" when none), its
// ledger entry and the envelopes that hand it on.
type Record struct {
	Introduction Introduction
	Conversation string
	Ledger       LedgerEntry
	Envelopes    []Envelope
}

// ListPosition is where a page of the owner's list ends: the confirmation
// time and id of its last introduction. The next page starts after it.
type ListPosition struct {
	ConfirmedAt time.Time
	ID          string
}

// Admin actions recorded in a ledger entry's AdminActions.
const (
	ActionHandled = "handled"
	ActionRetry   = "retry-delivery"
	ActionErased  = "erased"
	// ActionMarkedSpam and ActionMarkedNotSpam record the owner's word on
	// an introduction; ActionErasedSpam the bulk erasure of what the owner
	// marked spam.
	ActionMarkedSpam    = "marked-spam"
	ActionMarkedNotSpam = "marked-not-spam"
	ActionErasedSpam    = "erased-spam"
)

// ReasonErased is the ledger reason of an introduction erased on its data
// subject's request.
const ReasonErased = "erased on the data subject's request; content gone"

// ReasonErasedSpam is the ledger reason of an introduction erased with
// everything else the owner marked spam.
const ReasonErasedSpam = "erased as spam by the owner; content gone"

// ErasureReasonSpam is the ErasureRecord reason of the owner's bulk
// erasure of what they marked spam.
const ErasureReasonSpam = "the owner's erasure of what they marked spam"

// SchedulerStatus is how the Cloud Scheduler job that calls the sweep
// stands: its schedule and time zone, its state (ENABLED, PAUSED, …), when
// it last attempted a run and that attempt's status (OK or a gRPC code
// name; "" before its first attempt).
type SchedulerStatus struct {
	Job         string
	Schedule    string
	TimeZone    string
	State       string
	LastAttempt time.Time
	LastStatus  string
}
