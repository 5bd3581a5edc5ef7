// Package retentionsweep is the retention sweep: a run deletes what has
// expired, re-checks consent evidence when the registry's texts changed,
// runs the sweep tasks and records itself; runs start one at a time per
// instance. README.md has the rules.
package retentionsweep

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// The classes a run counts deletions under, besides one per other collection.
const (
	ClassDrafts          = "drafts"
	ClassIntroductions   = "introductions"
	ClassTranscripts     = "transcripts"
	ClassSpentChallenges = "spentChallenges"
	ClassRateCounters    = "rateCounters"
	ClassIdempotencyKeys = "idempotencyKeys"
	ClassLedger          = "ledger"
	ClassAttachments     = "attachments" // attachment objects
)

// Classes are reported in every run, zero or not.
var Classes = []string{ClassDrafts, ClassIntroductions, ClassTranscripts, ClassSpentChallenges,
	ClassRateCounters, ClassIdempotencyKeys, ClassLedger}

const (
	IntroductionsCollection = "introductions"     // counted as drafts or introductions
	RunRetention            = 30 * 24 * time.Hour // how long a run's record is kept when Config says nothing
	// Unfinished is the error a run's record carries until the run records its outcome.
	Unfinished = "unfinished: the run did not record its outcome (cut off, or still running)"
)

// Deleted is what deleting one collection's expired documents did.
type Deleted struct {
	Documents int      // how many documents this run deleted
	Drafts    int      // how many were unconfirmed drafts (introductions only)
	IDs       []string // the ids of the introductions deleted
}

// Attachments deletes, under prefix, the attachments of deleted introductions and returns how
// many. Errors: UNAVAILABLE.
type Attachments interface {
	DeleteUnder(ctx context.Context, prefix string) (int, error)
}

// ConsentRecord is a kept introduction's consent evidence.
type ConsentRecord struct {
	ID          string
	FormID      string
	FormVersion string
	State       intake.State
	Consents    []intake.ConsentEvidence
}

// Store is what a run needs of the database. Errors: UNAVAILABLE, INTERNAL.
type Store interface {
	// Collections lists the collections in visiting order, introductions before ledger.
	Collections(ctx context.Context) ([]string, error)
	// DeleteExpired deletes every document of collection expired at cutoff, each by one run
	// only, marking an unconfirmed draft's ledger entry EXPIRED in the same write; on an
	// error Deleted counts what went before it.
	DeleteExpired(ctx context.Context, collection string, cutoff time.Time) (Deleted, error)
	// ConsentRecords visits every live introduction with consent evidence; visit's error stops it.
	ConsentRecords(ctx context.Context, now time.Time, visit func(ConsentRecord) error) error
	// MarkRepairNeeded marks ledger entry id REPAIR_NEEDED; false when already so or gone.
	MarkRepairNeeded(ctx context.Context, id, reason string, now time.Time) (bool, error)
	// BeginRun records a starting run as Unfinished; FinishRun records its outcome.
	BeginRun(ctx context.Context, run intake.SweepRun) error
	FinishRun(ctx context.Context, run intake.SweepRun) error
	// LastRuns returns up to n of the newest runs, newest first.
	LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error)
}

// Config is what a Sweeper needs; New refuses a missing part.
type Config struct {
	// What a run touches: Attachments, when set, deletes the deleted introductions' attachments.
	Store       Store
	Registry    *formregistry.Registry
	Attachments Attachments
	// Tasks run after the deletions, in order; ScheduledTasks after them on the Scheduler's trigger.
	Tasks, ScheduledTasks []intake.SweepTask
	Clock                 intake.Clock
	Entropy               io.Reader // run ids
	Logger                *slog.Logger
	RunRetention          time.Duration // how long a run's record is kept; RunRetention when zero
}

// Sweeper runs the sweep; overlapping runs delete each document once.
type Sweeper struct {
	cfg Config
}

