// Package entry is the Drafts function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the intake service (alone, without the handoff: a draft
// sends nothing), the form registry and the retention sweeps.
var Function = wiring.NewFunction(drafts.Name, drafts.Routes, func(p *wiring.Parts) (*drafts.Handlers, error) {
	flow, err := dbparts.Intake(p)
	if err != nil {
		return nil, err
	}
	sweeps, err := dbparts.Retention(p)
	if err != nil {
		return nil, err
	}
	registry, err := forms.LoadRegistry(p)
	if err != nil {
		return nil, err
	}
	return drafts.New(flow, drafts.Options{
		ForwardedForPosition: p.Config.ForwardedForPosition,
		Honeypot: func(formID, v string) string {
			if found, ok := registry.Find(formID, v); ok {
				return found.Honeypot
			}
			return ""
		},
		AttachmentMaxBytes: p.Config.AttachmentMaxBytes,
		AddedFields: func(formID, v string) []string {
			if found, ok := registry.Find(formID, v); ok {
				return found.AddedFields()
			}
			return nil
		},
		FirstDraftOfDay: sweeps.FirstDraftOfDay,
	})
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
