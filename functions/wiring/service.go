// Package wiring is what the service's functions share: how a deployed
// function starts (Lazy), what each may touch and the parts built on demand
// (access.go), and the serving of each function's rows of the route table.
// It names no function's handlers and links no Firestore client (a test
// says so); the parts over the database are dbparts'. A deployed function
// builds itself alone on its first request; the dev server and the tests
// build every function on one set of parts.
package wiring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Service is one instance's built functions and the parts they hold.
type Service struct {
	Sweeps Sweeps // nil without the store

	parts     *Parts
	paths     []string
	functions map[string]http.Handler
	api       http.Handler
}

// Serve builds fns on p and serves their rows behind the JSON API edge, each function's alone
// (Function) and together (Mux); with Sweeps, every row but Sweep's starts one after a quiet
// spell. On an error it releases p.
func (p *Parts) Serve(fns ...Function) (*Service, error) {
	svc := &Service{parts: p, functions: map[string]http.Handler{}}
	built := make([][]jsonapi.Route, len(fns))
	var errs []error
	for i, fn := range fns {
		rows, err := fn.Build(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", fn.Name, err))
		}
		built[i] = rows
	}
	svc.Sweeps = p.Sweeps
	var all []jsonapi.Route
	for i, fn := range fns {
		rows := slices.Clone(built[i])
		for j := range rows {
			if p.Sweeps != nil && fn.Name != SweepFunction { // the Sweep function's own request runs a sweep anyway
				rows[j].Handle = sweepAfterQuietSpell(p.Sweeps, rows[j].Handle)
			}
			_, path, _ := strings.Cut(rows[j].Pattern, " ")
			svc.paths = append(svc.paths, path)
		}
		served, err := jsonapi.NewRoutes(rows, p.Config.AllowedOrigins, p.Logger)
		errs = append(errs, err)
		svc.functions[fn.Name] = traced(p.Config.Project, served)
		all = append(all, rows...)
	}
	api, err := jsonapi.NewRoutes(all, p.Config.AllowedOrigins, p.Logger)
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	svc.api = traced(p.Config.Project, api)
	return svc, nil
}

// traced puts Cloud Run's trace header into the request context for the logs.
func traced(project string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if header := r.Header.Get(cloudlog.TraceHeader); header != "" {
			r = r.WithContext(cloudlog.WithTrace(r.Context(), project, header))
		}
		h.ServeHTTP(w, r)
	})
}

// Function returns one built function's handler; nil for one not built.
func (s *Service) Function(name string) http.Handler { return s.functions[name] }

// Mux serves every built route, the API's 404 elsewhere under /api/ and /admin/, and page
// at every other path: the dev server's one origin.
func (s *Service) Mux(page http.Handler) http.Handler {
	mux := http.NewServeMux()
	paths := append([]string{"/api/", "/admin", "/admin/"}, s.paths...)
	slices.Sort(paths)
	for _, path := range slices.Compact(paths) {
		mux.Handle(path, s.api)
	}
	mux.Handle("/", page)
	return mux
}

// Close waits for the work in flight, then releases what the functions opened, last first.
func (s *Service) Close() error { return s.parts.Close() }

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

// Bounds on a deployed function's start-up: after a failed start the next attempt waits
// FirstRetry, each further failure doubling the wait up to LastRetry.
const (
	StartTimeout = 30 * time.Second // bounds one attempt to build a function
	FirstRetry   = time.Second
	LastRetry    = 30 * time.Second
)

// Lazy is one deployed function, built on its first request; requests wait for that attempt,
// and after a failure are answered 503 UNAVAILABLE with Retry-After until the next, with backoff.
type Lazy struct {
	fn     Function
	getenv func(string) string
	now    func() time.Time

	mu       sync.Mutex
	svc      *Service
	building chan struct{} // closed when the attempt in flight ends
	nextTry  time.Time     // no attempt before it, after a failure
	wait     time.Duration // the wait after the next failure
}

// NewLazy returns fn, configured through getenv, built alone when first used.
func NewLazy(fn Function, getenv func(string) string) *Lazy {
	return &Lazy{fn: fn, getenv: getenv, now: time.Now, wait: FirstRetry}
}

// stderr is where deployed functions log: Cloud Run collects it.
var stderr io.Writer = os.Stderr

// ServeHTTP builds the function if need be, then serves r. A cold start also starts a
// background sweep where the function holds the store (but Sweep's, whose request runs one).
func (l *Lazy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc, retryAfter, err := l.get(r.Context())
	if err != nil {
		jsonapi.WriteError(w, r, nil, intake.Unavailable(errors.New("start-up failed"), retryAfter))
		return
	}
	svc.Function(l.fn.Name).ServeHTTP(w, r)
}

// get returns the built function, building it unless an attempt is in flight or failed too recently.
func (l *Lazy) get(ctx context.Context) (*Service, time.Duration, error) {
	for {
		l.mu.Lock()
		switch {
		case l.svc != nil:
			svc := l.svc
			l.mu.Unlock()
			return svc, 0, nil
		case l.building != nil:
			building := l.building
			l.mu.Unlock()
			select {
			case <-building:
				continue
			case <-ctx.Done():
				return nil, FirstRetry, ctx.Err()
			}
		case l.now().Before(l.nextTry):
			wait := l.nextTry.Sub(l.now())
			l.mu.Unlock()
			return nil, wait, errors.New("start-up failed recently")
		}
		building := make(chan struct{})
		l.building = building
		l.mu.Unlock()

		svc, err := l.build(ctx)

		l.mu.Lock()
		l.building = nil
		if err == nil {
			l.svc = svc
		} else {
			l.nextTry = l.now().Add(l.wait)
			l.wait = min(2*l.wait, LastRetry)
		}
		retryAfter := l.nextTry.Sub(l.now())
		l.mu.Unlock()
		close(building)
		if err != nil {
			return nil, retryAfter, err
		}
		if svc.Sweeps != nil && l.fn.Name != SweepFunction {
			svc.Sweeps.Start(intake.SweepByColdStart)
		}
		return svc, 0, nil
	}
}

// build makes one attempt, bounded by StartTimeout, not by the request.
func (l *Lazy) build(ctx context.Context) (*Service, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StartTimeout)
	defer cancel()
	cfg, cfgErr := config.Load(l.getenv)
	logger := cloudlog.New(stderr, cfg.LogLevel)
	if cfgErr != nil {
		logger.ErrorContext(ctx, "start-up failed: configuration; will retry", slog.String("function", l.fn.Name), slog.String("error", cfgErr.Error()))
		return nil, cfgErr
	}
	p, err := NewParts(ctx, cfg, logger, nil, l.fn.Name)
	var svc *Service
	if err == nil {
		svc, err = p.Serve(l.fn)
	}
	if err != nil {
		logger.ErrorContext(ctx, "start-up failed; will retry", slog.String("function", l.fn.Name), slog.String("error", err.Error()))
		return nil, err
	}
	return svc, nil
}
