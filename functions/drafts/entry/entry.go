// Package entry is the Drafts function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the intake service (alone, without the handoff: a draft
// sends nothing) and the retention sweeps.
var Function = wiring.NewFunction(drafts.Name, drafts.Routes, func(p *wiring.Parts) (*drafts.Handlers, error) {
	flow, err := dbparts.Intake(p)
	if err != nil {
		return nil, err
	}
	sweeps, err := dbparts.Retention(p)
	if err != nil {
		return nil, err
	}
	return drafts.New(flow, drafts.Options{
		ForwardedForPosition: p.Config.ForwardedForPosition,
		AttachmentMaxBytes:   p.Config.AttachmentMaxBytes,
		FirstDraftOfDay:      sweeps.FirstDraftOfDay,
	})
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
