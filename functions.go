// Package introductions registers every Cloud Run function of the service
// with the Functions Framework. The Go functions buildpack builds only the
// root package of the uploaded source, so each function deploys the whole
// module with --source=. --entry-point=<Name>, and every function's process
// runs this init. It does nothing but register: a function builds only its
// own parts, on its first request (wiring.Lazy), and a failed start-up is
// retried with a backoff, never cached.
package introductions

import (
	"net/http"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/wiring"
)

// EntryPoints maps each entry point name, one per function of the route
// table, to the handler it serves.
var EntryPoints = entryPoints()

func entryPoints() map[string]http.HandlerFunc {
	m := map[string]http.HandlerFunc{}
	for _, name := range wiring.Functions() {
		m[name] = wiring.NewLazy(name, os.Getenv).ServeHTTP
	}
	return m
}

func init() {
	for name, h := range EntryPoints {
		functions.HTTP(name, h)
	}
}
