package light

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/secretkeys"
)

// Overrides replace parts built without the database in tests.
type Overrides struct {
	Clock intake.Clock
	// Keys replaces the HMAC keys.
	Keys intake.Keyring
	// Forms replaces the form registry embedded in the binary (a test's
	// made-up version).
	Forms *formregistry.Registry
}

// Parts builds the parts of one instance's functions that need no
// database, each once and only when a builder asks for it, and only what
// the instance's Access allows: asking for a secret it does not name is an
// error. Package wiring builds the database's parts on the same Parts.
// What the parts opened is released by Close, in the reverse order.
type Parts struct {
	ctx    context.Context
	cfg    config.Config
	logger *slog.Logger
	o      Overrides
	access Access

	closers []func() error

	keys     intake.Keyring
	registry *formregistry.Registry
	pow      *altchapow.ProofOfWork
}

// NewParts returns the parts of an instance of the functions names, within
// what they may touch together. It refuses a name with no row in Accesses.
func NewParts(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, names ...string) (*Parts, error) {
	if o.Clock == nil {
		o.Clock = intake.SystemClock{}
	}
	access, err := accessOf(names)
	if err != nil {
		return nil, err
	}
	return &Parts{ctx: ctx, cfg: cfg, logger: logger, o: o, access: access}, nil
}

// accessOf is what the functions names may touch together.
func accessOf(names []string) (Access, error) {
	var union Access
	for _, name := range names {
		i := slices.IndexFunc(accesses, func(a Access) bool { return a.Function == name })
		if i < 0 {
			return Access{}, fmt.Errorf("light: no function %q", name)
		}
		a := accesses[i]
		union.Function = strings.TrimPrefix(union.Function+"+"+name, "+")
		union.Firestore = union.Firestore || a.Firestore
		union.Attachments = union.Attachments || a.Attachments
		for _, s := range a.Secrets {
			if !slices.Contains(union.Secrets, s) {
				union.Secrets = append(union.Secrets, s)
			}
		}
	}
	return union, nil
}

// Access is what the instance may touch: the union of its functions' rows.
func (p *Parts) Access() Access { return p.access }

// Clock is the instance's clock (the override's, or the system's).
func (p *Parts) Clock() intake.Clock { return p.o.Clock }

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

// May reports whether the instance may read secret, and says why not.
func (p *Parts) May(secret string) error {
	if !slices.Contains(p.access.Secrets, secret) {
		return fmt.Errorf("%s may not read %s (see functions/wiring/light/access.go)", p.access.Function, secret)
	}
	return nil
}

// KeepsDrafts reports whether the instance may read the HMAC keys a
// draft's proof of work is verified with: Drafts may, Confirmation (which
// confirms, revises and withdraws, verifying no proof of work) may not.
func (p *Parts) KeepsDrafts() bool { return p.May(SecretHMAC) == nil }

// SendsHandoff reports whether the instance may read every secret sending
// the handoff (email, webhook) needs.
func (p *Parts) SendsHandoff() bool {
	for _, s := range handoffSecrets {
		if p.May(s) != nil {
			return false
		}
	}
	return true
}

// HMACKeys are the HMAC keys: the override's, a random key of this process
// without HMAC_SECRET, else the secret's versions, following rotations
// while the instance runs.
func (p *Parts) HMACKeys() (intake.Keyring, error) {
	if p.keys != nil {
		return p.keys, nil
	}
	if err := p.May(SecretHMAC); err != nil {
		return nil, err
	}
	switch {
	case p.o.Keys != nil:
		p.keys = p.o.Keys
	case p.cfg.HMACSecret == "":
		ring, err := keyring.Local(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("HMAC keys: %w", err)
		}
		p.keys = ring
	default:
		rotating, err := secretkeys.Open(p.ctx, p.cfg.HMACSecret, p.logger)
		if err != nil {
			return nil, fmt.Errorf("HMAC keys: %w", err)
		}
		p.OnClose(rotating.Close)
		p.keys = rotating
	}
	return p.keys, nil
}

// Forms is the form registry embedded in the binary (or the override's).
func (p *Parts) Forms() (*formregistry.Registry, error) {
	if p.registry != nil {
		return p.registry, nil
	}
	if p.o.Forms != nil {
		p.registry = p.o.Forms
		return p.registry, nil
	}
	registry, err := formregistry.Load()
	if err != nil {
		return nil, fmt.Errorf("form registry: %w", err)
	}
	p.registry = registry
	return registry, nil
}

// ProofOfWork issues and verifies challenges under the HMAC keys.
func (p *Parts) ProofOfWork() (*altchapow.ProofOfWork, error) {
	if p.pow != nil {
		return p.pow, nil
	}
	keys, err := p.HMACKeys()
	if err != nil {
		return nil, err
	}
	pow, err := altchapow.New(keys, p.o.Clock, altchapow.Config{MaxNumber: p.cfg.PowMaxNumber, MaxEscalated: p.cfg.PowMaxEscalated, Lifetime: p.cfg.PowLifetime})
	if err != nil {
		return nil, fmt.Errorf("proof of work: %w", err)
	}
	p.pow = pow
	return pow, nil
}

// Destinations are where a confirmed introduction goes, as the
// configuration says: the admin inbox, then email and the webhook when
// they are configured. It needs none of their secrets.
func (p *Parts) Destinations() []intake.Destination {
	out := []intake.Destination{intake.DestinationInbox}
	if p.cfg.SMTP.Enabled() {
		out = append(out, intake.DestinationEmail)
	}
	if p.cfg.Webhook.Enabled() {
		out = append(out, intake.DestinationWebhook)
	}
	return out
}
