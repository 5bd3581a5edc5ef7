// Package light is the wiring every function shares, and all that the two
// functions without a database need: the route table's machinery and their
// rows (routes.go), what each function may touch (access.go), how a deployed function starts (lazy.go),
// the parts built without the database (parts.go: the HMAC keys, the proof
// of work, the form registry) and the builders of Challenge and Forms
// (functions.go).
//
// It imports no Firestore client and no gRPC (a test says so), so a deployed
// Challenge or Forms, whose entry package imports this package alone, links
// and initialises none of them. Package wiring builds the five functions
// that hold the database on the same Parts, and composes all seven for the
// dev server and the tests.
package light

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/confirmation"
	"github.com/ownersite/introductions/functions/deliveryevents"
	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/sweep"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/retentionsweep"
)

// Handlers are the built handlers of every function, which the route table
// picks from. A function's tests may fill in only its own.
type Handlers struct {
	Challenge    *challenge.Handlers
	Forms        *forms.Handlers
	Drafts       *drafts.Handlers
	Confirmation *confirmation.Handlers
	Sweep        *sweep.Handlers
	// Sweeps, when set, starts a background sweep with the first draft of
	// each UTC day (a function's tests leave it nil).
	Sweeps *retentionsweep.Launcher
	// DeliveryEvents takes the email provider's signed delivery events.
	DeliveryEvents *deliveryevents.Handlers
	Admin          *admin.Handlers
}

// Service is one instance's built functions, serving their rows of the
// route table, and the parts they hold.
type Service struct {
	Config config.Config
	Logger *slog.Logger
	// Sweeps starts this instance's retention sweeps, one at a time; nil
	// where no function of the instance holds the store.
	Sweeps *retentionsweep.Launcher

	parts     *Parts
	table     Table
	functions map[string]http.Handler
	api       http.Handler
}

// NewService serves the functions names from h by their rows of table,
// each its own rows and all of them together (Mux), and holds p, which
// Close releases. On an error it releases p itself.
func NewService(p *Parts, h *Handlers, table Table, names []string) (*Service, error) {
	svc := &Service{Config: p.cfg, Logger: p.logger, Sweeps: h.Sweeps, parts: p, table: table, functions: map[string]http.Handler{}}
	for _, name := range names {
		served, err := table.Serve(h, []string{name}, p.cfg.AllowedOrigins, p.logger)
		if err != nil {
			return nil, errors.Join(err, p.Close())
		}
		svc.functions[name] = traced(p.cfg.Project, served)
	}
	served, err := table.Serve(h, names, p.cfg.AllowedOrigins, p.logger)
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	svc.api = traced(p.cfg.Project, served)
	return svc, nil
}

// BuildFunction builds the one function name, Challenge or Forms, as a
// deployed instance of it does: only the parts its builder asks for, within
// its Access. The functions that hold the database are package wiring's.
func BuildFunction(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, name string) (*Service, error) {
	build, ok := Builders[name]
	if !ok {
		return nil, fmt.Errorf("light: %s is not built without the database (see package wiring)", name)
	}
	p, err := NewParts(ctx, cfg, logger, o, name)
	if err != nil {
		return nil, err
	}
	var h Handlers
	if err := build(p, &h); err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", name, err), p.Close())
	}
	return NewService(p, &h, routes, []string{name})
}

// Deployed is the Builder of a deployed Challenge or Forms: BuildFunction
// without overrides.
func Deployed(ctx context.Context, cfg config.Config, logger *slog.Logger, name string) (*Service, error) {
	return BuildFunction(ctx, cfg, logger, Overrides{}, name)
}

// pathOf returns the path of function's first route, for the functions
// built here.
func pathOf(function string) string {
	for _, rt := range routes {
		if rt.Function == function {
			_, path, _ := strings.Cut(rt.Pattern, " ")
			return path
		}
	}
	return ""
}

// traced puts Cloud Run's trace header into the request context, so every
// log line of the request is grouped under its trace in Cloud Logging.
func traced(project string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if header := r.Header.Get(cloudlog.TraceHeader); header != "" {
			r = r.WithContext(cloudlog.WithTrace(r.Context(), project, header))
		}
		h.ServeHTTP(w, r)
	})
}

// Function returns the handler of one built function, serving its rows
// of the route table only; nil for a function this instance did not build.
func (s *Service) Function(name string) http.Handler { return s.functions[name] }

// Mux serves every route of every built function (its table's paths), and
// page at every other path (a path under /api/ or /admin/ that no route
// has is the API's 404): the dev server's one origin, the way a site's
// hosting rewrites /api/** to the functions.
func (s *Service) Mux(page http.Handler) http.Handler {
	mux := http.NewServeMux()
	paths := []string{"/api/", "/admin", "/admin/"}
	for _, rt := range s.table {
		_, path, _ := strings.Cut(rt.Pattern, " ")
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range slices.Compact(paths) {
		mux.Handle(path, s.api)
	}
	mux.Handle("/", page)
	return mux
}

// Close waits for a sweep and the deliveries in flight on this instance,
// writes the refusal counts still in memory, then releases what the
// functions opened (the store, the Secret Manager client of the keys, the
// scheduler client), the last opened first.
func (s *Service) Close() error { return s.parts.Close() }
