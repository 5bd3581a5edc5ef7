// Package wiring builds the service's functions from the typed config.
// Each function has one builder (functions.go) that asks only for the parts
// its routes use (parts.go: keys, proof of work, form registry, the
// Firestore stores, the intake service, the handoff, the retention sweep),
// and may open only what its row of Accesses names. A deployed function
// builds itself alone, on its first request (Lazy); the dev server builds
// every function on one set of parts (Build), so the two run the same code.
package wiring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
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
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"google.golang.org/api/option"
)

// Service is one instance's built functions and the parts they hold; a
// part its functions do not use is nil.
type Service struct {
	Config config.Config
	Logger *slog.Logger
	// DB is the Firestore connection the stores are built on.
	DB *firestorestore.DB
	// Flow is the intake service (Drafts, Confirmation).
	Flow *intakeflow.Service
	// Delivery sends the outbox after each confirmation and is the
	// sweep's delivery-retries task.
	Delivery *delivery.Service
	// Sweeps starts this instance's retention sweeps, one at a time.
	Sweeps *retentionsweep.Launcher

	parts     *parts
	functions map[string]http.Handler
	api       http.Handler
}

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

// Overrides replace parts of the production wiring in tests.
type Overrides struct {
	Clock   intake.Clock
	Entropy io.Reader
	// StoreOptions are passed to the Firestore client (e.g. an RPC counter).
	StoreOptions []option.ClientOption
	// SweepRunner replaces the retention sweep the launcher runs.
	SweepRunner retentionsweep.Runner
	// Keys and Pepper replace the HMAC keys and the keyed-hash pepper.
	Keys   intake.Keyring
	Pepper []byte
	// Senders are the handoff's destination adapters besides the admin
	// inbox.
	Senders []intake.Sender
	// EventProviders are delivery event providers besides the configured
	// ones, by name.
	EventProviders map[string]deliveryevents.Provider
	// Forms replaces the form registry embedded in the binary (a test's
	// made-up version).
	Forms *formregistry.Registry
}

// Build builds every function on one set of parts: the dev server's one
// origin and the tests' whole service. Errors say which part failed.
func Build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides) (*Service, error) {
	return build(ctx, cfg, logger, o, Functions()...)
}

// BuildFunction builds the one function name, as a deployed instance of it
// does: only the parts its builder asks for, within its Access.
func BuildFunction(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, name string) (*Service, error) {
	return build(ctx, cfg, logger, o, name)
}

func build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, names ...string) (*Service, error) {
	if o.Clock == nil {
		o.Clock = intake.SystemClock{}
	}
	if o.Entropy == nil {
		o.Entropy = rand.Reader
	}
	access, err := accessOf(names)
	if err != nil {
		return nil, err
	}
	p := &parts{ctx: ctx, cfg: cfg, logger: logger, o: o, access: access}
	var h Handlers
	var errs []error
	for _, name := range names {
		if err := builders[name](p, &h); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	svc := &Service{Config: cfg, Logger: logger, DB: p.db, Flow: p.flow, Delivery: p.deliveries, Sweeps: p.sweeps,
		parts: p, functions: map[string]http.Handler{}}
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, p.close())
	}
	for _, name := range names {
		served, err := Serve(&h, name, cfg.AllowedOrigins, logger)
		if err != nil {
			return nil, errors.Join(err, p.close())
		}
		svc.functions[name] = traced(cfg.Project, served)
	}
	served, err := serve(&h, names, cfg.AllowedOrigins, logger)
	if err != nil {
		return nil, errors.Join(err, p.close())
	}
	svc.api = traced(cfg.Project, served)
	return svc, nil
}

// accessOf is what the functions names may touch together.
func accessOf(names []string) (Access, error) {
	var union Access
	for _, name := range names {
		i := slices.IndexFunc(accesses, func(a Access) bool { return a.Function == name })
		if i < 0 || builders[name] == nil {
			return Access{}, fmt.Errorf("wiring: no function %q", name)
		}
		a := accesses[i]
		union.Function = strings.TrimPrefix(union.Function+"+"+name, "+")
		union.Firestore = union.Firestore || a.Firestore
		for _, s := range a.Secrets {
			if !slices.Contains(union.Secrets, s) {
				union.Secrets = append(union.Secrets, s)
			}
		}
	}
	return union, nil
}

// pathOf returns the path of function's first route.
func pathOf(function string) string {
	for _, rt := range routes {
		if rt.function == function {
			_, path, _ := strings.Cut(rt.pattern, " ")
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

// Mux serves every route of every built function, whatever its path, and
// page at every other path (a path under /api/ or /admin/ that no route
// has is the API's 404): the dev server's one origin, the way a site's
// hosting rewrites /api/** to the functions.
func (s *Service) Mux(page http.Handler) http.Handler {
	mux := http.NewServeMux()
	paths := []string{"/api/", "/admin", "/admin/"}
	for _, rt := range routes {
		_, path, _ := strings.Cut(rt.pattern, " ")
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
func (s *Service) Close() error { return s.parts.close() }
