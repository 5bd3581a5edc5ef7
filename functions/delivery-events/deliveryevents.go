// Package deliveryevents is the delivery events function: POST
// /hooks/delivery/{provider} takes an email provider's signed delivery
// event and applies it to the envelope it names, once. It is public and
// trusts nothing but the provider's signature: a bad signature, a stale
// timestamp or a token seen before is refused with a documented problem
// code and changes nothing. A provider that is not configured (or not
// known) answers 404, as a path that does not exist.
package deliveryevents

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// MaxBody is the most of an event's body that is read; a provider's event
// is a few kilobytes.
const MaxBody = 256 << 10

// Provider verifies and reads one provider's signed events.
type Provider interface {
	// Read verifies body and returns its event, and false when the event
	// says nothing about a delivery (an open, a click). Errors are
	// *intake.Error: EVENT_SIGNATURE_INVALID, EVENT_STALE, UNREADABLE_BODY.
	Read(body []byte) (intake.ProviderEvent, bool, error)
}

// Deliveries applies verified events (the delivery service).
type Deliveries interface {
	// ApplyEvent applies an event once. Errors: EVENT_REPLAYED, NOT_FOUND
	// for an envelope that is not here, UNAVAILABLE.
	ApplyEvent(ctx context.Context, ev intake.ProviderEvent) (intake.Envelope, error)
}

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

// New returns the function's handlers for the configured providers, by
// the name the route's {provider} carries (none configured: every provider
// answers 404). It refuses a nil Deliveries or Provider.
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

// Result is the 200 answer: whether the event moved an envelope, and
// where that envelope now stands.
type Result struct {
	Applied    bool                  `json:"applied"`
	EnvelopeID string                `json:"envelopeId,omitempty"`
	Status     intake.DeliveryStatus `json:"status,omitempty"`
}

// Receive takes one signed event. It answers 200 with the envelope's new
// status; 200 with applied false for a genuine event that names no
// envelope of ours or says nothing about delivery (so the provider does not
// send it again); 404 NOT_FOUND for a provider that is not configured;
// 403 EVENT_SIGNATURE_INVALID or EVENT_STALE; 409 EVENT_REPLAYED; 400
// UNREADABLE_BODY; 413 BODY_TOO_LARGE; 503 UNAVAILABLE (the provider
// retries).
func (h *Handlers) Receive(w http.ResponseWriter, r *http.Request) error {
	p := h.providers[r.PathValue("provider")]
	if p == nil {
		return intake.ErrNotFound
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return intake.Errorf(intake.CodeBodyTooLarge, "The body is larger than %d KiB.", MaxBody>>10)
		}
		return intake.Errorf(intake.CodeUnreadableBody, "The body could not be read.")
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
