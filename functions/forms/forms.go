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

// New returns the handlers, which publish pow and limits in every
// definition; it refuses a nil registry.
func New(registry Registry, pow formregistry.ProofOfWorkParams, limits formregistry.Limits) (*Handlers, error) {
	if registry == nil {
		return nil, errors.New("forms.New: no Registry")
	}
	return &Handlers{registry: registry, pow: pow, limits: limits}, nil
}

// MaxAge is how long any cache may keep a form's definition.
const MaxAge = 5 * time.Minute

// Latest answers 200 with {formId}'s newest definition in the language
// formregistry.Choose picks, public for MaxAge with an ETag per language;
// 404 NOT_FOUND for an unknown form.
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
