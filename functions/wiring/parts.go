package wiring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/deliveryevents"
	"github.com/ownersite/introductions/functions/wiring/light"
	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/attachmentbucket"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/mailgun"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"github.com/ownersite/introductions/shared/schedulerjob"
	"github.com/ownersite/introductions/shared/secretkeys"
	"github.com/ownersite/introductions/shared/smtpmail"
	"github.com/ownersite/introductions/shared/webhook"
)

// parts builds the parts over the Firestore database of one instance's
// functions, on the light parts (keys, proof of work, form registry), each
// once and only when a builder asks for it, and only what the instance's
// Access allows: opening the database or reading a secret it does not name
// is an error. What they opened is released by Close, in the reverse order.
type parts struct {
	*light.Parts
	ctx    context.Context
	cfg    config.Config
	logger *slog.Logger
	o      Overrides

	pepper     []byte
	db         *firestorestore.DB
	flood      *floodlimit.Limiter
	deliveries *delivery.Service
	flow       *intakeflow.Service
	sweeps     *retentionsweep.Launcher
	scheduler  *schedulerjob.Reader
	files      *attachmentbucket.Bucket
}

// hashPepper is the keyed-hash pepper: the override's, a random one of this
// process without HASH_PEPPER_SECRET (local runs), else the pinned secret
// version's.
func (p *parts) hashPepper() ([]byte, error) {
	if p.pepper != nil {
		return p.pepper, nil
	}
	if err := p.May(SecretPepper); err != nil {
		return nil, err
	}
	switch {
	case p.o.Pepper != nil:
		p.pepper = p.o.Pepper
	case p.cfg.HashPepperSecret == "" && p.cfg.HMACSecret != "":
		return nil, errors.New("HASH_PEPPER_SECRET: required when HMAC_SECRET is set, or every instance would hash with a pepper of its own")
	case p.cfg.HashPepperSecret == "":
		pepper := make([]byte, keyring.MinKeyLen)
		if _, err := io.ReadFull(rand.Reader, pepper); err != nil {
			return nil, fmt.Errorf("keyed-hash pepper: %w", err)
		}
		p.pepper = pepper
	default:
		pepper, err := secretkeys.OpenPepper(p.ctx, p.cfg.HashPepperSecret)
		if err != nil {
			return nil, fmt.Errorf("keyed-hash pepper: %w", err)
		}
		p.pepper = pepper
	}
	return p.pepper, nil
}

// database is the connection to Firestore every store is built on.
func (p *parts) database() (*firestorestore.DB, error) {
	if p.db != nil {
		return p.db, nil
	}
	if !p.Access().Firestore {
		return nil, fmt.Errorf("%s may not open Firestore (see functions/wiring/light/access.go)", p.Access().Function)
	}
	db, err := firestorestore.Open(p.ctx, firestorestore.Config{Project: p.cfg.Project, Database: p.cfg.Database, OpTimeout: p.cfg.FirestoreTimeout}, p.logger, p.o.StoreOptions...)
	if err != nil {
		return nil, fmt.Errorf("firestore: %w", err)
	}
	p.OnClose(db.Close)
	p.db = db
	return db, nil
}

// attachments is the attachments' bucket (ATTACHMENT_BUCKET), through
// fake-gcs-server when STORAGE_EMULATOR_HOST is set.
func (p *parts) attachments() (*attachmentbucket.Bucket, error) {
	if p.files != nil {
		return p.files, nil
	}
	if !p.Access().Attachments {
		return nil, fmt.Errorf("%s may not open the attachments' bucket (see functions/wiring/light/access.go)", p.Access().Function)
	}
	b, err := attachmentbucket.Open(p.ctx, p.cfg.AttachmentBucket)
	if err != nil {
		return nil, fmt.Errorf("attachments: %w", err)
	}
	p.OnClose(b.Close)
	p.files = b
	return b, nil
}

