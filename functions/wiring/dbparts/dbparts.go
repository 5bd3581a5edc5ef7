// Package dbparts builds the parts over the Firestore database (the stores,
// the intake service, the handoff, the retention sweep, the scheduler
// reader) on an instance's wiring.Parts, each once, when a builder asks, and
// only what its Access allows. It is apart from wiring so that Challenge and
// Forms link none of it.
package dbparts

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/delivery-events"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/attachmentbucket"
	"github.com/ownersite/introductions/shared/checks"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/delivery"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/mailgun"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"github.com/ownersite/introductions/shared/schedulerjob"
	"github.com/ownersite/introductions/shared/secretkeys"
	"github.com/ownersite/introductions/shared/smtpmail"
	"github.com/ownersite/introductions/shared/webhook"
	"google.golang.org/api/option"
)

// Overrides replace parts of the production wiring in tests; Senders and EventProviders are
// added to the configured ones, StoreOptions passed to the Firestore client.
type Overrides struct {
	Clock          intake.Clock
	Entropy        io.Reader
	StoreOptions   []option.ClientOption
	SweepRunner    retentionsweep.Runner // what the launcher runs
	Keys           intake.Keyring        // the HMAC keys
	Pepper         []byte                // the keyed-hash pepper
	Senders        []intake.Sender
	EventProviders map[string]deliveryevents.Provider
	Forms          *formregistry.Registry
}

const (
	overridesPart = "database overrides"
	pepperPart    = "keyed-hash pepper"
)

// overrides are p's overrides (none but crypto/rand's entropy when deployed).
func overrides(p *wiring.Parts) Overrides {
	o, _ := wiring.Part(p, overridesPart, func() (Overrides, error) { return Overrides{Entropy: rand.Reader}, nil })
	return o
}

// Service is one instance's built functions and the parts they hold (nil when unused).
type Service struct {
	*wiring.Service
	Sweeps   *retentionsweep.Launcher
	DB       *firestorestore.DB
	Flow     *intakeflow.Service
	Delivery *delivery.Service
}

