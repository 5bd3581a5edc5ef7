// Package forms is the forms function (SPEC §3): GET /api/forms/{formId}
// answers the newest published version's definition — fields and limits,
// purposes with their legal basis, consent texts with their versions and
// hashes, the privacy notice and the proof-of-work parameters — which the
// page renders and whose version it sends back with the draft.
package forms

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Prefix is the function's route prefix; the form id follows it.
const Prefix = "/api/forms/"

// New returns the function's handler.
func New(registry *formregistry.Registry, pow formregistry.ProofOfWorkParams, retention intake.Retention, origins []string, logger *slog.Logger) http.Handler {
	if registry == nil || logger == nil {
		panic("forms.New: nil dependency")
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		formID, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if !ok || formID == "" || strings.Contains(formID, "/") {
			jsonapi.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			jsonapi.MethodNotAllowed(w, r, "GET")
			return
		}
		v, ok := registry.Latest(formID)
		if !ok {
			jsonapi.NotFound(w, r)
			return
		}
		jsonapi.WriteJSON(w, http.StatusOK, v.Definition(pow, retention))
	})
	return jsonapi.Recover(logger, jsonapi.Edge(origins, "GET", serve))
}
