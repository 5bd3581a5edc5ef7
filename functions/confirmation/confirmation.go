// Package confirmation is the confirmation function (SPEC §2.3, §3): POST
// /api/introductions/{id}/confirmation sends a draft on, and POST
// /api/introductions/{id}/withdrawal erases a confirmed introduction, each
// for the holder of the draft's token. A wrong token is answered exactly
// like an unknown id.
package confirmation

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
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

// New returns the function's handler.
func New(flow Flow, origins []string, logger *slog.Logger) http.Handler {
	if flow == nil || logger == nil {
		panic("confirmation.New: nil dependency")
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/api/introductions/")
		id, action, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 || id == "" || (action != "confirmation" && action != "withdrawal") {
			jsonapi.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			jsonapi.MethodNotAllowed(w, r, "POST")
			return
		}
		body, err := jsonapi.ReadBody(w, r)
		if err != nil {
			jsonapi.WriteError(w, r, logger, err)
			return
		}
		var tb tokenBody
		if err := jsonapi.DecodeStrict(body, &tb); err != nil {
			jsonapi.WriteError(w, r, logger, err)
			return
		}
		if action == "withdrawal" {
			if err := flow.Withdraw(r.Context(), id, tb.Token); err != nil {
				jsonapi.WriteError(w, r, logger, err)
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		c, err := flow.Confirm(r.Context(), id, tb.Token)
		if err != nil {
			jsonapi.WriteError(w, r, logger, err)
			return
		}
		jsonapi.WriteJSON(w, http.StatusOK, Confirmed{
			ID: c.ID, State: "CONFIRMED", ConfirmedAt: c.ConfirmedAt.UTC(),
			Withdrawal: Withdrawal{Method: "POST", Path: intakeflow.WithdrawalPath(c.ID), Body: `{"token":"<your token>"}`, Until: c.KeptUntil.UTC()},
		})
	})
	return jsonapi.Recover(logger, jsonapi.Edge(origins, "POST", serve))
}