// Build builds fns on one set of parts with o's replacements. Errors say which function and
// part failed.
func Build(ctx context.Context, cfg config.Config, logger *slog.Logger, o Overrides, fns ...wiring.Function) (*Service, error) {
	var names []string
	for _, fn := range fns {
		names = append(names, fn.Name)
	}
	p, err := wiring.NewParts(ctx, cfg, logger, o.Clock, names...)
	if err != nil {
		return nil, err
	}
	o.Entropy = cmp.Or[io.Reader](o.Entropy, rand.Reader)
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

// hashPepper is the override's pepper, else the secret's, else (local runs only) a random one.
func hashPepper(p *wiring.Parts) ([]byte, error) {
	return wiring.Part(p, pepperPart, func() ([]byte, error) {
		if err := p.May(wiring.SecretPepper); err != nil {
			return nil, err
		}
		switch {
		case p.Config.HashPepperSecret == "" && p.Config.HMACSecret != "":
			return nil, errors.New("HASH_PEPPER_SECRET: required when HMAC_SECRET is set, or every instance would hash with a pepper of its own")
		case p.Config.HashPepperSecret == "":
			pepper := make([]byte, keyring.MinKeyLen)
			if _, err := io.ReadFull(rand.Reader, pepper); err != nil {
				return nil, fmt.Errorf("keyed-hash pepper: %w", err)
			}
			return pepper, nil
		}
		pepper, err := secretkeys.OpenPepper(p.Context(), p.Config.HashPepperSecret)
		if err != nil {
			return nil, fmt.Errorf("keyed-hash pepper: %w", err)
		}
		return pepper, nil
	})
}

// Database is the connection to Firestore every store is built on.
func Database(p *wiring.Parts) (*firestorestore.DB, error) {
	return wiring.Part(p, "database", func() (*firestorestore.DB, error) {
		if !p.Access().Firestore {
			return nil, fmt.Errorf("%s may not open Firestore (see functions/wiring/access.go)", p.Access().Function)
		}
		cfg := p.Config
		db, err := firestorestore.Open(p.Context(), firestorestore.Config{Project: cfg.Project, Database: cfg.Database, OpTimeout: cfg.FirestoreTimeout}, p.Logger, overrides(p).StoreOptions...)
		if err != nil {
			return nil, fmt.Errorf("firestore: %w", err)
		}
		p.OnClose(db.Close)
		return db, nil
	})
}

// Attachments is the attachments' bucket (ATTACHMENT_BUCKET), through fake-gcs-server when
// STORAGE_EMULATOR_HOST is set.
func Attachments(p *wiring.Parts) (*attachmentbucket.Bucket, error) {
	return wiring.Part(p, "attachments", func() (*attachmentbucket.Bucket, error) {
		if !p.Access().Attachments {
			return nil, fmt.Errorf("%s may not open the attachments' bucket (see functions/wiring/access.go)", p.Access().Function)
		}
		b, err := attachmentbucket.Open(p.Context(), p.Config.AttachmentBucket)
		if err != nil {
			return nil, fmt.Errorf("attachments: %w", err)
		}
		p.OnClose(b.Close)
		return b, nil
	})
}

// senders are the configured email and webhook adapters and the overrides'; none where the
// instance may not read the handoff's secrets.
func senders(p *wiring.Parts) ([]intake.Sender, error) {
	if !p.SendsHandoff() {
		return nil, nil
	}
	var senders []intake.Sender
	var errs []error
	if p.Config.SMTP.Enabled() {
		s, err := smtpmail.New(p.Config.SMTP, smtpmail.Options{Logger: p.Logger, Now: p.Clock.Now, Lang: p.Config.OwnerLanguage, Zone: p.Config.OwnerTimeZone})
		errs = append(errs, err)
		senders = append(senders, s)
	}
	if p.Config.Webhook.Enabled() {
		s, err := webhook.New(p.Config.Webhook, webhook.Options{Logger: p.Logger, Now: p.Clock.Now})
		errs = append(errs, err)
		senders = append(senders, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	return append(senders, overrides(p).Senders...), nil
}

// Delivery is the delivery service over the outbox store.
func Delivery(p *wiring.Parts) (*delivery.Service, error) {
	return wiring.Part(p, "delivery", func() (*delivery.Service, error) {
		db, err := Database(p)
		if err != nil {
			return nil, err
		}
		registry, err := forms.LoadRegistry(p)
		if err != nil {
			return nil, err
		}
		senders, err := senders(p)
		if err != nil {
			return nil, err
		}
		cfg := p.Config
		var adminURL func(string) string
		if cfg.AdminURL != "" {
			adminURL = cfg.IntroductionAdminURL
		}
		d, err := delivery.New(delivery.Deps{
			Store: db.Outbox(), Senders: senders, Forms: registry, Clock: p.Clock, Logger: p.Logger,
			Function: cfg.Service, Revision: cfg.Revision,
			Config: delivery.Config{RetryBase: cfg.DeliveryRetryBase, MaxAttempts: cfg.DeliveryMaxAttempts, AdminURL: adminURL, OwnerLang: cfg.OwnerLanguage},
		})
		if err != nil {
			return nil, fmt.Errorf("delivery: %w", err)
		}
		p.OnClose(func() error { d.Wait(); return nil })
		return d, nil
	})
}

// Intake is the intake service over the intake store, with the check chain where the instance
// keeps drafts and the handoff where it sends.
func Intake(p *wiring.Parts) (*intakeflow.Service, error) {
	return wiring.Part(p, "intake", func() (*intakeflow.Service, error) {
		var handoff intakeflow.Handoff
		if p.SendsHandoff() {
			deliveries, err := Delivery(p)
			if err != nil {
				return nil, err
			}
			handoff = deliveries
		}
		db, err := Database(p)
		if err != nil {
			return nil, err
		}
		registry, err := forms.LoadRegistry(p)
		if err != nil {
			return nil, err
		}
		pepper, err := hashPepper(p)
		if err != nil {
			return nil, err
		}
		cfg := p.Config
		flood, err := floodlimit.New(cfg.FloodLimit, cfg.FloodWindow)
		if err != nil {
			return nil, fmt.Errorf("flood layer: %w", err)
		}
		var chain checks.Chain
		if p.KeepsDrafts() {
			pow, err := challenge.ProofOfWork(p)
			if err != nil {
				return nil, err
			}
			chain = checks.Chain{checks.RateLimit{Flood: flood}, checks.Honeypot{}, checks.ContentRules{}, checks.ProofOfWork{Verifier: pow}}
		}
		store := db.Intake(func(e intake.LedgerEntry) (intake.Decision, string) { return delivery.Decide(e, registry) })
		files, err := Attachments(p)
		if err != nil {
			return nil, err
		}
		flow, err := intakeflow.New(intakeflow.Deps{
			Store: store, Reviser: store, Attacher: store, Files: files, AttachmentMaxBytes: cfg.AttachmentMaxBytes, Forms: registry, Flood: flood, Pepper: pepper, Clock: p.Clock, Entropy: overrides(p).Entropy, Logger: p.Logger,
			Chain:      chain,
			Retention:  cfg.Retention,
			IPLimit:    intake.RateRule{Limit: cfg.RateLimitIPPerHour, Window: time.Hour},
			EmailLimit: intake.RateRule{Limit: cfg.RateLimitEmailPerHour, Window: time.Hour},
			Escalation: intake.Escalation{Free: intakeflow.FreeDrafts, Base: cfg.PowMaxNumber, Max: cfg.PowMaxEscalated},
			Function:   cfg.Service, Revision: cfg.Revision,
			Handoff: handoff,
		})
		if err != nil {
			return nil, err
		}
		// Refusal counts in memory are written at shutdown, within Cloud Run's ten seconds.
		p.OnClose(func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return flow.FlushRefusals(ctx, true)
		})
		return flow, nil
	})
}

// Retention is the launcher of the instance's retention sweeps (also its Sweeps), with the
// delivery retries where it sends and the attachment sweep where it holds the bucket.
func Retention(p *wiring.Parts) (*retentionsweep.Launcher, error) {
	return wiring.Part(p, "retention", func() (*retentionsweep.Launcher, error) {
		db, err := Database(p)
		if err != nil {
			return nil, err
		}
		registry, err := forms.LoadRegistry(p)
		if err != nil {
			return nil, err
		}
		figures, err := admin.NewDailyFiguresTask(db.Owner(), p.Config.PowMaxNumber, p.Logger)
		if err != nil {
			return nil, err
		}
		// Tasks run after each sweep's deletions, in this order.
		var tasks, scheduled []intake.SweepTask
		var files attachment.Files
		if p.SendsHandoff() {
			d, err := Delivery(p)
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, d) // delivery-retries: the envelopes whose attempt is due
		}
		if p.Access().Attachments {
			if files, err = Attachments(p); err != nil {
				return nil, err
			}
			gone, err := attachment.NewSweepTask(files, db.Sweep(), p.Logger)
			if err != nil {
				return nil, err
			}
			// On the Scheduler's run only: it lists the whole bucket.
			scheduled = append(scheduled, gone)
		}
		tasks = append(tasks, figures) // the admin's chart: each finished day counted once
		runner := overrides(p).SweepRunner
		if runner == nil {
			sweeper, err := retentionsweep.New(retentionsweep.Config{
				Store: db.Sweep(), Registry: registry, Tasks: tasks, ScheduledTasks: scheduled, Attachments: files,
				Clock: p.Clock, Entropy: overrides(p).Entropy, Logger: p.Logger, RunRetention: p.Config.SweepRunRetention,
			})
			if err != nil {
				return nil, err
			}
			runner = sweeper
		}
		sweeps, err := retentionsweep.NewLauncher(runner, p.Clock, p.Config.SweepAfterIdle, p.Logger)
		if err != nil {
			return nil, err
		}
		p.OnClose(func() error { sweeps.Wait(); return nil })
		p.Sweeps = sweeps
		return sweeps, nil
	})
}

// EventProviders are Mailgun's when its signing key is set, and the overrides'.
func EventProviders(p *wiring.Parts) (map[string]deliveryevents.Provider, error) {
	if err := p.May(wiring.SecretMailgunKey); err != nil {
		return nil, err
	}
	providers := map[string]deliveryevents.Provider{}
	if p.Config.MailgunSigningKey != "" {
		v, err := mailgun.NewVerifier(p.Config.MailgunSigningKey, p.Clock.Now)
		if err != nil {
			return nil, fmt.Errorf("delivery events: %w", err)
		}
		providers[deliveryevents.ProviderMailgun] = v
	}
	maps.Copy(providers, overrides(p).EventProviders)
	return providers, nil
}

// SchedulerJob reads the Scheduler job's state; nil when SCHEDULER_JOB is unset.
func SchedulerJob(p *wiring.Parts) (*schedulerjob.Reader, error) {
	if p.Config.SchedulerJob == "" {
		return nil, nil
	}
	return wiring.Part(p, "scheduler job", func() (*schedulerjob.Reader, error) {
		reader, err := schedulerjob.Open(p.Context(), p.Config.SchedulerJob, p.Config.FirestoreTimeout)
		if err != nil {
			return nil, fmt.Errorf("scheduler job: %w", err)
		}
		p.OnClose(func() error { reader.Close(); return nil })
		return reader, nil
	})
}