// senders are the handoff's destination adapters besides the admin inbox:
// email when SMTP_HOST is set, the webhook when WEBHOOK_URL is, and any the
// overrides add. An instance that may not read the handoff's secrets has
// none: it applies delivery events, it sends nothing.
func (p *parts) senders() ([]intake.Sender, error) {
	if !p.SendsHandoff() {
		return nil, nil
	}
	var senders []intake.Sender
	var errs []error
	if p.cfg.SMTP.Enabled() {
		s, err := smtpmail.New(p.cfg.SMTP, smtpmail.Options{Logger: p.logger, Now: p.Clock().Now})
		errs = append(errs, err)
		senders = append(senders, s)
	}
	if p.cfg.Webhook.Enabled() {
		s, err := webhook.New(p.cfg.Webhook, webhook.Options{Logger: p.logger, Now: p.Clock().Now})
		errs = append(errs, err)
		senders = append(senders, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	return append(senders, p.o.Senders...), nil
}

// delivery is the handoff's delivery service over the outbox store: it
// sends (where the instance holds the senders), retries and applies
// provider events.
func (p *parts) delivery() (*delivery.Service, error) {
	if p.deliveries != nil {
		return p.deliveries, nil
	}
	db, err := p.database()
	if err != nil {
		return nil, err
	}
	registry, err := p.Forms()
	if err != nil {
		return nil, err
	}
	senders, err := p.senders()
	if err != nil {
		return nil, err
	}
	var adminURL func(string) string
	if p.cfg.AdminURL != "" {
		adminURL = p.cfg.IntroductionAdminURL
	}
	d, err := delivery.New(delivery.Deps{
		Store: db.Outbox(), Senders: senders, Forms: registry, Clock: p.Clock(), Logger: p.logger,
		Function: p.cfg.Service, Revision: p.cfg.Revision,
		Config: delivery.Config{RetryBase: p.cfg.DeliveryRetryBase, MaxAttempts: p.cfg.DeliveryMaxAttempts, AdminURL: adminURL},
	})
	if err != nil {
		return nil, fmt.Errorf("delivery: %w", err)
	}
	p.OnClose(func() error { d.Wait(); return nil })
	p.deliveries = d
	return d, nil
}

// intake is the intake service of Drafts and Confirmation, over the
// intake store: the flood layer, the pepper and the limits. Where the
// instance keeps drafts, it holds the check chain a draft passes, the proof
// of work last; elsewhere (Confirmation) it has none and holds no HMAC key.
// Where the instance holds the handoff's senders, the delivery service
// sends each confirmation's outbox; elsewhere (Drafts, which confirms
// nothing) it has no handoff.
func (p *parts) intake() (*intakeflow.Service, error) {
	if p.flow != nil {
		return p.flow, nil
	}
	var handoff intakeflow.Handoff
	if p.SendsHandoff() {
		deliveries, err := p.delivery()
		if err != nil {
			return nil, err
		}
		handoff = deliveries
	}
	db, err := p.database()
	if err != nil {
		return nil, err
	}
	registry, err := p.Forms()
	if err != nil {
		return nil, err
	}
	pepper, err := p.hashPepper()
	if err != nil {
		return nil, err
	}
	if p.flood == nil {
		if p.flood, err = floodlimit.New(p.cfg.FloodLimit, p.cfg.FloodWindow); err != nil {
			return nil, fmt.Errorf("flood layer: %w", err)
		}
	}
	var chain checks.Chain
	if p.KeepsDrafts() {
		pow, err := p.ProofOfWork()
		if err != nil {
			return nil, err
		}
		chain = checks.Chain{checks.RateLimit{Flood: p.flood}, checks.Honeypot{}, checks.ContentRules{}, checks.ProofOfWork{Verifier: pow}}
	}
	store := db.Intake(func(e intake.LedgerEntry) (intake.Decision, string) { return delivery.Decide(e, registry) })
	files, err := p.attachments()
	if err != nil {
		return nil, err
	}
	flow, err := intakeflow.New(intakeflow.Deps{
		Store: store, Reviser: store, Attacher: store, Files: files, AttachmentMaxBytes: p.cfg.AttachmentMaxBytes, Forms: registry, Flood: p.flood, Pepper: pepper, Clock: p.Clock(), Entropy: p.o.Entropy, Logger: p.logger,
		Chain:      chain,
		Retention:  p.cfg.Retention,
		IPLimit:    intake.RateRule{Limit: p.cfg.RateLimitIPPerHour, Window: time.Hour},
		EmailLimit: intake.RateRule{Limit: p.cfg.RateLimitEmailPerHour, Window: time.Hour},
		Escalation: intake.Escalation{Free: intakeflow.FreeDrafts, Base: p.cfg.PowMaxNumber, Max: p.cfg.PowMaxEscalated},
		Function:   p.cfg.Service, Revision: p.cfg.Revision,
		Handoff: handoff,
	})
	if err != nil {
		return nil, err
	}
	// Refusal counts still in memory are written at shutdown, within the
	// ten seconds Cloud Run gives a stopping instance.
	p.OnClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return flow.FlushRefusals(ctx, true)
	})
	p.flow = flow
	return flow, nil
}

