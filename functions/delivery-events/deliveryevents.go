// Package deliveryevents is the delivery events function: POST
// /hooks/delivery/{provider} applies an email provider's signed delivery
// event to the envelope it names, once. It trusts nothing but the signature:
// a bad one, a stale timestamp or a token seen before changes nothing, and
// a provider not configured answers 404.
package deliveryevents

import (
	"context"
	"errors"
	"net/http"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/mailgun"
)

// MaxBody is the most of an event's body that is read.
const MaxBody = 256 << 10

// Provider verifies and reads one provider's signed events.
type Provider interface {
	// Read verifies body and returns its event, false when not about delivery. Errors:
	// EVENT_SIGNATURE_INVALID, EVENT_STALE, UNREADABLE_BODY.
	Read(body []byte) (intake.ProviderEvent, bool, error)
}

// Deliveries applies verified events (the delivery service).
type Deliveries interface {
	// ApplyEvent applies an event once. Errors: EVENT_REPLAYED, NOT_FOUND, UNAVAILABLE.
	ApplyEvent(ctx context.Context, ev intake.ProviderEvent) (intake.Envelope, error)
}

// ProviderMailgun is the {provider} of Mailgun's events, which *mailgun.Verifier reads.
const ProviderMailgun = mailgun.Provider

// Name is the function's entry point.
const Name = "DeliveryEvents"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{{Pattern: "POST /hooks/delivery/{provider}", Handle: h.Receive}}
}

// Handlers are the function's route handlers.
type Handlers struct {
	deliveries Deliveries
	providers  map[string]Provider
}

// New returns the handlers for providers by {provider} name; it refuses a
// nil Deliveries or Provider.
func New(deliveries Deliveries, providers map[string]Provider) (*Handlers, error) {
	if deliveries == nil {
		return nil, errors.New("deliveryevents.New: no Deliveries")
	}
	for name, p := range providers {
		if p == nil {
			return nil, errors.New("deliveryevents.New: no Provider for " + name)
		}
	}
	return &Handlers{deliveries: deliveries, providers: providers}, nil
}

// Result is the 200 answer: whether the event moved an envelope, and its status.
type Result struct {
	Applied    bool                  `json:"applied"`
	EnvelopeID string                `json:"envelopeId,omitempty"`
	Status     intake.DeliveryStatus `json:"status,omitempty"`
}

// Receive applies one signed event: 200 with the envelope's status (applied false for one about
// no envelope of ours or no delivery), 404 for an unconfigured provider, else the Provider's,
// Deliveries' or ReadBody's errors.
func (h *Handlers) Receive(w http.ResponseWriter, r *http.Request) error {
	p := h.providers[r.PathValue("provider")]
	if p == nil {
		return intake.ErrNotFound
	}
	body, err := jsonapi.ReadBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	ev, applies, err := p.Read(body)
	if err != nil {
		return err
	}
	if !applies {
		jsonapi.WriteJSON(w, http.StatusOK, Result{})
		return nil
	}
	e, err := h.deliveries.ApplyEvent(r.Context(), ev)
	switch {
	case errors.Is(err, intake.ErrNotFound):
		jsonapi.WriteJSON(w, http.StatusOK, Result{})
		return nil
	case err != nil:
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, Result{Applied: true, EnvelopeID: e.ID, Status: e.Status})
	return nil
}
