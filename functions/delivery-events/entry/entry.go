// Package entry is the DeliveryEvents function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/delivery-events"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the outbox's delivery service (which sends nothing
// here), the provider's signature verifier and the retention sweeps.
var Function = wiring.NewFunction(deliveryevents.Name, deliveryevents.Routes, func(p *wiring.Parts) (*deliveryevents.Handlers, error) {
	deliveries, err := dbparts.Delivery(p)
	if err != nil {
		return nil, err
	}
	providers, err := dbparts.EventProviders(p)
	if err != nil {
		return nil, err
	}
	if _, err := dbparts.Retention(p); err != nil {
		return nil, err
	}
	return deliveryevents.New(deliveries, providers)
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
