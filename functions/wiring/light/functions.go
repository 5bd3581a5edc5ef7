package light

import (
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/shared/formregistry"
)

// Builders builds the handlers of the functions that need no database,
// each from the parts it names and nothing else: reading a builder is
// reading what its function touches. The caller may not change it.
var Builders = map[string]func(p *Parts, h *Handlers) error{
	"Challenge": BuildChallenge,
	"Forms":     BuildForms,
}

// BuildChallenge: the proof of work under the HMAC keys. No database.
func BuildChallenge(p *Parts, h *Handlers) (err error) {
	pow, err := p.ProofOfWork()
	if err != nil {
		return err
	}
	h.Challenge, err = challenge.New(pow)
	return err
}

// BuildForms: the form registry and the configuration it describes (the
// proof of work's cost, retention, destinations). No database, no secret.
func BuildForms(p *Parts, h *Handlers) (err error) {
	registry, err := p.Forms()
	if err != nil {
		return err
	}
	pow := formregistry.ProofOfWorkParams{Algorithm: "SHA-256", MaxNumber: p.cfg.PowMaxNumber, ChallengePath: pathOf("Challenge")}
	h.Forms, err = forms.New(registry, pow, formregistry.Limits{Retention: p.cfg.Retention, Destinations: p.Destinations(), AttachmentMaxBytes: p.cfg.AttachmentMaxBytes})
	return err
}
