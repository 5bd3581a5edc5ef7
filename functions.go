// Package introductions registers every Cloud Run function of the service
// with the Functions Framework. The Go functions buildpack builds only the
// root package of the uploaded source, so each function deploys the whole
// module with --source=. --entry-point=<Name>. init does nothing but
// register: each function builds its dependencies on its first request (see
// shared/setup), and a failed start-up is retried, never cached.
package introductions

import (
	"net/http"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/shared/setup"
)

// deployed is the lazily built service of this instance.
var deployed = setup.NewLazy(os.Getenv)

// EntryPoints maps each entry point name to the handler it serves.
var EntryPoints = map[string]http.HandlerFunc{
	"Challenge":    deployed.Handler(func(s *setup.Service) http.Handler { return s.Challenge }),
	"Forms":        deployed.Handler(func(s *setup.Service) http.Handler { return s.Forms }),
	"Drafts":       deployed.Handler(func(s *setup.Service) http.Handler { return s.Drafts }),
	"Confirmation": deployed.Handler(func(s *setup.Service) http.Handler { return s.Confirmation }),
}

func init() {
	for name, h := range EntryPoints {
		functions.HTTP(name, h)
	}
}
