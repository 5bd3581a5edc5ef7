// Package dbparts builds the parts over the Firestore database (parts.go:
// the stores, the intake service, the handoff, the retention sweep, the
// scheduler reader) on an instance's wiring.Parts, each once and only when
// a builder asks for it, and only what the instance's Access allows.
//
// It is apart from package wiring because Go links whole packages: a
// deployed Challenge or Forms, which links wiring, links none of this (no
// Firestore client, no gRPC, no delivery adapter, no admin).
package dbparts

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"

	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/delivery-events"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"google.golang.org/api/option"
)

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

// The names of the parts kept here beside those the functions make.
const (
	overridesPart = "database overrides"
	pepperPart    = "keyed-hash pepper"
)

// overrides are the overrides p was built with (none when deployed).
func overrides(p *wiring.Parts) Overrides {
	o, _ := wiring.Part(p, overridesPart, func() (Overrides, error) { return Overrides{}, nil })
	return o
}

func (o Overrides) entropy() io.Reader {
	if o.Entropy == nil {
		return rand.Reader
	}
	return o.Entropy
}

// Service is one instance's built functions and the parts they hold; a
// part its functions do not use is nil.
type Service struct {
	*wiring.Service
	// Sweeps are the retention sweeps (wiring.Service's, concrete).
	Sweeps *retentionsweep.Launcher
	// DB is the Firestore connection the stores are built on.
	DB *firestorestore.DB
	// Flow is the intake service (Drafts, Confirmation).
	Flow *intakeflow.Service
	// Delivery sends the outbox after each confirmation and is the
	// sweep's delivery-retries task.
	Delivery *delivery.Service
}

// Build builds fns on one set of parts, with o's replacements: every
// function for the dev server and the tests, one for a test of a deployed
// function. Errors say which function and part failed.
func Build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, fns ...wiring.Function) (*Service, error) {
	var names []string
	for _, fn := range fns {
		names = append(names, fn.Name)
	}
	p, err := wiring.NewParts(ctx, cfg, logger, o.Clock, names...)
	if err != nil {
		return nil, err
	}
	p.Give(overridesPart, o)
	if o.Keys != nil {
		p.Give(challenge.KeysPart, o.Keys)
	}
	if o.Pepper != nil {
		p.Give(pepperPart, o.Pepper)
	}
	if o.Forms != nil {
		p.Give(forms.RegistryPart, o.Forms)
	}
	svc, err := p.Serve(fns...)
	if err != nil {
		return nil, err
	}
	return &Service{Service: svc, Sweeps: wiring.Made[*retentionsweep.Launcher](p, "retention"), DB: wiring.Made[*firestorestore.DB](p, "database"),
		Flow: wiring.Made[*intakeflow.Service](p, "intake"), Delivery: wiring.Made[*delivery.Service](p, "delivery")}, nil
}
