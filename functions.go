// Package introductions registers every Cloud Run function of the service
// with the Functions Framework. The Go functions buildpack builds only the
// root package of the uploaded source, so each function deploys the whole
// module with --source=. --entry-point=<Name>. init does nothing but
// register: each function builds its dependencies on its first request (see
// functions/wiring, whose route table names every function), and a failed
// start-up is retried, never cached.
package introductions

import (
	"net/http"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/wiring"
)

// deployed is the lazily built service of this instance.
var deployed = wiring.NewLazy(os.Getenv)

// EntryPoints maps each entry point name, one per function of the route
// table, to the handler it serves.
var EntryPoints = entryPoints()

func entryPoints() map[string]http.HandlerFunc {
	m := map[string]http.HandlerFunc{}
	for _, name := range wiring.Functions() {
		m[name] = deployed.Function(name)
	}
	return m
}

func init() {
	for name, h := range EntryPoints {
		functions.HTTP(name, h)
	}
}
