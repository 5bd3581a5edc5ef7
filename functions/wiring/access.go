package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
)

// Access is what one deployed function may touch: the database, the attachments' bucket, and
// secrets by configuration variable. The builders refuse what a row does not name, and infra/
// grants exactly what it names.
type Access struct {
	Function    string // the entry point name
	Firestore   bool
	Secrets     []string
	Attachments bool
}

// The secrets a function may read, by configuration variable.
const (
	SecretHMAC       = "HMAC_SECRET"
	SecretPepper     = "HASH_PEPPER_SECRET"
	SecretWebhook    = "WEBHOOK_SECRET"
	SecretSMTP       = "SMTP_PASSWORD"
	SecretMailgunKey = "MAILGUN_WEBHOOK_SIGNING_KEY"
)

// handoffSecrets are what sending the handoff (email, webhook) needs.
var handoffSecrets = []string{SecretWebhook, SecretSMTP}

// accesses is every function's row, in the route table's order.
var accesses = []Access{
	{Function: "Challenge", Secrets: []string{SecretHMAC}},
	{Function: "Forms"},
	{Function: "Drafts", Firestore: true, Attachments: true, Secrets: []string{SecretHMAC, SecretPepper}},
	// Confirmation verifies no proof of work: no HMAC key.
	{Function: "Confirmation", Firestore: true, Attachments: true, Secrets: append([]string{SecretPepper}, handoffSecrets...)},
	{Function: "DeliveryEvents", Firestore: true, Secrets: []string{SecretMailgunKey}},
	// Admin signs its list's cursors under a key derived from the HMAC key.
	{Function: "Sweep", Firestore: true, Attachments: true, Secrets: handoffSecrets},
	{Function: "Admin", Firestore: true, Attachments: true, Secrets: append([]string{SecretHMAC}, handoffSecrets...)},
}

// Accesses returns every function's row, in the route table's order, not to be changed.
func Accesses() []Access { return accesses }

// Parts are what one instance's functions are built from: configuration, logger, clock, what
// it may touch (its rows' union), and the parts its builders ask for, each made once (Part).
type Parts struct {
	Config config.Config
	Logger *slog.Logger
	Clock  intake.Clock
	// Sweeps are set by the part that makes them; nil without the store.
	Sweeps Sweeps

	ctx     context.Context
	access  Access
	made    map[string]any
	closers []func() error
}

// NewParts returns the parts of an instance of the functions names, on clock (nil: the
// system's); it refuses a name with no row in Accesses.
func NewParts(ctx context.Context, cfg config.Config, logger *slog.Logger, clock intake.Clock, names ...string) (*Parts, error) {
	if clock == nil {
		clock = intake.SystemClock{}
	}
	var union Access
	for _, name := range names {
		i := slices.IndexFunc(accesses, func(a Access) bool { return a.Function == name })
		if i < 0 {
			return nil, fmt.Errorf("wiring: no function %q", name)
		}
		a := accesses[i]
		union.Function = strings.TrimPrefix(union.Function+"+"+name, "+")
		union.Firestore = union.Firestore || a.Firestore
		union.Attachments = union.Attachments || a.Attachments
		union.Secrets = append(union.Secrets, a.Secrets...)
	}
	slices.Sort(union.Secrets)
	union.Secrets = slices.Compact(union.Secrets)
	return &Parts{Config: cfg, Logger: logger, Clock: clock, ctx: ctx, access: union, made: map[string]any{}}, nil
}

// Part returns p's part named name, given or made earlier, else what make makes (kept unless it fails).
func Part[T any](p *Parts, name string, make func() (T, error)) (T, error) {
	if part, ok := p.made[name]; ok {
		return part.(T), nil
	}
	part, err := make()
	if err != nil {
		return part, err
	}
	p.made[name] = part
	return part, nil
}

// Made returns p's part named name if made or given, else T's zero value.
func Made[T any](p *Parts, name string) T {
	part, _ := p.made[name].(T)
	return part
}

// Give gives p the part named name: a test's replacement.
func (p *Parts) Give(name string, part any) { p.made[name] = part }

// Context is the start-up's context, which bounds what the parts open.
func (p *Parts) Context() context.Context { return p.ctx }

// Access is what the instance may touch: the union of its functions' rows.
func (p *Parts) Access() Access { return p.access }

// May reports whether the instance may read secret, and says why not.
func (p *Parts) May(secret string) error {
	if !slices.Contains(p.access.Secrets, secret) {
		return fmt.Errorf("%s may not read %s (see functions/wiring/access.go)", p.access.Function, secret)
	}
	return nil
}

// KeepsDrafts reports whether the instance may read the HMAC keys a draft's proof of work needs.
func (p *Parts) KeepsDrafts() bool { return p.May(SecretHMAC) == nil }

// SendsHandoff reports whether the instance may read every handoff secret.
func (p *Parts) SendsHandoff() bool {
	return !slices.ContainsFunc(handoffSecrets, func(s string) bool { return p.May(s) != nil })
}

// OnClose adds f to what Close releases.
func (p *Parts) OnClose(f func() error) { p.closers = append(p.closers, f) }

// Close releases what the parts opened, the last opened first.
func (p *Parts) Close() error {
	var errs []error
	for _, f := range slices.Backward(p.closers) {
		errs = append(errs, f())
	}
	p.closers = nil
	return errors.Join(errs...)
}
