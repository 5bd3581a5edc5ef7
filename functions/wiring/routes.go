package wiring

import (
	"net/http"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// A Function is one deployed function: its entry point, its rows of the route table (their
// handlers not to be called), and its builder, which returns the rows answered.
type Function struct {
	Name   string
	Routes []jsonapi.Route
	Build  func(p *Parts) ([]jsonapi.Route, error)
}

// NewFunction names a function whose routes, given its handlers (nil: the rows alone), are
// answered by what build builds.
func NewFunction[H any](name string, routes func(*H) []jsonapi.Route, build func(*Parts) (*H, error)) Function {
	return Function{Name: name, Routes: routes(nil), Build: func(p *Parts) ([]jsonapi.Route, error) {
		h, err := build(p)
		if err != nil {
			return nil, err
		}
		return routes(h), nil
	}}
}

// Patterns returns the route patterns f serves, in its rows' order.
func (f Function) Patterns() []string {
	var out []string
	for _, rt := range f.Routes {
		out = append(out, rt.Pattern)
	}
	return out
}

// SweepFunction is the entry point of the retention sweep.
const SweepFunction = "Sweep"

// Sweeps starts an instance's retention sweeps one at a time, never making a request wait:
// Start by trigger unless one runs, Request after SWEEP_AFTER_IDLE without requests.
type Sweeps interface {
	Start(trigger intake.SweepTrigger) bool
	Request() bool
}

// sweepAfterQuietSpell starts a background sweep with the first request after a quiet spell.
func sweepAfterQuietSpell(sweeps Sweeps, next jsonapi.Handler) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sweeps.Request()
		return next(w, r)
	}
}
