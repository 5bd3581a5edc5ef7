// Package challenge is the challenge function (SPEC §2.1): GET
// /api/introductions/challenge answers a fresh signed ALTCHA v1 challenge
// with an expiry and the signing key's version in its salt.
package challenge

import (
	"log/slog"
	"net/http"
	"net/url"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Path is the function's route.
const Path = "/api/introductions/challenge"

// Issuer makes signed challenges.
type Issuer interface {
	Issue(params url.Values) (altchapow.Challenge, error)
}

// New returns the function's handler.
func New(issuer Issuer, origins []string, logger *slog.Logger) http.Handler {
	if issuer == nil || logger == nil {
		panic("challenge.New: nil dependency")
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			jsonapi.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			jsonapi.MethodNotAllowed(w, r, "GET")
			return
		}
		c, err := issuer.Issue(nil)
		if err != nil {
			jsonapi.WriteError(w, r, logger, intake.Internal(err))
			return
		}
		jsonapi.WriteJSON(w, http.StatusOK, c)
	})
	return jsonapi.Recover(logger, jsonapi.Edge(origins, "GET", serve))
}
