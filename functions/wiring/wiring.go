// Package wiring builds the service's functions from the typed config.
// Each function has one builder that asks only for the parts its routes
// use, and may open only what its row of Accesses names. routes.go is the
// route table, every route of every function. The access rows, the
// database-free parts (keys, proof of work, form registry), the builders
// of Challenge and Forms and their rows are package light's; here are the
// parts over the Firestore database (parts.go: the stores, the intake
// service, the handoff, the retention sweep, the scheduler reader) and the
// builders and rows of the five functions that hold it (functions.go,
// routes.go).
//
// A deployed function builds itself alone, on its first request
// (light.Lazy, with light.Deployed or Deployed); the dev server and the
// tests build every function on one set of parts (Build), so the two run
// the same code.
package wiring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/ownersite/introductions/functions/deliveryevents"
	"github.com/ownersite/introductions/functions/wiring/light"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"google.golang.org/api/option"
)

// The names of package light's types and access rows.
type (
	// Handlers are the built handlers of every function (light.Handlers).
	Handlers = light.Handlers
	// Access is what one deployed function may touch (light.Access).
	Access = light.Access
)

// The secrets a function may read, by configuration variable.
const (
	SecretHMAC       = light.SecretHMAC
	SecretPepper     = light.SecretPepper
	SecretWebhook    = light.SecretWebhook
	SecretSMTP       = light.SecretSMTP
	SecretMailgunKey = light.SecretMailgunKey
)

// Accesses returns every function's row of what it may touch
// (light.Accesses).
func Accesses() []Access { return light.Accesses() }

// Service is one instance's built functions and the parts they hold; a
// part its functions do not use is nil.
type Service struct {
	*light.Service
	// DB is the Firestore connection the stores are built on.
	DB *firestorestore.DB
	// Flow is the intake service (Drafts, Confirmation).
	Flow *intakeflow.Service
	// Delivery sends the outbox after each confirmation and is the
	// sweep's delivery-retries task.
	Delivery *delivery.Service
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

// Deployed is the Builder (see light.NewLazy) of a deployed function that
// holds the database: BuildFunction without overrides.
func Deployed(ctx context.Context, cfg config.Config, logger *slog.Logger, name string) (*light.Service, error) {
	svc, err := BuildFunction(ctx, cfg, logger, Overrides{}, name)
	if err != nil {
		return nil, err
	}
	return svc.Service, nil
}

func build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, names ...string) (*Service, error) {
	if o.Clock == nil {
		o.Clock = intake.SystemClock{}
	}
	if o.Entropy == nil {
		o.Entropy = rand.Reader
	}
	for _, name := range names {
		if builders[name] == nil {
			return nil, fmt.Errorf("wiring: no function %q", name)
		}
	}
	lp, err := light.NewParts(ctx, cfg, logger, light.Overrides{Clock: o.Clock, Keys: o.Keys, Forms: o.Forms}, names...)
	if err != nil {
		return nil, err
	}
	p := &parts{Parts: lp, ctx: ctx, cfg: cfg, logger: logger, o: o}
	var h Handlers
	var errs []error
	for _, name := range names {
		if err := builders[name](p, &h); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	svc, err := light.NewService(lp, &h, routes, names)
	if err != nil {
		return nil, err
	}
	return &Service{Service: svc, DB: p.db, Flow: p.flow, Delivery: p.deliveries}, nil
}
