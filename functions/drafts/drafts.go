// Package drafts is the drafts function (SPEC §2.2): POST /api/introductions
// takes a draft through the rate limit, honeypot, content rules and proof of
// work, keeps it, and answers 201 with the draft as it was kept and a
// one-time token. It honours Idempotency-Key (SPEC §4).
package drafts

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Path is the function's route.
const Path = "/api/introductions"

// Flow is what the function needs of the intake service.
type Flow interface {
	Draft(ctx context.Context, req intakeflow.DraftRequest) (*intakeflow.Draft, error)
}

// Kept is the introduction's fields as kept.
type Kept struct {
	Name         string `json:"name"`
	Company      string `json:"company"`
	Role         string `json:"role"`
	Email        string `json:"email"`
	Message      string `json:"message"`
	Conversation string `json:"conversation,omitempty"`
}

// Created is the 201 answer: the draft as it was kept, and its token.
type Created struct {
	ID          string                   `json:"id"`
	State       intake.State             `json:"state"`
	ExpiresAt   time.Time                `json:"expiresAt"`
	Token       string                   `json:"token"`
	FormID      string                   `json:"formId"`
	FormVersion string                   `json:"formVersion"`
	Kept        Kept                     `json:"introduction"`
	Consents    []intake.ConsentEvidence `json:"consents"`
}

// Options configure the handler.
type Options struct {
	Origins []string
	// ForwardedForPosition is the trusted X-Forwarded-For entry, counted
	// from the right.
	ForwardedForPosition int
	Honeypot             HoneypotName
}

// New returns the function's handler.
func New(flow Flow, opts Options, logger *slog.Logger) http.Handler {
	if flow == nil || logger == nil || opts.Honeypot == nil {
		panic("drafts.New: nil dependency")
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
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
		sub, err := decodeDraft(body, opts.Honeypot)
		if err != nil {
			jsonapi.WriteError(w, r, logger, err)
			return
		}
		d, err := flow.Draft(r.Context(), intakeflow.DraftRequest{
			Submission:     sub,
			Client:         jsonapi.ClientAddr(r, opts.ForwardedForPosition),
			IdempotencyKey: idempotencyKey(r),
			RequestID:      jsonapi.RequestID(r),
		})
		if err != nil {
			jsonapi.WriteError(w, r, logger, err)
			return
		}
		if d.Replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		in := d.Introduction
		jsonapi.WriteJSON(w, http.StatusCreated, Created{
			ID: in.ID, State: in.State, ExpiresAt: in.ExpireAt.UTC(), Token: d.Token,
			FormID: in.FormID, FormVersion: in.FormVersion,
			Kept: Kept{Name: in.Fields.Name, Company: in.Fields.Company, Role: in.Fields.Role,
				Email: in.Fields.Email, Message: in.Fields.Message, Conversation: d.Conversation},
			Consents: in.Consents,
		})
	})
	return jsonapi.Recover(logger, jsonapi.Edge(opts.Origins, "POST", serve))
}

// idempotencyKey reads the header as the IETF draft sends it (a structured
// string, quoted) or bare.
func idempotencyKey(r *http.Request) string {
	v := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if r.Header.Get("Idempotency-Key") != "" && v == "" {
		return " " // present but empty: refused as IDEMPOTENCY_KEY_INVALID
	}
	return v
}
