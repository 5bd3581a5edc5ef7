package wiring

import (
	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/confirmation"
	"github.com/ownersite/introductions/functions/deliveryevents"
	"github.com/ownersite/introductions/functions/drafts"
	"github.com/ownersite/introductions/functions/sweep"
	"github.com/ownersite/introductions/functions/wiring/light"
)

// builders builds each function's handlers from the parts it names, and
// nothing else: reading a builder is reading what its function touches.
// Challenge and Forms, which need no database, are package light's
// builders, run on the light parts within these. A deployed function runs
// its own builder alone; the dev server runs all of them on one set of
// parts.
var builders = map[string]func(p *parts, h *Handlers) error{
	"Challenge":      withoutDatabase(light.BuildChallenge),
	"Forms":          withoutDatabase(light.BuildForms),
	"Drafts":         buildDrafts,
	"Confirmation":   buildConfirmation,
	"DeliveryEvents": buildDeliveryEvents,
	"Sweep":          buildSweep,
	"Admin":          buildAdmin,
}

// withoutDatabase runs a builder of package light on p's light parts.
func withoutDatabase(build func(*light.Parts, *Handlers) error) func(*parts, *Handlers) error {
	return func(p *parts, h *Handlers) error { return build(p.Parts, h) }
}

// buildDrafts: the intake service (alone, without the handoff: a draft
// sends nothing) and the retention sweeps.
func buildDrafts(p *parts, h *Handlers) (err error) {
	flow, err := p.intake()
	if err != nil {
		return err
	}
	if h.Sweeps, err = p.retention(); err != nil {
		return err
	}
	h.Drafts, err = drafts.New(flow, drafts.Options{
		ForwardedForPosition: p.cfg.ForwardedForPosition,
		AttachmentMaxBytes:   p.cfg.AttachmentMaxBytes,
	})
	return err
}

// buildConfirmation: the intake service with the handoff, which sends
// each confirmation's outbox right after its commit, and the retention
// sweeps.
func buildConfirmation(p *parts, h *Handlers) (err error) {
	flow, err := p.intake()
	if err != nil {
		return err
	}
	if h.Sweeps, err = p.retention(); err != nil {
		return err
	}
	h.Confirmation, err = confirmation.New(flow, confirmation.Options{ForwardedForPosition: p.cfg.ForwardedForPosition})
	return err
}

// buildDeliveryEvents: the outbox's delivery service (which sends
// nothing here) and the provider's signature verifier.
func buildDeliveryEvents(p *parts, h *Handlers) (err error) {
	deliveries, err := p.delivery()
	if err != nil {
		return err
	}
	providers, err := p.eventProviders()
	if err != nil {
		return err
	}
	if h.Sweeps, err = p.retention(); err != nil {
		return err
	}
	h.DeliveryEvents, err = deliveryevents.New(deliveries, providers)
	return err
}

// buildSweep: the retention sweep with its tasks. A call joins a run
// already in flight on this instance instead of starting a second.
func buildSweep(p *parts, h *Handlers) (err error) {
	if h.Sweeps, err = p.retention(); err != nil {
		return err
	}
	h.Sweep, err = sweep.New(h.Sweeps)
	return err
}

// buildAdmin: the owner's store, the attachments' bucket, the HMAC keys
// (the list's cursors), the delivery service (retry now), the scheduler job's reader and the
// retention sweeps.
func buildAdmin(p *parts, h *Handlers) (err error) {
	db, err := p.database()
	if err != nil {
		return err
	}
	keys, err := p.HMACKeys()
	if err != nil {
		return err
	}
	deliveries, err := p.delivery()
	if err != nil {
		return err
	}
	if h.Sweeps, err = p.retention(); err != nil {
		return err
	}
	files, err := p.attachments()
	if err != nil {
		return err
	}
	deps := admin.Deps{Store: db.Owner(), Files: files, Retrier: deliveries, Notifier: deliveries, Keys: keys, Clock: p.Clock(), Logger: p.logger,
		Receipts: p.cfg.MailgunSigningKey != "", Solves: admin.SolveTarget{MaxNumber: p.cfg.PowMaxNumber, TargetP90: p.cfg.PowTargetP90}}
	scheduler, err := p.schedulerJob()
	if err != nil {
		return err
	}
	if scheduler != nil {
		deps.Scheduler = scheduler
	}
	h.Admin, err = admin.New(deps)
	return err
}
