// Package confirmation is the confirmation function: the holder of a
// draft's token confirms it (it is then kept and handed on) or, later,
// withdraws the confirmed introduction (it is erased; the ledger keeps a
// content-free tombstone). A wrong token is answered exactly like an
// unknown id. Its routes are in the route table of functions/wiring.
package confirmation

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Flow is what the function needs of the intake service.
type Flow interface {
	Confirm(ctx context.Context, id, token string) (*intakeflow.Confirmation, error)
	Withdraw(ctx context.Context, id, token string) error
}

// Withdrawal tells the page how to withdraw later.
type Withdrawal struct {
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Body   string    `json:"body"`
	Until  time.Time `json:"until"`
}

// Confirmed is the 200 answer to a confirmation.
type Confirmed struct {
	ID          string     `json:"id"`
	State       string     `json:"state"`
	ConfirmedAt time.Time  `json:"confirmedAt"`
	Withdrawal  Withdrawal `json:"withdrawal"`
}

type tokenBody struct {
	Token string `json:"token"`
}

// Handlers are the function's route handlers; each reads the draft id from
// the route's {id}.
type Handlers struct {
	flow Flow
}

// New returns the function's handlers; it refuses a nil flow.
func New(flow Flow) (*Handlers, error) {
	if flow == nil {
		return nil, errors.New("confirmation.New: no Flow")
	}
	return &Handlers{flow: flow}, nil
}

// Confirm takes {"token"} and answers 200 Confirmed; a repeat answers the
// same.
func (h *Handlers) Confirm(w http.ResponseWriter, r *http.Request) error {
	var tb tokenBody
	if err := jsonapi.ReadJSON(w, r, &tb); err != nil {
		return err
	}
	c, err := h.flow.Confirm(r.Context(), r.PathValue("id"), tb.Token)
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, Confirmed{
		ID: c.ID, State: "CONFIRMED", ConfirmedAt: c.ConfirmedAt.UTC(),
		Withdrawal: Withdrawal{Method: "POST", Path: intakeflow.WithdrawalPath(c.ID), Body: `{"token":"<your token>"}`, Until: c.KeptUntil.UTC()},
	})
	return nil
}

// Withdraw takes {"token"} and answers 204 once the introduction is erased.
func (h *Handlers) Withdraw(w http.ResponseWriter, r *http.Request) error {
	var tb tokenBody
	if err := jsonapi.ReadJSON(w, r, &tb); err != nil {
		return err
	}
	if err := h.flow.Withdraw(r.Context(), r.PathValue("id"), tb.Token); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
