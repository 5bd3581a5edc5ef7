package wiring

import (
	"log/slog"
	"net/http"
	"slices"

	"github.com/ownersite/introductions/functions/wiring/light"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

// routes is every route of every function, and the only table of them:
// package light's rows (Challenge, Forms) first, then the rows of the five
// functions built here, over the database. Each function's rows live with
// its builder, so that a deployed Challenge or Forms, which links package
// light alone, links none of these handlers. Each deployed function serves
// exactly its own rows (Service.Function), and the dev server serves all of
// them on one origin (Service.Mux), so the two cannot disagree; a path with
// no row answers 404 and a known path with another method 405 with Allow,
// both problem+json.
//
// To add a route to an existing function, add a row here (or in light's
// table for Challenge and Forms) and the handler method in its package
// under functions/ (for example, the Confirmation function's
// "POST /api/introductions/{id}/revision" row returns h.Confirmation.Revise).
// To add a new function, also give Handlers a field for its package's
// handlers, a builder (functions.go), a row in Accesses and an entry package
// entrypoints/<its name in lower case>, which the root package imports; the
// function's tests serve its rows with Serve. Every row is served behind
// the JSON API edge (jsonapi.NewRoutes); a handler that answers something
// other than JSON, such as an admin page, sets its own Content-Type and
// Content-Security-Policy over the edge's.
var routes = slices.Concat(light.Routes(), light.Table{
	row("Drafts", "POST /api/introductions", func(h *Handlers) jsonapi.Handler { return sweepOnFirstDraftOfDay(h.Sweeps, h.Drafts.Create) }),
	row("Drafts", "PUT /api/introductions/{id}/attachment", func(h *Handlers) jsonapi.Handler { return h.Drafts.Attach }),
	row("Drafts", "DELETE /api/introductions/{id}/attachment", func(h *Handlers) jsonapi.Handler { return h.Drafts.Detach }),
	row("Confirmation", "POST /api/introductions/{id}/confirmation", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Confirm }),
	row("Confirmation", "POST /api/introductions/{id}/revision", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Revise }),
	row("Confirmation", "POST /api/introductions/{id}/withdrawal", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Withdraw }),
	row("DeliveryEvents", "POST /hooks/delivery/{provider}", func(h *Handlers) jsonapi.Handler { return h.DeliveryEvents.Receive }),
	row(light.SweepFunction, "POST /internal/sweep", func(h *Handlers) jsonapi.Handler { return h.Sweep.Run }),

	// The owner's admin: its JSON, then its pages (no script, their own CSP;
	// every POST refused from another origin).
	row("Admin", "GET /admin/api/introductions", func(h *Handlers) jsonapi.Handler { return h.Admin.APIList }),
	row("Admin", "GET /admin/api/introductions/{id}", func(h *Handlers) jsonapi.Handler { return h.Admin.APIDetail }),
	row("Admin", "POST /admin/api/introductions/{id}/handled", func(h *Handlers) jsonapi.Handler { return h.Admin.APIHandled }),
	row("Admin", "POST /admin/api/introductions/{id}/spam", func(h *Handlers) jsonapi.Handler { return h.Admin.APISpam }),
	row("Admin", "POST /admin/api/spam/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.APISpamErasure }),
	row("Admin", "POST /admin/api/deliveries/{envelopeId}/retry", func(h *Handlers) jsonapi.Handler { return h.Admin.APIRetry }),
	row("Admin", "GET /admin/api/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.APISubject }),
	row("Admin", "POST /admin/api/subjects/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.APIErasure }),
	row("Admin", "GET /admin/api/health", func(h *Handlers) jsonapi.Handler { return h.Admin.APIHealth }),
	row("Admin", "GET /admin/api/ledger", func(h *Handlers) jsonapi.Handler { return h.Admin.APILedger }),
	row("Admin", "GET /admin", func(h *Handlers) jsonapi.Handler { return h.Admin.Home }),
	row("Admin", "GET /admin/{$}", func(h *Handlers) jsonapi.Handler { return h.Admin.List }),
	row("Admin", "GET /admin/introductions/{id}", func(h *Handlers) jsonapi.Handler { return h.Admin.Detail }),
	row("Admin", "GET /admin/introductions/{id}/attachment", func(h *Handlers) jsonapi.Handler { return h.Admin.Attachment }),
	row("Admin", "POST /admin/introductions/{id}/handled", func(h *Handlers) jsonapi.Handler { return h.Admin.Handled }),
	row("Admin", "POST /admin/introductions/{id}/spam", func(h *Handlers) jsonapi.Handler { return h.Admin.Spam }),
	row("Admin", "POST /admin/spam/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.SpamErasure }),
	row("Admin", "POST /admin/deliveries/{envelopeId}/retry", func(h *Handlers) jsonapi.Handler { return h.Admin.Retry }),
	row("Admin", "GET /admin/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.SubjectForm }),
	row("Admin", "POST /admin/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.Subject }),
	row("Admin", "POST /admin/subjects/export", func(h *Handlers) jsonapi.Handler { return h.Admin.Export }),
	row("Admin", "POST /admin/subjects/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.Erasure }),
	row("Admin", "GET /admin/retention", func(h *Handlers) jsonapi.Handler { return h.Admin.Retention }),
	row("Admin", "GET /admin/ledger/export", func(h *Handlers) jsonapi.Handler { return h.Admin.LedgerExport }),
	row("Admin", "GET /admin/assets/admin.css", func(h *Handlers) jsonapi.Handler { return h.Admin.Stylesheet }),
	row("Admin", "GET /admin/assets/icon.svg", func(h *Handlers) jsonapi.Handler { return h.Admin.Icon }),
})

// row is one row of the table: function serves pattern with handler.
func row(function, pattern string, handler func(*Handlers) jsonapi.Handler) light.Route {
	return light.Route{Function: function, Pattern: pattern, Handler: handler}
}

// Routes returns the whole route table. The caller may not change what it
// returns.
func Routes() light.Table { return routes }

// Functions returns the name of every deployed function, in the order the
// route table first names it.
func Functions() []string { return routes.Functions() }

// Patterns returns the route patterns function serves, in table order.
func Patterns(function string) []string { return routes.Patterns(function) }

// Serve returns the handler of function: its rows of the route table,
// answered by h, behind the JSON API edge (see light.Table.Serve). Only the
// handlers of the rows served are used. It returns an error for a function
// the table does not name.
func Serve(h *Handlers, function string, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	return routes.Serve(h, []string{function}, allowedOrigins, logger)
}

// sweepOnFirstDraftOfDay starts a retention sweep in the background with
// the first draft this instance receives on each UTC day (when sweeps is
// set); the draft never waits for it.
func sweepOnFirstDraftOfDay(sweeps *retentionsweep.Launcher, next jsonapi.Handler) jsonapi.Handler {
	if sweeps == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		sweeps.FirstDraftOfDay()
		return next(w, r)
	}
}
