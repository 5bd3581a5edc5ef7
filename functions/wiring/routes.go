package wiring

import (
	"github.com/ownersite/introductions/shared/jsonapi"
)

// route is one row of the route table: the deployed function (its entry
// point name) that serves a net/http ServeMux method pattern, and which of
// the built handlers answers it.
type route struct {
	function string
	pattern  string
	handler  func(*handlers) jsonapi.Handler
}

// routes is every route of every function, and the only place a path is
// written. Each deployed function serves exactly its own rows (Function),
// and the dev server serves all of them on one origin (API, Mux), so the two
// cannot disagree; a path with no row answers 404 and a known path with
// another method 405 with Allow, both problem+json.
//
// To add a route to an existing function, add a row here and the handler
// method in its package under functions/ (for example, the Confirmation
// function's "POST /api/introductions/{id}/revision" row returns
// h.confirmation.Revise). To add a new function (Sweep, Admin,
// DeliveryEvents…), also give handlers a field for its package's handlers
// and build it in Build; the root package registers every function named
// here as an entry point by itself.
var routes = []route{
	{"Challenge", "GET /api/introductions/challenge", func(h *handlers) jsonapi.Handler { return h.challenge.Issue }},
	{"Forms", "GET /api/forms/{formId}", func(h *handlers) jsonapi.Handler { return h.forms.Latest }},
	{"Drafts", "POST /api/introductions", func(h *handlers) jsonapi.Handler { return h.drafts.Create }},
	{"Confirmation", "POST /api/introductions/{id}/confirmation", func(h *handlers) jsonapi.Handler { return h.confirmation.Confirm }},
	{"Confirmation", "POST /api/introductions/{id}/withdrawal", func(h *handlers) jsonapi.Handler { return h.confirmation.Withdraw }},
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

// routesOf returns the rows of function, or of every function when
// function is "".
func routesOf(h *handlers, function string) []jsonapi.Route {
	var out []jsonapi.Route
	for _, rt := range routes {
		if function == "" || rt.function == function {
			out = append(out, jsonapi.Route{Pattern: rt.pattern, Handle: rt.handler(h)})
		}
	}
	return out
}
