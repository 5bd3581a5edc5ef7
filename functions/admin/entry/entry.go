// Package entry is the Admin function's builder and entry point: the
// root package of its source archive (scripts/deploy.sh).
package entry

import (
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
)

// Function builds the owner's store, the attachments' bucket, the HMAC
// keys (the list's cursors), the delivery service (retry now), the
// scheduler job's reader and the retention sweeps.
var Function = wiring.NewFunction(admin.Name, admin.Routes, func(p *wiring.Parts) (*admin.Handlers, error) {
	db, err := dbparts.Database(p)
	if err != nil {
		return nil, err
	}
	keys, err := challenge.HMACKeys(p)
	if err != nil {
		return nil, err
	}
	deliveries, err := dbparts.Delivery(p)
	if err != nil {
		return nil, err
	}
	if _, err := dbparts.Retention(p); err != nil {
		return nil, err
	}
	files, err := dbparts.Attachments(p)
	if err != nil {
		return nil, err
	}
	scheduler, err := dbparts.SchedulerJob(p)
	if err != nil {
		return nil, err
	}
	deps := admin.Deps{Store: db.Owner(), Files: files, Retrier: deliveries, Notifier: deliveries, Keys: keys, Clock: p.Clock, Logger: p.Logger,
		Receipts: p.Config.MailgunSigningKey != "", Lang: p.Config.OwnerLanguage, Zone: p.Config.OwnerTimeZone, Solves: admin.SolveTarget{MaxNumber: p.Config.PowMaxNumber, TargetP90: p.Config.PowTargetP90}}
	if scheduler != nil {
		deps.Scheduler = scheduler
	}
	return admin.New(deps)
})

func init() { functions.HTTP(Function.Name, wiring.NewLazy(Function, os.Getenv).ServeHTTP) }
