package light

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

// Route is one row of the route table: the deployed function (its entry
// point name) that serves a net/http ServeMux method pattern, and which of
// the built handlers answers it.
type Route struct {
	Function string
	Pattern  string
	Handler  func(*Handlers) jsonapi.Handler
}

// Table is a route table, in the order its rows are served.
type Table []Route

// routes are the rows of the functions built here, without the database:
// the route table's first rows (wiring.Routes is the whole table). Each
// function's rows live with its builder, so a deployed Challenge or Forms
// links no handler of the functions that hold the database.
var routes = Table{
	{"Challenge", "GET /api/introductions/challenge", func(h *Handlers) jsonapi.Handler { return h.Challenge.Issue }},
	{"Forms", "GET /api/forms/{formId}", func(h *Handlers) jsonapi.Handler { return h.Forms.Latest }},
}

// Routes returns the rows of the functions built here. The caller may not
// change what it returns.
func Routes() Table { return routes }

// SweepFunction is the entry point of the retention sweep.
const SweepFunction = "Sweep"

// sweepAfterQuietSpell starts a retention sweep in the background with the
// first request after SWEEP_AFTER_IDLE without any on this instance; the
// request never waits for it.
func sweepAfterQuietSpell(sweeps *retentionsweep.Launcher, next jsonapi.Handler) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sweeps.Request()
		return next(w, r)
	}
}

// Functions returns the name of every function of t, in the order t first
// names it.
func (t Table) Functions() []string {
	var names []string
	seen := map[string]bool{}
	for _, rt := range t {
		if !seen[rt.Function] {
			seen[rt.Function] = true
			names = append(names, rt.Function)
		}
	}
	return names
}

// Patterns returns the route patterns function serves, in table order.
func (t Table) Patterns(function string) []string {
	var out []string
	for _, rt := range t {
		if rt.Function == function {
			out = append(out, rt.Pattern)
		}
	}
	return out
}

// Serve returns the handler of the functions names: their rows of t,
// answered by h, behind the JSON API edge (see jsonapi.NewRoutes). Only the
// handlers of the rows served are used. Where h has Sweeps, every row but
// the Sweep function's own starts a sweep after a quiet spell. It returns an
// error when t has no row of any of names.
func (t Table) Serve(h *Handlers, names []string, allowedOrigins []string, logger *slog.Logger) (http.Handler, error) {
	var rows []jsonapi.Route
	for _, rt := range t {
		if !slices.Contains(names, rt.Function) {
			continue
		}
		handle := rt.Handler(h)
		if h.Sweeps != nil && rt.Function != SweepFunction {
			// The Sweep function's own request runs a sweep anyway.
			handle = sweepAfterQuietSpell(h.Sweeps, handle)
		}
		rows = append(rows, jsonapi.Route{Pattern: rt.Pattern, Handle: handle})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("light: the route table has no function among %q", names)
	}
	return jsonapi.NewRoutes(rows, allowedOrigins, logger)
}
