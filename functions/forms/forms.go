// Package forms is the forms function: it answers the newest published
// version of a form — fields and limits, purposes with their legal basis,
// consent texts with their versions and hashes, the privacy notice and the
// proof-of-work parameters — in the visitor's language, which the page
// renders and whose version (and language) it sends back with the draft.
package forms

import (
	"errors"
	"net/http"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Name is the function's entry point.
const Name = "Forms"

// ChallengePath is where every definition says a challenge is fetched: the
// Challenge function's route.
const ChallengePath = "/api/introductions/challenge"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{{Pattern: "GET /api/forms/{formId}", Handle: h.Latest}}
}

// Registry finds the newest published version of a form.
type Registry interface {
	Latest(formID string) (*formregistry.Version, bool)
}

// Handlers are the function's route handlers.
type Handlers struct {
	registry Registry
	pow      formregistry.ProofOfWorkParams
	limits   formregistry.Limits
}

// New returns the function's handlers; pow and the limits (retention, the
// destinations a confirmed introduction is handed to, the attachment's
// size), which the notice names, are published in every definition. It
// refuses a nil registry.
func New(registry Registry, pow formregistry.ProofOfWorkParams, limits formregistry.Limits) (*Handlers, error) {
	if registry == nil {
		return nil, errors.New("forms.New: no Registry")
	}
	return &Handlers{registry: registry, pow: pow, limits: limits}, nil
}

// MaxAge is how long any cache may keep a form's definition. A definition
// is the same for every visitor and changes only with a deployment, and a
// page that read the one before still drafts under its version, which the
// registry keeps.
const MaxAge = 5 * time.Minute

// Latest answers 200 with the definition of the form named by the route's
// {formId} in the visitor's language: the one ?lang= names, else the best
// of Accept-Language, else the version's own (see formregistry.Choose),
// with Content-Language, Vary: Accept-Language, public for MaxAge with a
// strong ETag per language (304 Not Modified to an If-None-Match naming
// it); and 404 NOT_FOUND, not cached, for a form that does not exist.
func (h *Handlers) Latest(w http.ResponseWriter, r *http.Request) error {
	v, ok := h.registry.Latest(r.PathValue("formId"))
	if !ok {
		return intake.ErrNotFound
	}
	lang := formregistry.Choose(v.Langs(), r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
	if in, ok := v.In(lang); ok {
		v = in
	}
	w.Header().Add("Vary", "Accept-Language")
	w.Header().Set("Content-Language", v.Lang)
	jsonapi.WritePublicJSON(w, r, MaxAge, v.Definition(h.pow, h.limits))
	return nil
}