// New returns a Sweeper, or an error naming every missing dependency.
func New(c Config) (*Sweeper, error) {
	missing := refuse("retentionsweep: missing or invalid ", map[string]bool{
		"Store": c.Store != nil, "Registry": c.Registry != nil, "Clock": c.Clock != nil,
		"Entropy": c.Entropy != nil, "Logger": c.Logger != nil, "RunRetention": c.RunRetention >= 0,
	})
	for i, t := range append(slices.Clone(c.Tasks), c.ScheduledTasks...) {
		if t == nil {
			missing = errors.Join(missing, fmt.Errorf("retentionsweep: task %d is nil", i))
		}
	}
	if missing != nil {
		return nil, missing
	}
	c.RunRetention = cmp.Or(c.RunRetention, RunRetention)
	return &Sweeper{cfg: c}, nil
}

const (
	recordTimeout     = 10 * time.Second
	lastRunsForDigest = 5
)

// Run deletes what expired at its start, re-checks consent evidence when the consent texts
// changed, then runs every task, recording each failing step and going on (the deletions stop
// at their first failure). Errors: UNAVAILABLE when a step found Firestore so, else INTERNAL.
func (s *Sweeper) Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	log := s.cfg.Logger
	start := s.cfg.Clock.Now().UTC().Truncate(time.Microsecond)
	id, err := s.runID(start)
	if err != nil {
		return intake.SweepRun{}, intake.Internal(err)
	}
	run := intake.SweepRun{ID: id, Trigger: trigger, StartedAt: start, Deleted: map[string]int{},
		Error: Unfinished, ExpireAt: start.Add(s.cfg.RunRetention)}
	for _, c := range Classes {
		run.Deleted[c] = 0
	}
	var failures failures

	recorded, err := s.cfg.Store.LastRuns(ctx, lastRunsForDigest)
	if err != nil {
		failures.add("reading the last runs", err)
	}
	if err := s.cfg.Store.BeginRun(ctx, run); err != nil {
		failures.add("recording the run's start", err)
		return s.finish(ctx, run, failures, false)
	}

	collections, err := s.cfg.Store.Collections(ctx)
	if err != nil {
		failures.add("listing the collections", err)
	}
	for _, coll := range collections {
		d, err := s.cfg.Store.DeleteExpired(ctx, coll, start)
		if coll == IntroductionsCollection {
			run.Deleted[ClassDrafts] += d.Drafts
			run.Deleted[ClassIntroductions] += d.Documents - d.Drafts
			if s.cfg.Attachments != nil {
				n, aerr := s.deleteAttachments(ctx, d.IDs)
				run.Deleted[ClassAttachments] += n
				if aerr != nil {
					failures.add("deleting expired attachments", aerr)
				}
			}
		} else {
			run.Deleted[coll] += d.Documents
		}
		if err != nil {
			failures.add("deleting expired "+coll, err)
			break
		}
	}

	digest := s.cfg.Registry.ConsentDigest()
	if newestDigest(recorded) == digest {
		run.ConsentDigest = digest
	} else if n, err := s.recheckConsents(ctx, start); err != nil {
		run.RepairNeeded += n
		failures.add("re-checking consent evidence", err)
	} else {
		run.RepairNeeded += n
		run.ConsentDigest = digest
		log.InfoContext(ctx, "sweep re-checked consent evidence", slog.String("sweepRunId", run.ID), slog.Int("repairNeeded", n))
	}

	tasks := s.cfg.Tasks
	if trigger == intake.SweepByScheduler {
		tasks = append(slices.Clone(tasks), s.cfg.ScheduledTasks...)
	}
	for _, t := range tasks {
		res, err := t.Run(ctx, s.cfg.Clock.Now())
		run.DeliveriesAttempted += res.DeliveriesAttempted
		run.RepairNeeded += res.RepairNeeded
		for class, n := range res.Deleted {
			run.Deleted[class] += n
		}
		if err != nil {
			failures.add("task "+t.Name(), err)
		}
	}
	return s.finish(ctx, run, failures, true)
}

