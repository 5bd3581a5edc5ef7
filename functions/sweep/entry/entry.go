// Package entry is the Sweep function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/sweep"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the retention sweep with its tasks. A call joins a run
// already in flight on this instance instead of starting a second.
var Function = wiring.NewFunction(sweep.Name, sweep.Routes, func(p *wiring.Parts) (*sweep.Handlers, error) {
	sweeps, err := dbparts.Retention(p)
	if err != nil {
		return nil, err
	}
	return sweep.New(sweeps)
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
