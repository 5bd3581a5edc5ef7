// Package entry is the Confirmation function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/confirmation"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the intake service with the handoff, which sends each
// confirmation's outbox right after its commit, and the retention sweeps.
var Function = wiring.NewFunction(confirmation.Name, confirmation.Routes, func(p *wiring.Parts) (*confirmation.Handlers, error) {
	flow, err := dbparts.Intake(p)
	if err != nil {
		return nil, err
	}
	if _, err := dbparts.Retention(p); err != nil {
		return nil, err
	}
	return confirmation.New(flow, confirmation.Options{ForwardedForPosition: p.Config.ForwardedForPosition})
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