// deleteAttachments deletes each of ids' attachments, stopping at the first error.
func (s *Sweeper) deleteAttachments(ctx context.Context, ids []string) (int, error) {
	n := 0
	for _, id := range ids {
		k, err := s.cfg.Attachments.DeleteUnder(ctx, intake.AttachmentPrefix(id))
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// finish records and logs run's outcome.
func (s *Sweeper) finish(ctx context.Context, run intake.SweepRun, f failures, begun bool) (intake.SweepRun, error) {
	run.FinishedAt = s.cfg.Clock.Now().UTC().Truncate(time.Microsecond)
	run.Error = f.String()
	if begun {
		// Recorded even when ctx has ended.
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		if err := s.cfg.Store.FinishRun(recordCtx, run); err != nil {
			f.add("recording the run's outcome", err)
			run.Error = f.String()
		}
	}
	level := slog.LevelInfo
	if run.Error != "" {
		level = slog.LevelError
	}
	deleted := make([]any, 0, len(run.Deleted))
	for class, n := range run.Deleted {
		deleted = append(deleted, slog.Int(class, n))
	}
	s.cfg.Logger.Log(ctx, level, "sweep finished", slog.String("sweepRunId", run.ID), slog.String("trigger", string(run.Trigger)),
		slog.Group("deleted", deleted...), slog.Int("deliveriesAttempted", run.DeliveriesAttempted),
		slog.Int("repairNeeded", run.RepairNeeded), slog.Duration("duration", run.FinishedAt.Sub(run.StartedAt)),
		slog.String("error", run.Error))
	for _, cause := range f.causes {
		// Causes are Firestore and task errors: ids and codes, no content.
		s.cfg.Logger.WarnContext(ctx, "sweep step failed", slog.String("sweepRunId", run.ID), slog.String("cause", cause.Error()))
	}
	return run, f.err()
}

// recheckConsents marks each live introduction whose consent evidence no longer matches REPAIR_NEEDED.
func (s *Sweeper) recheckConsents(ctx context.Context, now time.Time) (int, error) {
	marked := 0
	err := s.cfg.Store.ConsentRecords(ctx, now, func(rec ConsentRecord) error {
		reason := consentMismatch(s.cfg.Registry, rec)
		if reason == "" {
			return nil
		}
		ok, err := s.cfg.Store.MarkRepairNeeded(ctx, rec.ID, reason, now)
		if ok {
			marked++
		}
		return err
	})
	return marked, err
}

// consentMismatch returns why rec's consent evidence no longer matches the registry
// (content-free), or "" when it matches.
func consentMismatch(registry *formregistry.Registry, rec ConsentRecord) string {
	v, ok := registry.Find(rec.FormID, rec.FormVersion)
	if !ok && len(rec.Consents) > 0 {
		return fmt.Sprintf("consent evidence names form version %s/%s, which the form registry no longer holds", rec.FormID, rec.FormVersion)
	}
	for _, e := range rec.Consents {
		if !contentrules.EvidenceMatches(v, e) {
			return fmt.Sprintf("consent evidence for purpose %s (text %s, %s) no longer matches the form registry's text: ask the visitor to consent again or erase the data",
				e.Purpose, e.TextVersion, cmp.Or(e.Lang, formregistry.DefaultLang))
		}
	}
	return ""
}

func newestDigest(runs []intake.SweepRun) string {
	for _, r := range runs {
		if r.ConsentDigest != "" {
			return r.ConsentDigest
		}
	}
	return ""
}

// refuse names, after prefix, each of ok's parts that is not ok, in name order; nil when all are.
func refuse(prefix string, ok map[string]bool) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(ok)) {
		if !ok[name] {
			errs = append(errs, errors.New(prefix+name))
		}
	}
	return errors.Join(errs...)
}

// runID names a run by its start (so ids sort by time) and 6 random bytes.
func (s *Sweeper) runID(start time.Time) (string, error) {
	b := make([]byte, 6)
	if _, err := io.ReadFull(s.cfg.Entropy, b); err != nil {
		return "", err
	}
	return strings.Replace(start.Format("20060102T150405.000000Z"), ".", "_", 1) + "-" + hex.EncodeToString(b), nil
}

// failures collects a run's failed steps: lines for the record, causes for the log.
type failures struct {
	lines       []string
	causes      []error
	unavailable bool
}

func (f *failures) add(step string, err error) {
	code := intake.CodeOf(err)
	f.unavailable = f.unavailable || code == intake.CodeUnavailable
	f.lines = append(f.lines, step+": "+string(code))
	f.causes = append(f.causes, fmt.Errorf("%s: %w", step, err))
}

