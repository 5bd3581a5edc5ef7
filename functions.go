// Package introductions lists every Cloud Run function of the service and
// builds them all on one set of parts, for the dev server and the tests.
// Importing it registers each function's entry point with the Functions
// Framework, so FUNCTION_TARGET picks any of them; its tests and infra/'s
// checks use it.
//
// No deployed function is built from here. The Go buildpack builds only the
// root package of the uploaded source, so scripts/deploy.sh makes one
// archive per function whose root package is that function's entry package
// (functions/<key>/entry): each function links only what it uses
// (Challenge and Forms no Firestore client and no gRPC). A function builds
// its own parts on its first request (wiring.Lazy), and a failed start-up
// is retried with a backoff, never cached.
package introductions

import (
	"context"
	"log/slog"
	"strings"
	"unicode"

	admin "github.com/ownersite/introductions/functions/admin/entry"
	challenge "github.com/ownersite/introductions/functions/challenge/entry"
	confirmation "github.com/ownersite/introductions/functions/confirmation/entry"
	deliveryevents "github.com/ownersite/introductions/functions/delivery-events/entry"
	drafts "github.com/ownersite/introductions/functions/drafts/entry"
	forms "github.com/ownersite/introductions/functions/forms/entry"
	sweep "github.com/ownersite/introductions/functions/sweep/entry"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/config"
)

// Functions are every function of the service, in the route table's order
// (wiring.Accesses').
var Functions = []wiring.Function{challenge.Function, forms.Function, drafts.Function, confirmation.Function, deliveryevents.Function, sweep.Function, admin.Function}

// Key is a function's name in the deployment (DeliveryEvents:
// delivery-events): its folder, its archive and its infra/ entry.
func Key(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Build builds every function on one set of parts with o's replacements.
func Build(ctx context.Context, cfg config.Config, logger *slog.Logger, o dbparts.Overrides) (*dbparts.Service, error) {
	return dbparts.Build(ctx, cfg, logger, o, Functions...)
}
