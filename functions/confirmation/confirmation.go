// Package confirmation is the confirmation function: the holder of a
// draft's token revises it (same id, token and expiry, no new proof of
// work), confirms it (it is kept and handed on) or later withdraws it
// (erased; the ledger keeps a tombstone). A wrong token is an unknown id.
package confirmation

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Flow is what the function needs of the intake service.
type Flow interface {
	Confirm(ctx context.Context, req intakeflow.TokenRequest) (*intakeflow.Confirmation, error)
	Withdraw(ctx context.Context, req intakeflow.TokenRequest) error
	Revise(ctx context.Context, req intakeflow.RevisionRequest) (*intakeflow.Draft, error)
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

// Revised is the 200 answer to a revision: the draft as kept and its
// revision count.
type Revised struct {
	jsonapi.KeptDraft
	Revisions int `json:"revisions"`
}

// Name is the function's entry point.
const Name = "Confirmation"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{
		{Pattern: "POST /api/introductions/{id}/confirmation", Handle: h.Confirm},
		{Pattern: "POST /api/introductions/{id}/revision", Handle: h.Revise},
		{Pattern: "POST /api/introductions/{id}/withdrawal", Handle: h.Withdraw},
	}
}

// Handlers are the function's route handlers.
type Handlers struct {
	flow Flow
	opts Options
}

// Options configure the handlers.
type Options struct {
	// ForwardedForPosition is as jsonapi.ClientAddr takes it.
	ForwardedForPosition int
}

// New returns the function's handlers; it refuses a nil flow.
func New(flow Flow, opts Options) (*Handlers, error) {
	if flow == nil {
		return nil, errors.New("confirmation.New: no Flow")
	}
	return &Handlers{flow: flow, opts: opts}, nil
}

// tokenRequest is the request's id, token and origin for the flow.
func (h *Handlers) tokenRequest(r *http.Request, token string) intakeflow.TokenRequest {
	return intakeflow.TokenRequest{ID: r.PathValue("id"), Token: token,
		Client: jsonapi.ClientAddr(r, h.opts.ForwardedForPosition), RequestID: jsonapi.RequestID(r)}
}

// Confirm takes {"token"} and answers 200 Confirmed, a repeat too.
func (h *Handlers) Confirm(w http.ResponseWriter, r *http.Request) error {
	var tb tokenBody
	if err := jsonapi.ReadJSON(w, r, &tb); err != nil {
		return err
	}
	c, err := h.flow.Confirm(r.Context(), h.tokenRequest(r, tb.Token))
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
	if err := h.flow.Withdraw(r.Context(), h.tokenRequest(r, tb.Token)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Revise takes {"token", lang, name, company, role, email, message,
// conversation, consents} and the added fields, and answers 200 Revised.
func (h *Handlers) Revise(w http.ResponseWriter, r *http.Request) error {
	token, sub, err := readRevision(w, r)
	if err != nil {
		return err
	}
	d, err := h.flow.Revise(r.Context(), intakeflow.RevisionRequest{TokenRequest: h.tokenRequest(r, token), Submission: sub})
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, Revised{
		KeptDraft: jsonapi.KeptDraftOf(d.Introduction, d.Token, d.Conversation),
		Revisions: d.Introduction.Revisions,
	})
	return nil
}

// notRevised are a draft's members a revision never carries.
var notRevised = map[string]bool{"formId": true, "formVersion": true, "altcha": true}

// readRevision reads a revision body: the token, lang and core fields, the
// consents as a draft's, every other text member into sub.Added (for the
// service to judge). A member that is no text is FIELD_INVALID, a common
// member that is no text and formId, formVersion and altcha are UNREADABLE_BODY.
func readRevision(w http.ResponseWriter, r *http.Request) (token string, sub intake.Submission, err error) {
	var members map[string]json.RawMessage
	if err := jsonapi.ReadJSON(w, r, &members); err != nil {
		return "", sub, err
	}
	f := &sub.Fields
	own := map[string]*string{"token": &token, "lang": &sub.Lang, "name": &f.Name, "company": &f.Company, "role": &f.Role,
		"email": &f.Email, "message": &f.Message, "conversation": &sub.Conversation}
	unreadable := intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object with the expected members.")
	var fieldErrs []intake.FieldError
	ownUnreadable := false
	for name, raw := range members {
		var v string
		switch {
		case name == "consents":
			claims, fe := jsonapi.ReadConsents(raw)
			if fe != nil {
				fieldErrs = append(fieldErrs, *fe)
			}
			sub.Consents = claims
		case own[name] != nil:
			ownUnreadable = ownUnreadable || json.Unmarshal(raw, own[name]) != nil
		case notRevised[name]:
			return "", intake.Submission{}, unreadable
		case string(raw) == "null":
		case json.Unmarshal(raw, &v) != nil:
			fieldErrs = append(fieldErrs, intake.FieldError{Field: name, Code: intake.CodeFieldInvalid, Detail: "Must be text."})
		default:
			if sub.Added == nil {
				sub.Added = map[string]string{}
			}
			sub.Added[name] = v
		}
	}
	if len(fieldErrs) > 0 {
		return "", intake.Submission{}, intake.Invalid(fieldErrs...)
	}
	if ownUnreadable {
		return "", intake.Submission{}, unreadable
	}
	return token, sub, nil
}
