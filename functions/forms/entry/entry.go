// Package entry is the Forms function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Function builds the form registry and the configuration it describes
// (proof of work, retention, destinations); no database, no secret.
var Function = wiring.NewFunction(forms.Name, forms.Routes, func(p *wiring.Parts) (*forms.Handlers, error) {
	registry, err := forms.LoadRegistry(p)
	if err != nil {
		return nil, err
	}
	cfg := p.Config
	destinations := []intake.Destination{intake.DestinationInbox}
	if cfg.SMTP.Enabled() {
		destinations = append(destinations, intake.DestinationEmail)
	}
	if cfg.Webhook.Enabled() {
		destinations = append(destinations, intake.DestinationWebhook)
	}
	pow := formregistry.ProofOfWorkParams{Algorithm: "SHA-256", MaxNumber: cfg.PowMaxNumber, ChallengePath: forms.ChallengePath}
	return forms.New(registry, pow, formregistry.Limits{Retention: cfg.Retention, Destinations: destinations, AttachmentMaxBytes: cfg.AttachmentMaxBytes, SiteURL: cfg.SiteURL})
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
