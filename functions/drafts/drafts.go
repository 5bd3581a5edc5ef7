// Package drafts is the drafts function: it keeps a draft that passes the
// checks and answers 201 with it as kept and a one-time token; a repeat
// under the same Idempotency-Key gets the first answer again.
package drafts

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Flow is what the function needs of the intake service.
type Flow interface {
	Draft(ctx context.Context, req intakeflow.DraftRequest) (*intakeflow.Draft, error)
	Attach(ctx context.Context, req intakeflow.AttachRequest) (*intake.Attachment, error)
	Detach(ctx context.Context, req intakeflow.TokenRequest) error
}

// Options configure the handlers.
type Options struct {
	// ForwardedForPosition is the trusted X-Forwarded-For entry from the right.
	ForwardedForPosition int
	// AttachmentMaxBytes is the most an attachment may be.
	AttachmentMaxBytes int64
	// FirstDraftOfDay, when set, is told of every draft (the day's first starts a sweep).
	FirstDraftOfDay func() bool
}

// Name is the function's entry point.
const Name = "Drafts"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{
		{Pattern: "POST /api/introductions", Handle: h.Create},
		{Pattern: "PUT /api/introductions/{id}/attachment", Handle: h.Attach},
		{Pattern: "DELETE /api/introductions/{id}/attachment", Handle: h.Detach},
	}
}

// Handlers are the function's route handlers.
type Handlers struct {
	flow Flow
	opts Options
}

// New returns the function's handlers; it refuses a nil flow.
func New(flow Flow, opts Options) (*Handlers, error) {
	if flow == nil {
		return nil, errors.New("drafts.New: no Flow")
	}
	return &Handlers{flow: flow, opts: opts}, nil
}

// Create keeps a draft and answers 201 with jsonapi.KeptDraft
// (Idempotent-Replayed: true for a replay).
func (h *Handlers) Create(w http.ResponseWriter, r *http.Request) error {
	if h.opts.FirstDraftOfDay != nil {
		h.opts.FirstDraftOfDay()
	}
	key, malformed := idempotencyKey(r)
	var members map[string]json.RawMessage
	if err := jsonapi.ReadJSON(w, r, &members); err != nil {
		return err
	}
	sub, rest, err := decodeDraft(members)
	if err != nil {
		return err
	}
	d, err := h.flow.Draft(r.Context(), intakeflow.DraftRequest{
		Submission:              sub,
		Members:                 rest,
		Client:                  jsonapi.ClientAddr(r, h.opts.ForwardedForPosition),
		IdempotencyKey:          key,
		IdempotencyKeyMalformed: malformed,
		RequestID:               jsonapi.RequestID(r),
	})
	if err != nil {
		return err
	}
	if d.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	jsonapi.WriteJSON(w, http.StatusCreated, jsonapi.KeptDraftOf(d.Introduction, d.Token, d.Conversation))
	return nil
}

// idempotencyKey reads the header, quoted or bare: "" when absent,
// malformed when empty or sent twice.
func idempotencyKey(r *http.Request) (key string, malformed bool) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", false
	}
	v := strings.TrimSpace(values[0])
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if v == "" || len(values) > 1 {
		return "", true
	}
	return v, false
}

// UploadTime is how long an attachment's body may take to arrive (5 MiB at
// 150 kbit/s); infra/functions.tf's request timeout is as long.
const UploadTime = 300 * time.Second

// Attach keeps the body (typed by Content-Type, named by
// Content-Disposition's filename*) as the draft's attachment for the
// bearer of its token and answers 200 jsonapi.AttachmentAnswer; a
// Content-Length over the limit is ATTACHMENT_TOO_LARGE, unread.
func (h *Handlers) Attach(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > h.opts.AttachmentMaxBytes {
		return attachment.TooLarge(h.opts.AttachmentMaxBytes)
	}
	// Where the server sets no read deadline (Cloud Run), the request timeout bounds the upload.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(UploadTime))
	a, err := h.flow.Attach(r.Context(), intakeflow.AttachRequest{
		TokenRequest: h.tokenRequest(r),
		ContentType:  r.Header.Get("Content-Type"),
		Name:         attachment.NameFrom(r.Header.Get("Content-Disposition")),
		Body:         r.Body,
	})
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, jsonapi.AttachmentAnswer{Attachment: a})
	return nil
}

// Detach removes the draft's attachment for the bearer of its token: 204.
func (h *Handlers) Detach(w http.ResponseWriter, r *http.Request) error {
	if err := h.flow.Detach(r.Context(), h.tokenRequest(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// tokenRequest is the route's id with the request's bearer token.
func (h *Handlers) tokenRequest(r *http.Request) intakeflow.TokenRequest {
	return intakeflow.TokenRequest{ID: r.PathValue("id"), Token: jsonapi.BearerToken(r),
		Client: jsonapi.ClientAddr(r, h.opts.ForwardedForPosition), RequestID: jsonapi.RequestID(r)}
}
