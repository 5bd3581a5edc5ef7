package intake

import (
	"context"
	"strings"
	"time"
)

// Destination is where a confirmed introduction is handed on.
type Destination string

// The destinations: the admin inbox always, email and webhook when configured.
const (
	DestinationInbox   Destination = "inbox"
	DestinationEmail   Destination = "email"
	DestinationWebhook Destination = "webhook"
)

// DeliveryStatus is where one envelope's delivery stands.
//
//	PENDING → ACCEPTED → DELIVERED
//	PENDING|ACCEPTED → RETRY_PENDING → … → FAILED (after the last attempt)
//
// An acceptance (SMTP 250) is ACCEPTED; DELIVERED needs a receipt. A later bounce moves
// DELIVERED back to RETRY_PENDING or FAILED.
type DeliveryStatus string

// The delivery statuses.
const (
	DeliveryPending      DeliveryStatus = "PENDING"
	DeliveryAccepted     DeliveryStatus = "ACCEPTED"
	DeliveryDelivered    DeliveryStatus = "DELIVERED"
	DeliveryRetryPending DeliveryStatus = "RETRY_PENDING"
	DeliveryFailed       DeliveryStatus = "FAILED"
)

// The events an envelope carries.
const (
	EventConfirmed = "introduction.confirmed"
	EventWithdrawn = "introduction.withdrawn"
)

// HandoffPayloadVersion names the shape of the payload an envelope carries.
const HandoffPayloadVersion = "introduction-handoff/v1"

// DeliveryAttempt is one try at an envelope, or one provider event on it; Detail is
// content-free.
type DeliveryAttempt struct {
	At      time.Time      `json:"at" firestore:"at"`
	Outcome DeliveryStatus `json:"outcome" firestore:"outcome"`
	Detail  string         `json:"detail" firestore:"detail"`
}

// Envelope is one handoff of one submission to one destination, written with the
// confirmation before anything is sent. Its ID is stable across retries and it holds no
// content; PayloadSHA256 binds the bytes of its first send, and a retry rendering other bytes
// sends nothing.
type Envelope struct {
	ID             string            `json:"envelopeId" firestore:"-"`
	SubmissionID   string            `json:"submissionId" firestore:"submissionId"`
	Destination    Destination       `json:"destination" firestore:"destination"`
	Event          string            `json:"event" firestore:"event"`
	PayloadVersion string            `json:"payloadVersion" firestore:"payloadVersion"`
	PayloadSHA256  string            `json:"payloadSha256,omitempty" firestore:"payloadSha256"`
	Status         DeliveryStatus    `json:"status" firestore:"status"`
	Attempts       []DeliveryAttempt `json:"attempts" firestore:"attempts"`
	// NextAttemptAt is when the sweep tries again; zero when none is scheduled.
	NextAttemptAt time.Time `json:"nextAttemptAt,omitzero" firestore:"nextAttemptAt,omitempty"`
	// LeaseUntil keeps other instances from sending the envelope meanwhile.
	LeaseUntil time.Time  `json:"-" firestore:"leaseUntil,omitempty"`
	LastError  string     `json:"lastError,omitempty" firestore:"lastError"`
	Provenance Provenance `json:"provenance" firestore:"provenance"`
	CreatedAt  time.Time  `json:"createdAt" firestore:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt" firestore:"updatedAt"`
	ExpireAt   time.Time  `json:"expireAt" firestore:"expireAt"`
	// ReceivedAt is, on an introduction.withdrawn envelope, when the withdrawn introduction was
	// confirmed.
	ReceivedAt time.Time `json:"receivedAt,omitzero" firestore:"receivedAt,omitempty"`
}

// Delivery is what a Sender needs for one attempt: the envelope and, for
// introduction.confirmed, the introduction and its conversation.
type Delivery struct {
	Envelope     Envelope
	Introduction Introduction
	Conversation string
	// AdminURL is the introduction's admin page, "" when unconfigured.
	AdminURL string
	// AddedLabels are the labels, in the owner's language, of the fields the form version adds.
	AddedLabels map[string]string
	// Payload is the exact bytes to send, bound by PayloadSHA256; nil leaves rendering to Send.
	Payload []byte
}

// DeliveryResult is a Sender's verdict on one attempt, with a content-free detail and the
// wait the receiver asked for.
type DeliveryResult struct {
	Status     DeliveryStatus
	Detail     string
	RetryAfter time.Duration
}

// Sender hands envelopes to one destination. Send never returns a vendor error: a failure is
// a RETRY_PENDING or FAILED result.
type Sender interface {
	Destination() Destination
	// Payload renders the exact bytes Send sends for d; its error is content-free.
	Payload(d Delivery) ([]byte, error)
	// Send sends d.Payload (rendering it when nil).
	Send(ctx context.Context, d Delivery) DeliveryResult
}

// EnvelopeID is the derived id of a submission's event's envelope to d: the same on every
// retry.
func EnvelopeID(submissionID string, d Destination, event string) string {
	kind := "confirmed"
	if event == EventWithdrawn {
		kind = "withdrawn"
	}
	return "env_" + submissionID + "_" + string(d) + "_" + kind
}

// ProviderEventKind is what a provider's signed event says about one envelope.
type ProviderEventKind string

// The provider event kinds that move an envelope.
const (
	// ProviderDelivered is a receipt: the receiving server took the mail.
	ProviderDelivered ProviderEventKind = "delivered"
	// ProviderFailedTemporary is a failure a later attempt may overcome.
	ProviderFailedTemporary ProviderEventKind = "failed-temporary"
	// ProviderFailedPermanent is a failure no later attempt overcomes.
	ProviderFailedPermanent ProviderEventKind = "failed-permanent"
)

// ProviderEvent is one verified, content-free provider event on an envelope of Destination.
type ProviderEvent struct {
	Provider    string
	Destination Destination
	Token       string
	EnvelopeID  string
	Kind        ProviderEventKind
	Reason      string
	At          time.Time
}

// Record is the ledger's content-free mirror of the envelope.
func (e Envelope) Record() HandoffRecord {
	return HandoffRecord{
		EnvelopeID: e.ID, Destination: e.Destination, Event: e.Event, Status: e.Status,
		Attempts: e.SendAttempts(), NextAttemptAt: e.NextAttemptAt, LastError: e.LastError,
		PayloadSHA256: e.PayloadSHA256,
	}
}

// SendAttempts counts the envelope's sends, leaving out provider events.
func (e Envelope) SendAttempts() int {
	n := 0
	for _, a := range e.Attempts {
		if !strings.HasPrefix(a.Detail, ProviderEventPrefix) {
			n++
		}
	}
	return n
}

// ProviderEventPrefix starts the detail of an attempt that records a provider's event.
const ProviderEventPrefix = "provider event: "

// SetHandoff puts r into the entry's Handoffs, replacing the same envelope's record.
func (e *LedgerEntry) SetHandoff(r HandoffRecord) {
	for i := range e.Handoffs {
		if e.Handoffs[i].EnvelopeID == r.EnvelopeID {
			e.Handoffs[i] = r
			return
		}
	}
	e.Handoffs = append(e.Handoffs, r)
}
