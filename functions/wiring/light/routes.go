package light

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

// route is one row of the route table: the deployed function (its entry
// point name) that serves a net/http ServeMux method pattern, and which of
// the built handlers answers it.
type route struct {
	function string
	pattern  string
	handler  func(*Handlers) jsonapi.Handler
}

// routes is every route of every function, and the only place a path is
// written. Each deployed function serves exactly its own rows
// (Service.Function), and the dev server serves all of them on one origin
// (Service.Mux), so the two cannot disagree; a path with no row answers 404
// and a known path with another method 405 with Allow, both problem+json.
//
// To add a route to an existing function, add a row here and the handler
// method in its package under functions/ (for example, the Confirmation
// function's "POST /api/introductions/{id}/revision" row returns
// h.Confirmation.Revise). To add a new function (Sweep, Admin,
// DeliveryEvents…), also give Handlers a field for its package's handlers,
// a builder (functions/wiring/functions.go, or functions.go here if it
// needs no database), a row in Accesses and an entry package
// entrypoints/<its name in lower case>, which the root package imports;
// the function's tests serve its rows with Serve. Every row is served behind the JSON API edge (jsonapi.NewRoutes);
// a handler that answers something other than JSON, such as an admin page,
// sets its own Content-Type and Content-Security-Policy over the edge's.
var routes = []route{
	{"Challenge", "GET /api/introductions/challenge", func(h *Handlers) jsonapi.Handler { return h.Challenge.Issue }},
	{"Forms", "GET /api/forms/{formId}", func(h *Handlers) jsonapi.Handler { return h.Forms.Latest }},
	{"Drafts", "POST /api/introductions", func(h *Handlers) jsonapi.Handler { return sweepOnFirstDraftOfDay(h.Sweeps, h.Drafts.Create) }},
	{"Confirmation", "POST /api/introductions/{id}/confirmation", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Confirm }},
	{"Confirmation", "POST /api/introductions/{id}/revision", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Revise }},
	{"Confirmation", "POST /api/introductions/{id}/withdrawal", func(h *Handlers) jsonapi.Handler { return h.Confirmation.Withdraw }},
	{"DeliveryEvents", "POST /hooks/delivery/{provider}", func(h *Handlers) jsonapi.Handler { return h.DeliveryEvents.Receive }},
	{sweepFunction, "POST /internal/sweep", func(h *Handlers) jsonapi.Handler { return h.Sweep.Run }},

	// The owner's admin: its JSON, then its pages (no script, their own CSP;
	// every POST refused from another origin).
	{"Admin", "GET /admin/api/introductions", func(h *Handlers) jsonapi.Handler { return h.Admin.APIList }},
	{"Admin", "GET /admin/api/introductions/{id}", func(h *Handlers) jsonapi.Handler { return h.Admin.APIDetail }},
	{"Admin", "POST /admin/api/introductions/{id}/handled", func(h *Handlers) jsonapi.Handler { return h.Admin.APIHandled }},
	{"Admin", "POST /admin/api/deliveries/{envelopeId}/retry", func(h *Handlers) jsonapi.Handler { return h.Admin.APIRetry }},
	{"Admin", "GET /admin/api/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.APISubject }},
	{"Admin", "POST /admin/api/subjects/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.APIErasure }},
	{"Admin", "GET /admin/api/health", func(h *Handlers) jsonapi.Handler { return h.Admin.APIHealth }},
	{"Admin", "GET /admin", func(h *Handlers) jsonapi.Handler { return h.Admin.Home }},
	{"Admin", "GET /admin/{$}", func(h *Handlers) jsonapi.Handler { return h.Admin.List }},
	{"Admin", "GET /admin/introductions/{id}", func(h *Handlers) jsonapi.Handler { return h.Admin.Detail }},
	{"Admin", "POST /admin/introductions/{id}/handled", func(h *Handlers) jsonapi.Handler { return h.Admin.Handled }},
	{"Admin", "POST /admin/deliveries/{envelopeId}/retry", func(h *Handlers) jsonapi.Handler { return h.Admin.Retry }},
	{"Admin", "GET /admin/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.SubjectForm }},
	{"Admin", "POST /admin/subjects", func(h *Handlers) jsonapi.Handler { return h.Admin.Subject }},
	{"Admin", "POST /admin/subjects/export", func(h *Handlers) jsonapi.Handler { return h.Admin.Export }},
	{"Admin", "POST /admin/subjects/erasure", func(h *Handlers) jsonapi.Handler { return h.Admin.Erasure }},
	{"Admin", "GET /admin/retention", func(h *Handlers) jsonapi.Handler { return h.Admin.Retention }},
	{"Admin", "GET /admin/assets/admin.css", func(h *Handlers) jsonapi.Handler { return h.Admin.Stylesheet }},
	{"Admin", "GET /admin/assets/icon.svg", func(h *Handlers) jsonapi.Handler { return h.Admin.Icon }},
}

// sweepFunction is the entry point of the retention sweep.
const sweepFunction = "Sweep"

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

// sweepAfterQuietSpell starts a retention sweep in the background with the
// first request after SWEEP_AFTER_IDLE without any on this instance; the
// request never waits for it.
func sweepAfterQuietSpell(sweeps *retentionsweep.Launcher, next jsonapi.Handler) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sweeps.Request()
		return next(w, r)
	}
}

// Functions returns the name of every deployed function, in the order the
// route table first names it.
func Functions() []string {
	var names []string
	seen := map[string]bool{}
	for _, rt := range routes {
		if !seen[rt.function] {
			seen[rt.function] = true
			names = append(names, rt.function)
		}
	}
	return names
}

// Patterns returns the route patterns function serves, in table order.
func Patterns(function string) []string {
	var out []string
	for _, rt := range routes {
		if rt.function == function {
			out = append(out, rt.pattern)
		}
	}
	return out
}

// Serve returns the handler of function: its rows of the route table,
// answered by h, behind the JSON API edge (see jsonapi.NewRoutes). Only the
// handlers of the rows served are used. It returns an error for a function
// the table does not name.
func Serve(h *Handlers, function string, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	return serve(h, []string{function}, allowedOrigins, logger)
}

// serve returns the handler of the rows of every function in names.
func serve(h *Handlers, names []string, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	var rows []jsonapi.Route
	for _, rt := range routes {
		if !slices.Contains(names, rt.function) {
			continue
		}
		handle := rt.handler(h)
		if h.Sweeps != nil && rt.function != sweepFunction {
			// The Sweep function's own request runs a sweep anyway.
			handle = sweepAfterQuietSpell(h.Sweeps, handle)
		}
		rows = append(rows, jsonapi.Route{Pattern: rt.pattern, Handle: handle})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("light.Serve: the route table has no function among %q", names)
	}
	return jsonapi.NewRoutes(rows, allowedOrigins, logger)
}
