// Package entry is the Challenge function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/wiring"
)

// Function builds the proof of work under the HMAC keys. No database.
var Function = wiring.NewFunction(challenge.Name, challenge.Routes, func(p *wiring.Parts) (*challenge.Handlers, error) {
	pow, err := challenge.ProofOfWork(p)
	if err != nil {
		return nil, err
	}
	return challenge.New(pow)
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
