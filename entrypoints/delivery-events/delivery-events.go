// Package deliveryevents (entrypoints/delivery-events) is the DeliveryEvents function's entry point. scripts/deploy.sh
// makes it the root package of the function's own source archive, which
// the Go functions buildpack builds; the repository's root package imports
// it with the other functions' entry packages.
//
// It builds through package wiring, which holds the Firestore database.
package deliveryevents

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/light"
)

// Name is the entry point (FUNCTION_TARGET) this package registers.
const Name = "DeliveryEvents"

func init() {
	functions.HTTP(Name, light.NewLazy(Name, os.Getenv, wiring.Deployed).ServeHTTP)
}
