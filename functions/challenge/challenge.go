// Package challenge is the challenge function: a fresh signed ALTCHA v1
// challenge, with expiry, key version and max number in its salt. It reads
// no database: a source told POW_TOO_EASY asks for more (?maxnumber=N).
package challenge

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/secretkeys"
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

// Issue answers 200 with a new challenge of the query's maxnumber (else the base).
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

// KeysPart names the HMAC keys among an instance's parts.
const KeysPart = "HMAC keys"

// HMACKeys are p's HMAC keys: the secret's, following rotations, else a random key of this process.
func HMACKeys(p *wiring.Parts) (intake.Keyring, error) {
	return wiring.Part(p, KeysPart, func() (intake.Keyring, error) {
		if err := p.May(wiring.SecretHMAC); err != nil {
			return nil, err
		}
		if p.Config.HMACSecret == "" {
			ring, err := keyring.Local(rand.Reader)
			if err != nil {
				return nil, fmt.Errorf("HMAC keys: %w", err)
			}
			return ring, nil
		}
		rotating, err := secretkeys.Open(p.Context(), p.Config.HMACSecret, p.Logger)
		if err != nil {
			return nil, fmt.Errorf("HMAC keys: %w", err)
		}
		p.OnClose(rotating.Close)
		return rotating, nil
	})
}

// ProofOfWork issues and verifies p's challenges under its HMAC keys.
func ProofOfWork(p *wiring.Parts) (*altchapow.ProofOfWork, error) {
	return wiring.Part(p, "proof of work", func() (*altchapow.ProofOfWork, error) {
		keys, err := HMACKeys(p)
		if err != nil {
			return nil, err
		}
		pow, err := altchapow.New(keys, p.Clock, altchapow.Config{MaxNumber: p.Config.PowMaxNumber, MaxEscalated: p.Config.PowMaxEscalated, Lifetime: p.Config.PowLifetime})
		if err != nil {
			return nil, fmt.Errorf("proof of work: %w", err)
		}
		return pow, nil
	})
}
