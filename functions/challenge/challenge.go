// Package challenge is the challenge function: it answers a fresh signed
// ALTCHA v1 challenge with an expiry and the signing key's version in its
// salt. Its route is in the route table of functions/wiring.
package challenge

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Issuer makes signed challenges.
type Issuer interface {
	Issue(params url.Values) (altchapow.Challenge, error)
}

// Handlers are the function's route handlers.
type Handlers struct {
	issuer Issuer
}

// New returns the function's handlers; it refuses a nil issuer.
func New(issuer Issuer) (*Handlers, error) {
	if issuer == nil {
		return nil, errors.New("challenge.New: no Issuer")
	}
	return &Handlers{issuer: issuer}, nil
}

// Issue answers 200 with a new challenge.
func (h *Handlers) Issue(w http.ResponseWriter, r *http.Request) error {
	c, err := h.issuer.Issue(nil)
	if err != nil {
		return intake.Internal(err)
	}
	jsonapi.WriteJSON(w, http.StatusOK, c)
	return nil
}
