// Package wiring is the one place the service is wired: it builds every
// dependency from the typed config (Firestore store, keyring, proof of work,
// form registry, check chain, intake service, retention sweep and its
// tasks) and each function's handler from them. Deployed functions build
// lazily on their first request: a failed start-up answers 503 UNAVAILABLE
// and is retried on the next request, never cached.
package wiring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/confirmation"
	"github.com/ownersite/introductions/functions/deliveryevents"
	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/sweep"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/mailgun"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"github.com/ownersite/introductions/shared/schedulerjob"
	"github.com/ownersite/introductions/shared/secretkeys"
	"github.com/ownersite/introductions/shared/smtpmail"
	"github.com/ownersite/introductions/shared/webhook"
	"google.golang.org/api/option"
)

// Service is the built service: its dependencies and the handler of every
// deployed function.
type Service struct {
	Config config.Config
	Logger *slog.Logger
	Store  *firestorestore.Store
	Flow   *intakeflow.Service
	// Sweeps starts this instance's retention sweeps, one at a time.
	Sweeps *retentionsweep.Launcher

	closeKeys func() error
	// Delivery sends the outbox after each confirmation and is the
	// sweep's delivery-retries task.
	Delivery *delivery.Service

	functions map[string]http.Handler
	api       http.Handler
	scheduler *schedulerjob.Reader
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

// Build wires the service from cfg. Errors say which part failed.
func Build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides) (*Service, error) {
	if o.Clock == nil {
		o.Clock = intake.SystemClock{}
	}
	if o.Entropy == nil {
		o.Entropy = rand.Reader
	}
	keys, closeKeys, err := loadKeys(ctx, cfg, logger, o)
	if err != nil {
		return nil, fmt.Errorf("HMAC keys: %w", err)
	}
	built := false
	defer func() {
		if !built {
			closeKeys()
		}
	}()
	pepper, err := loadPepper(ctx, cfg, o)
	if err != nil {
		return nil, fmt.Errorf("keyed-hash pepper: %w", err)
	}
	pow, err := altchapow.New(keys, o.Clock, altchapow.Config{MaxNumber: cfg.PowMaxNumber, Lifetime: cfg.PowLifetime})
	if err != nil {
		return nil, fmt.Errorf("proof of work: %w", err)
	}
	registry := o.Forms
	if registry == nil {
		if registry, err = formregistry.Load(); err != nil {
			return nil, fmt.Errorf("form registry: %w", err)
		}
	}
	store, err := firestorestore.Open(ctx, firestorestore.Config{Project: cfg.Project, Database: cfg.Database, OpTimeout: cfg.FirestoreTimeout}, logger, o.StoreOptions...)
	if err != nil {
		return nil, fmt.Errorf("firestore: %w", err)
	}
	senders, err := handoffSenders(cfg, o, logger)
	if err != nil {
		store.Close()
		return nil, err
	}
	var adminURL func(string) string
	if cfg.AdminURL != "" {
		adminURL = cfg.IntroductionAdminURL
	}
	store.DecideWith(func(e intake.LedgerEntry) (intake.Decision, string) { return delivery.Decide(e, registry) })
	deliveries, err := delivery.New(delivery.Deps{
		Store: store, Senders: senders, Forms: registry, Clock: o.Clock, Logger: logger,
		Function: cfg.Service, Revision: cfg.Revision,
		Config: delivery.Config{RetryBase: cfg.DeliveryRetryBase, MaxAttempts: cfg.DeliveryMaxAttempts, AdminURL: adminURL},
	})
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("delivery: %w", err)
	}
	flood, err := floodlimit.New(cfg.FloodLimit, cfg.FloodWindow)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("flood layer: %w", err)
	}
	flow, err := intakeflow.New(intakeflow.Deps{
		Store: store, Reviser: store, Forms: registry, Flood: flood, Keys: keys, Pepper: pepper, Clock: o.Clock, Entropy: o.Entropy, Logger: logger,
		Chain:      checks.Chain{checks.RateLimit{Flood: flood}, checks.Honeypot{}, checks.ContentRules{}, checks.ProofOfWork{Verifier: pow}},
		Retention:  cfg.Retention,
		IPLimit:    intake.RateRule{Limit: cfg.RateLimitIPPerHour, Window: time.Hour},
		EmailLimit: intake.RateRule{Limit: cfg.RateLimitEmailPerHour, Window: time.Hour},
		Function:   cfg.Service, Revision: cfg.Revision,
		Handoff: deliveries,
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	addedFields := func(formID, version string) []string {
		if v, ok := registry.Find(formID, version); ok {
			return v.AddedFields()
		}
		return nil
	}
	honeypot := func(formID, version string) string {
		if v, ok := registry.Find(formID, version); ok {
			return v.Honeypot
		}
		return ""
	}
	// Sweep tasks run after each sweep's deletions, in this order: one line
	// each.
	figures, err := admin.NewDailyFiguresTask(store, logger)
	if err != nil {
		store.Close()
		return nil, err
	}
	tasks := []intake.SweepTask{
		deliveries, // delivery-retries: the envelopes whose attempt is due
		figures,    // the admin's chart: each finished day counted once
	}
	sweeper, err := retentionsweep.New(retentionsweep.Config{
		Store: store, Registry: registry, Tasks: tasks, Clock: o.Clock, Entropy: o.Entropy, Logger: logger,
		RunRetention: cfg.SweepRunRetention,
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	runner := retentionsweep.Runner(sweeper)
	if o.SweepRunner != nil {
		runner = o.SweepRunner
	}
	sweeps, err := retentionsweep.NewLauncher(runner, o.Clock, logger)
	if err != nil {
		store.Close()
		return nil, err
	}
	powParams := formregistry.ProofOfWorkParams{Algorithm: "SHA-256", MaxNumber: cfg.PowMaxNumber, ChallengePath: pathOf("Challenge")}
	h := Handlers{Sweeps: sweeps}
	errs := make([]error, 6)
	h.Challenge, errs[0] = challenge.New(pow)
	h.Forms, errs[1] = forms.New(registry, powParams, cfg.Retention, deliveries.Destinations())
	h.Drafts, errs[2] = drafts.New(flow, drafts.Options{ForwardedForPosition: cfg.ForwardedForPosition, Honeypot: honeypot, AddedFields: addedFields})
	h.Confirmation, errs[3] = confirmation.New(flow, confirmation.Options{ForwardedForPosition: cfg.ForwardedForPosition})
	// The sweep runs through the launcher, so a call joins a run already in
	// flight on this instance instead of starting a second.
	h.Sweep, errs[4] = sweep.New(sweeps)
	providers, err := eventProviders(cfg, o)
	errs = append(errs, err)
	h.DeliveryEvents, errs[5] = deliveryevents.New(deliveries, providers)
	svc := &Service{Config: cfg, Logger: logger, Store: store, Flow: flow, Delivery: deliveries, Sweeps: sweeps, closeKeys: closeKeys, functions: map[string]http.Handler{}}
	adminDeps := admin.Deps{Store: store, Retrier: deliveries, Clock: o.Clock, Logger: logger}
	if cfg.SchedulerJob != "" {
		svc.scheduler, err = schedulerjob.Open(ctx, cfg.SchedulerJob, cfg.FirestoreTimeout)
		if err != nil {
			errs = append(errs, fmt.Errorf("scheduler job: %w", err))
		} else {
			adminDeps.Scheduler = svc.scheduler
		}
	}
	h.Admin, err = admin.New(adminDeps)
	errs = append(errs, err)
	for _, name := range append(Functions(), "") {
		served, err := Serve(&h, name, cfg.AllowedOrigins, logger)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if name == "" {
			svc.api = traced(cfg.Project, served)
		} else {
			svc.functions[name] = traced(cfg.Project, served)
		}
	}
	if err := errors.Join(errs...); err != nil {
		svc.Close()
		return nil, err
	}
	built = true
	return svc, nil
}

// eventProviders are the delivery event providers that are on: Mailgun's
// when MAILGUN_WEBHOOK_SIGNING_KEY is set, and any the overrides add.
func eventProviders(cfg config.Config, o Overrides) (map[string]deliveryevents.Provider, error) {
	providers := map[string]deliveryevents.Provider{}
	if cfg.MailgunSigningKey != "" {
		v, err := mailgun.NewVerifier(cfg.MailgunSigningKey, o.Clock.Now)
		if err != nil {
			return nil, fmt.Errorf("delivery events: %w", err)
		}
		providers[deliveryevents.ProviderMailgun] = deliveryevents.Mailgun(v)
	}
	for name, p := range o.EventProviders {
		providers[name] = p
	}
	return providers, nil
}

// handoffSenders are the destination adapters that are on: email when
// SMTP_HOST is set, the webhook when WEBHOOK_URL is, and any the overrides
// add.
func handoffSenders(cfg config.Config, o Overrides, logger *slog.Logger) ([]intake.Sender, error) {
	var senders []intake.Sender
	var errs []error
	if cfg.SMTP.Enabled() {
		s, err := smtpmail.New(cfg.SMTP, smtpmail.Options{Logger: logger, Now: o.Clock.Now})
		errs = append(errs, err)
		if err == nil {
			senders = append(senders, s)
		}
	}
	if cfg.Webhook.Enabled() {
		s, err := webhook.New(cfg.Webhook, webhook.Options{Logger: logger, Now: o.Clock.Now})
		errs = append(errs, err)
		if err == nil {
			senders = append(senders, s)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	return append(senders, o.Senders...), nil
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

// loadKeys returns the HMAC keys (the override's, a random key of this
// process without HMAC_SECRET, else the secret's versions, following
// rotations while the instance runs) and what releases them.
func loadKeys(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides) (intake.Keyring, func() error, error) {
	none := func() error { return nil }
	switch {
	case o.Keys != nil:
		return o.Keys, none, nil
	case cfg.HMACSecret == "":
		ring, err := keyring.Local(rand.Reader)
		return ring, none, err
	}
	rotating, err := secretkeys.Open(ctx, cfg.HMACSecret, logger)
	if err != nil {
		return nil, none, err
	}
	return rotating, rotating.Close, nil
}

// loadPepper returns the keyed-hash pepper: the override's, a random one
// of this process without HASH_PEPPER_SECRET (local runs, and the deployed
// functions that hash nothing), else the pinned secret version's.
func loadPepper(ctx context.Context, cfg config.Config, o Overrides) ([]byte, error) {
	switch {
	case o.Pepper != nil:
		return o.Pepper, nil
	case cfg.HashPepperSecret == "":
		pepper := make([]byte, keyring.MinKeyLen)
		_, err := io.ReadFull(rand.Reader, pepper)
		return pepper, err
	}
	return secretkeys.OpenPepper(ctx, cfg.HashPepperSecret)
}

// Function returns the handler of one deployed function, serving its rows
// of the route table only; nil for a name the table does not have.
func (s *Service) Function(name string) http.Handler { return s.functions[name] }

// Mux serves every route of every function, whatever its path, and page at
// every other path (a path under /api/ or /admin/ that no route has is the
// API's 404): the dev server's one origin, the way a site's hosting rewrites
// /api/** to the functions.
func (s *Service) Mux(page http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", s.api)
	mux.Handle("/admin", s.api)
	mux.Handle("/admin/", s.api)
	mux.Handle("/", page)
	for _, rt := range routes {
		_, path, _ := strings.Cut(rt.pattern, " ")
		handleOnce(mux, path, s.api)
	}
	return mux
}

// handleOnce registers h at path unless an equivalent path (one a row
// with another method or wildcard name already gave) is registered.
func handleOnce(mux *http.ServeMux, path string, h http.Handler) {
	defer func() { recover() }() // ServeMux panics on a path it already has
	mux.Handle(path, h)
}

// Close waits for a sweep and the deliveries in flight on this instance,
// writes the refusal counts still in memory (within ten seconds, the grace
// Cloud Run gives a stopping instance), then releases the store, the Secret
// Manager client of the keys and the scheduler client.
func (s *Service) Close() error {
	s.Sweeps.Wait()
	s.Delivery.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	flushErr := s.Flow.FlushRefusals(ctx, true)
	if s.scheduler != nil {
		s.scheduler.Close()
	}
	return errors.Join(flushErr, s.Store.Close(), s.closeKeys())
}

// Lazy builds the service on the first request that needs it. A failure is
// answered 503 UNAVAILABLE with Retry-After and retried on the next request.
type Lazy struct {
	getenv func(string) string

	mu  sync.Mutex
	svc *Service
}

// NewLazy returns a Lazy that reads its config through getenv when first
// used.
func NewLazy(getenv func(string) string) *Lazy { return &Lazy{getenv: getenv} }

func (l *Lazy) get(ctx context.Context) (svc *Service, logger *slog.Logger, built bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.svc != nil {
		return l.svc, l.svc.Logger, false, nil
	}
	cfg, cfgErr := config.Load(l.getenv)
	logger = cloudlog.New(stderr, cfg.LogLevel)
	if cfgErr != nil {
		return nil, logger, false, fmt.Errorf("configuration: %w", cfgErr)
	}
	svc, err = Build(ctx, cfg, logger, Overrides{})
	if err != nil {
		return nil, logger, false, err
	}
	l.svc = svc
	return svc, logger, true, nil
}

// Function returns the handler of the deployed function name, built on its
// first request.
//
// A cold start (the request that built the service) also starts a sweep in
// the background, which no request waits for; the Sweep function's own cold
// start does not, since its request runs one anyway (and is then recorded
// as the scheduler's).
func (l *Lazy) Function(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		svc, logger, built, err := l.get(r.Context())
		if err != nil {
			logger.ErrorContext(r.Context(), "start-up failed; will retry on the next request", slog.String("error", err.Error()))
			jsonapi.WriteError(w, r, nil, intake.Unavailable(errors.New("start-up failed"), 5*time.Second))
			return
		}
		if built && name != sweepFunction {
			svc.Sweeps.Start(intake.SweepByColdStart)
		}
		svc.Function(name).ServeHTTP(w, r)
	}
}
