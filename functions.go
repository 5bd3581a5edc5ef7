// Package introductions serves every Cloud Run function of the service from
// one binary: it imports each function's entry package (entrypoints/<key>),
// whose init registers that function with the Functions Framework, so
// FUNCTION_TARGET picks any of them. Its tests and infra/'s checks use it.
//
// No deployed function is built from here. The Go buildpack builds only the
// root package of the uploaded source, so scripts/deploy.sh makes one
// archive per function whose root package is that function's entry package:
// each function links only what it uses (Challenge and Forms no Firestore
// client and no gRPC). A function builds its own parts on its first request
// (light.Lazy), and a failed start-up is retried with a backoff, never
// cached.
package introductions

import (
	"github.com/ownersite/introductions/entrypoints/admin"
	"github.com/ownersite/introductions/entrypoints/challenge"
	"github.com/ownersite/introductions/entrypoints/confirmation"
	"github.com/ownersite/introductions/entrypoints/delivery-events"
	"github.com/ownersite/introductions/entrypoints/drafts"
	"github.com/ownersite/introductions/entrypoints/forms"
	"github.com/ownersite/introductions/entrypoints/sweep"
)

// EntryPoints maps each function's key, which names its entry package's
// directory (entrypoints/<key>), its source archive (<key>.zip) and its
// entry in infra/'s local.functions, to the entry point the package
// registers: one per function of the route table.
var EntryPoints = map[string]string{
	"challenge":       challenge.Name,
	"forms":           forms.Name,
	"drafts":          drafts.Name,
	"confirmation":    confirmation.Name,
	"delivery-events": deliveryevents.Name,
	"sweep":           sweep.Name,
	"admin":           admin.Name,
}
