// Package challenge is the challenge function: it answers a fresh signed
// ALTCHA v1 challenge with an expiry, the signing key's version and its max
// number in its salt. It reads no database: a source that owes more work
// learns how much from the draft's POW_TOO_EASY refusal and asks for it
// (?maxnumber=N).
package challenge

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Issuer makes signed challenges.
type Issuer interface {
	// IssueAt signs a challenge of maxNumber in the issuer's range (0: its base).
	IssueAt(maxNumber int64, params url.Values) (altchapow.Challenge, error)
}

// Name is the function's entry point.
const Name = "Challenge"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{{Pattern: "GET /api/introductions/challenge", Handle: h.Issue}}
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

// Issue answers 200 with a new challenge of the query's maxnumber (else
// the base).
func (h *Handlers) Issue(w http.ResponseWriter, r *http.Request) error {
	maxNumber, err := strconv.ParseInt(r.URL.Query().Get("maxnumber"), 10, 64)
	if err != nil || maxNumber < 1 {
		maxNumber = 0
	}
	c, err := h.issuer.IssueAt(maxNumber, nil)
	if err != nil {
		return intake.Internal(err)
	}
	jsonapi.WriteJSON(w, http.StatusOK, c)
	return nil
}
