// Package confirmation is the confirmation function: the holder of a
// draft's token revises it (the visitor's Edit: same id, token and expiry,
// no new proof of work), confirms it (it is then kept and handed on) or,
// later, withdraws the confirmed introduction (it is erased; the ledger
// keeps a content-free tombstone). A wrong token is answered exactly like an
// unknown id.
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

// revisionBody is a revision's token and common members (readRevision).
type revisionBody struct {
	Token        string                `json:"token"`
	Lang         string                `json:"lang"`
	Name         string                `json:"name"`
	Company      string                `json:"company"`
	Role         string                `json:"role"`
	Email        string                `json:"email"`
	Message      string                `json:"message"`
	Conversation string                `json:"conversation"`
	Consents     []intake.ConsentClaim `json:"-"` // read by jsonapi.ReadConsents, as a draft's are
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
	rb, added, err := readRevision(w, r)
	if err != nil {
		return err
	}
	d, err := h.flow.Revise(r.Context(), intakeflow.RevisionRequest{
		ID: r.PathValue("id"), Token: rb.Token, RequestID: jsonapi.RequestID(r),
		Client: jsonapi.ClientAddr(r, h.opts.ForwardedForPosition),
		Submission: intake.Submission{
			Lang:         rb.Lang,
			Fields:       intake.Fields{Name: rb.Name, Company: rb.Company, Role: rb.Role, Email: rb.Email, Message: rb.Message},
			Added:        added,
			Conversation: rb.Conversation, Consents: rb.Consents,
		},
	})
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, Revised{
		KeptDraft: jsonapi.KeptDraftOf(d.Introduction, d.Token, d.Conversation),
		Revisions: d.Introduction.Revisions,
	})
	return nil
}

// revisionMembers are revisionBody's; notRevised are a draft's a revision never carries.
var (
	revisionMembers = map[string]bool{"token": true, "lang": true, "name": true, "company": true, "role": true, "email": true,
		"message": true, "conversation": true, "consents": true}
	notRevised = map[string]bool{"formId": true, "formVersion": true, "altcha": true}
)

// readRevision reads a revision body: its own members into revisionBody,
// the consents as a draft's, every other text member into added (for the
// service to judge); a member that is no text is FIELD_INVALID, and
// formId, formVersion and altcha are UNREADABLE_BODY.
func readRevision(w http.ResponseWriter, r *http.Request) (revisionBody, map[string]string, error) {
	var rb revisionBody
	var members map[string]json.RawMessage
	if err := jsonapi.ReadJSON(w, r, &members); err != nil {
		return rb, nil, err
	}
	own := map[string]json.RawMessage{}
	var added map[string]string
	var fieldErrs []intake.FieldError
	for name, raw := range members {
		switch {
		case name == "consents":
			claims, fe := jsonapi.ReadConsents(raw)
			if fe != nil {
				fieldErrs = append(fieldErrs, *fe)
			}
			rb.Consents = claims
		case revisionMembers[name]:
			own[name] = raw
		case notRevised[name]:
			return rb, nil, intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object with the expected members.")
		case string(raw) == "null":
		default:
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				fieldErrs = append(fieldErrs, intake.FieldError{Field: name, Code: intake.CodeFieldInvalid, Detail: "Must be text."})
				continue
			}
			if added == nil {
				added = map[string]string{}
			}
			added[name] = v
		}
	}
	if len(fieldErrs) > 0 {
		return rb, nil, intake.Invalid(fieldErrs...)
	}
	ownJSON, err := json.Marshal(own)
	if err != nil || json.Unmarshal(ownJSON, &rb) != nil {
		return rb, nil, intake.Errorf(intake.CodeUnreadableBody, "The body must be one JSON object with the expected members.")
	}
	return rb, added, nil
}