// retention is the launcher of this instance's retention sweeps, one at a
// time. A run deletes what expired, re-checks consent evidence, counts
// the admin's daily figures; where the instance holds the handoff's
// senders, it also retries the deliveries that are due, and where it holds
// the attachments' bucket, it deletes the attachments whose introduction
// is gone.
func (p *parts) retention() (*retentionsweep.Launcher, error) {
	if p.sweeps != nil {
		return p.sweeps, nil
	}
	db, err := p.database()
	if err != nil {
		return nil, err
	}
	registry, err := p.Forms()
	if err != nil {
		return nil, err
	}
	figures, err := admin.NewDailyFiguresTask(db.Owner(), p.cfg.PowMaxNumber, p.logger)
	if err != nil {
		return nil, err
	}
	// Tasks run after each sweep's deletions, in this order.
	var tasks, scheduled []intake.SweepTask
	var files attachment.Files
	if p.SendsHandoff() {
		d, err := p.delivery()
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, d) // delivery-retries: the envelopes whose attempt is due
	}
	if p.Access().Attachments {
		if files, err = p.attachments(); err != nil {
			return nil, err
		}
		gone, err := attachment.NewSweepTask(files, db.Sweep(), p.logger)
		if err != nil {
			return nil, err
		}
		// attachments: the bytes no live introduction names, on the
		// Scheduler's run only (it lists the whole bucket); each run deletes
		// the prefixes of the introductions it deleted.
		scheduled = append(scheduled, gone)
	}
	tasks = append(tasks, figures) // the admin's chart: each finished day counted once
	runner := p.o.SweepRunner
	if runner == nil {
		// Attachments stays nil (a nil interface) without attachments.
		sweeper, err := retentionsweep.New(retentionsweep.Config{
			Store: db.Sweep(), Registry: registry, Tasks: tasks, ScheduledTasks: scheduled, Attachments: files,
			Clock: p.Clock(), Entropy: p.o.Entropy, Logger: p.logger, RunRetention: p.cfg.SweepRunRetention,
		})
		if err != nil {
			return nil, err
		}
		runner = sweeper
	}
	sweeps, err := retentionsweep.NewLauncher(runner, p.Clock(), p.cfg.SweepAfterIdle, p.logger)
	if err != nil {
		return nil, err
	}
	p.OnClose(func() error { sweeps.Wait(); return nil })
	p.sweeps = sweeps
	return sweeps, nil
}

// eventProviders are the delivery event providers that are on: Mailgun's
// when MAILGUN_WEBHOOK_SIGNING_KEY is set, and any the overrides add.
func (p *parts) eventProviders() (map[string]deliveryevents.Provider, error) {
	if err := p.May(SecretMailgunKey); err != nil {
		return nil, err
	}
	providers := map[string]deliveryevents.Provider{}
	if p.cfg.MailgunSigningKey != "" {
		v, err := mailgun.NewVerifier(p.cfg.MailgunSigningKey, p.Clock().Now)
		if err != nil {
			return nil, fmt.Errorf("delivery events: %w", err)
		}
		providers[deliveryevents.ProviderMailgun] = deliveryevents.Mailgun(v)
	}
	for name, provider := range p.o.EventProviders {
		providers[name] = provider
	}
	return providers, nil
}

// schedulerJob reads the Cloud Scheduler job's state for the admin's
// health view; nil when SCHEDULER_JOB is unset.
func (p *parts) schedulerJob() (*schedulerjob.Reader, error) {
	if p.scheduler != nil || p.cfg.SchedulerJob == "" {
		return p.scheduler, nil
	}
	reader, err := schedulerjob.Open(p.ctx, p.cfg.SchedulerJob, p.cfg.FirestoreTimeout)
	if err != nil {
		return nil, fmt.Errorf("scheduler job: %w", err)
	}
	p.OnClose(func() error { reader.Close(); return nil })
	p.scheduler = reader
	return reader, nil
}
