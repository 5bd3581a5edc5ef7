package intake

import (
	"context"
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
// introduction at send time, and PayloadSHA256 binds what was sent.
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
	Send(ctx context.Context, d Delivery) DeliveryResult
}
