// Package forms is the Forms function's entry point. scripts/deploy.sh
// makes it the root package of the function's own source archive, which
// the Go functions buildpack builds; the repository's root package imports
// it with the other functions' entry packages.
//
// It imports package light alone: the function links no Firestore client
// and no gRPC, and initialises none at start-up.
package forms

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/wiring/light"
)

// Name is the entry point (FUNCTION_TARGET) this package registers.
const Name = "Forms"

func init() {
	functions.HTTP(Name, light.NewLazy(Name, os.Getenv, light.Deployed).ServeHTTP)
}
