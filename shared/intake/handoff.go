package intake

import (
	"context"
	"strings"
	"time"
)

// Destination is where a confirmed introduction is handed on.
type Destination string

// The destinations. The owner's admin inbox is always one; email and webhook
// are on when configured.
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
// A provider's acceptance (SMTP 250) is ACCEPTED, never DELIVERED; DELIVERED
// needs a receipt (a webhook receiver's 2xx, a provider's signed delivery
// event). A later bounce moves DELIVERED back to RETRY_PENDING or FAILED.
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

// DeliveryAttempt is one try at delivering an envelope, or one provider
// event about it. Detail is content-free: a status code, a provider's
// reason, never the visitor's words.
type DeliveryAttempt struct {
	At      time.Time      `json:"at" firestore:"at"`
	Outcome DeliveryStatus `json:"outcome" firestore:"outcome"`
	Detail  string         `json:"detail" firestore:"detail"`
}

// Envelope is one handoff of one submission to one destination: the outbox
// record, written in the confirmation's own transaction before anything is
// sent. Its ID is stable across retries (the webhook-id, the mail's
// Message-ID). It holds no content: the payload is rendered from the stored
// introduction at send time by the destination's Sender, and PayloadSHA256
// is the hex SHA-256 of those exact bytes, written before the first send
// and the same on every retry: an attempt whose rendering differs sends
// nothing (FAILED, with both hashes). It is empty until the first send,
// and for the admin inbox, which is sent nothing.
type Envelope struct {
	ID             string            `json:"envelopeId" firestore:"-"`
	SubmissionID   string            `json:"submissionId" firestore:"submissionId"`
	Destination    Destination       `json:"destination" firestore:"destination"`
	Event          string            `json:"event" firestore:"event"`
	PayloadVersion string            `json:"payloadVersion" firestore:"payloadVersion"`
	PayloadSHA256  string            `json:"payloadSha256,omitempty" firestore:"payloadSha256"`
	Status         DeliveryStatus    `json:"status" firestore:"status"`
	Attempts       []DeliveryAttempt `json:"attempts" firestore:"attempts"`
	// NextAttemptAt is when the sweep tries again; zero when no retry is
	// scheduled.
	NextAttemptAt time.Time `json:"nextAttemptAt,omitzero" firestore:"nextAttemptAt"`
	// LeaseUntil keeps other instances from sending the envelope while one
	// is sending it.
	LeaseUntil time.Time  `json:"-" firestore:"leaseUntil"`
	LastError  string     `json:"lastError,omitempty" firestore:"lastError"`
	Provenance Provenance `json:"provenance" firestore:"provenance"`
	CreatedAt  time.Time  `json:"createdAt" firestore:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt" firestore:"updatedAt"`
	ExpireAt   time.Time  `json:"expireAt" firestore:"expireAt"`
	// ReceivedAt is, on an introduction.withdrawn envelope, when the
	// introduction it withdraws was confirmed (what the owner's notice
	// dates it by: no content is left to name it); zero otherwise.
	ReceivedAt time.Time `json:"receivedAt,omitzero" firestore:"receivedAt"`
}

// Delivery is what a Sender needs for one attempt: the envelope, and for an
// introduction.confirmed event the introduction and its conversation as
// stored (zero for introduction.withdrawn, which carries the id alone).
type Delivery struct {
	Envelope     Envelope
	Introduction Introduction
	Conversation string
	// AdminURL is the introduction's page in the owner's admin, "" when the
	// admin's address is not configured.
	AdminURL string
	// AddedLabels are the labels of the fields the introduction's form
	// version adds, by name, for a destination a person reads.
	AddedLabels map[string]string
	// WrittenIn names, in the owner's language, the language the visitor
	// wrote in ("Persian (fa)"); "" for an introduction that predates it.
	WrittenIn string
	// Payload is the exact bytes to send, as the Sender's Payload rendered
	// them and the envelope's PayloadSHA256 binds them; nil when the caller
	// leaves the rendering to Send.
	Payload []byte
}

// DeliveryResult is a Sender's verdict on one attempt: ACCEPTED, DELIVERED,
// RETRY_PENDING or FAILED, with a content-free detail. RetryAfter is the
// wait the receiver asked for (a Retry-After header), zero when none.
type DeliveryResult struct {
	Status     DeliveryStatus
	Detail     string
	RetryAfter time.Duration
}

// Sender hands envelopes to one destination. Send never returns a vendor
// error: every failure is a RETRY_PENDING or FAILED result with its detail.
// Sending the same envelope twice sends the same envelope id.
type Sender interface {
	Destination() Destination
	// Payload renders the exact bytes Send sends for d (the same delivery
	// renders the same bytes); its error is content-free.
	Payload(d Delivery) ([]byte, error)
	// Send sends d.Payload (rendering it when nil).
	Send(ctx context.Context, d Delivery) DeliveryResult
}

// EnvelopeID is the id of the one envelope of a submission's event to a
// destination. It is derived, not drawn, so a confirmation repeated or
// retried after a crash names the same envelope, and a receiver sees the
// same id (webhook-id, Message-ID) on every attempt.
func EnvelopeID(submissionID string, d Destination, event string) string {
	kind := "confirmed"
	if event == EventWithdrawn {
		kind = "withdrawn"
	}
	return "env_" + submissionID + "_" + string(d) + "_" + kind
}

// ProviderEventKind is what a provider's signed delivery event says about
// one envelope.
type ProviderEventKind string

// The provider event kinds that move an envelope.
const (
	// ProviderDelivered is a receipt: the receiving server took the mail.
	ProviderDelivered ProviderEventKind = "delivered"
	// ProviderFailedTemporary is a failure the provider may overcome on a
	// later attempt.
	ProviderFailedTemporary ProviderEventKind = "failed-temporary"
	// ProviderFailedPermanent is a failure no later attempt overcomes.
	ProviderFailedPermanent ProviderEventKind = "failed-permanent"
)

// ProviderEvent is one verified delivery event from a provider,
// content-free: the provider's token (for deduplication), the envelope it
// is about, what happened and the provider's reason. Destination is what
// the provider delivers (an email provider's: DestinationEmail); the event
// applies to an envelope of that destination only.
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

// SendAttempts counts the envelope's attempts at sending, leaving out the
// provider events recorded beside them.
func (e Envelope) SendAttempts() int {
	n := 0
	for _, a := range e.Attempts {
		if !strings.HasPrefix(a.Detail, ProviderEventPrefix) {
			n++
		}
	}
	return n
}

// ProviderEventPrefix starts the detail of an attempt that records a
// provider's event rather than a send.
const ProviderEventPrefix = "provider event: "

// SetHandoff puts r into the entry's Handoffs, replacing the record of the
// same envelope or adding it.
func (e *LedgerEntry) SetHandoff(r HandoffRecord) {
	for i := range e.Handoffs {
		if e.Handoffs[i].EnvelopeID == r.EnvelopeID {
			e.Handoffs[i] = r
			return
		}
	}
	e.Handoffs = append(e.Handoffs, r)
}