func (f *failures) String() string { return strings.Join(f.lines, "; ") }

func (f *failures) err() error {
	switch {
	case len(f.lines) == 0:
		return nil
	case f.unavailable:
		return intake.Unavailable(errors.New(f.String()), 30*time.Second)
	default:
		return intake.Internal(errors.New(f.String()))
	}
}

// Runner runs one sweep; *Sweeper is one.
type Runner interface {
	Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error)
}

// RunTimeout bounds every run; a run has its own context, never a caller's.
const RunTimeout = 5 * time.Minute

// Launcher starts one instance's sweeps, never two at once; safe for concurrent use.
type Launcher struct {
	runner Runner
	clock  intake.Clock
	quiet  time.Duration
	logger *slog.Logger

	mu       sync.Mutex
	inFlight *flight
	// draftDay is the UTC day (YYYY-MM-DD) of the newest draft seen here.
	draftDay    string
	lastRequest time.Time
}

// flight is one run in progress; done closes when run and err are set.
type flight struct {
	done chan struct{}
	run  intake.SweepRun
	err  error
}

// NewLauncher returns a Launcher whose Request starts a run after quiet without requests; it
// refuses a missing dependency.
func NewLauncher(runner Runner, clock intake.Clock, quiet time.Duration, logger *slog.Logger) (*Launcher, error) {
	err := refuse("retentionsweep.NewLauncher: no ", map[string]bool{"Runner": runner != nil, "Clock": clock != nil, "quiet spell": quiet > 0, "Logger": logger != nil})
	if err != nil {
		return nil, err
	}
	return &Launcher{runner: runner, clock: clock, quiet: quiet, logger: logger}, nil
}

// Run runs a sweep, or joins the one in flight, and returns its record. When ctx ends first
// it returns UNAVAILABLE and the run goes on.
func (l *Launcher) Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	f, started := l.claim()
	if started {
		// The run keeps the request's values (its trace), not its end.
		go l.fly(context.WithoutCancel(ctx), f, trigger)
	}
	select {
	case <-f.done:
		return f.run, f.err
	case <-ctx.Done():
		return intake.SweepRun{}, intake.Unavailable(ctx.Err(), 30*time.Second)
	}
}

// Start starts a background run unless one is in flight, and reports whether it did.
func (l *Launcher) Start(trigger intake.SweepTrigger) bool {
	f, started := l.claim()
	if !started {
		return false
	}
	go l.fly(context.Background(), f, trigger)
	return true
}

// FirstDraftOfDay starts a background run on this instance's first draft of the UTC day.
func (l *Launcher) FirstDraftOfDay() bool {
	day := l.clock.Now().UTC().Format(time.DateOnly)
	l.mu.Lock()
	first := day != l.draftDay
	l.draftDay = day
	l.mu.Unlock()
	return first && l.Start(intake.SweepByFirstDraftOfDay)
}

// Request notes a request and starts a background run, reporting whether it did, when the
// previous request came at least the quiet spell ago.
func (l *Launcher) Request() bool {
	l.mu.Lock()
	now, last := l.clock.Now(), l.lastRequest
	l.lastRequest = now
	l.mu.Unlock()
	return !last.IsZero() && now.Sub(last) >= l.quiet && l.Start(intake.SweepByQuietSpell)
}

// Wait blocks until the run in flight, if any, has finished.
func (l *Launcher) Wait() {
	l.mu.Lock()
	f := l.inFlight
	l.mu.Unlock()
	if f != nil {
		<-f.done
	}
}

// claim returns the flight in progress, or a new one the caller must fly.
func (l *Launcher) claim() (f *flight, started bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight != nil {
		return l.inFlight, false
	}
	l.inFlight = &flight{done: make(chan struct{})}
	return l.inFlight, true
}

func (l *Launcher) fly(parent context.Context, f *flight, trigger intake.SweepTrigger) {
	ctx, cancel := context.WithTimeout(parent, RunTimeout)
	defer cancel()
	defer func() {
		l.mu.Lock()
		l.inFlight = nil
		l.mu.Unlock()
		close(f.done)
	}()
	f.run, f.err = l.runner.Run(ctx, trigger)
}
