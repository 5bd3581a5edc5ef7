// Package retentionsweep is the retention sweep: one run deletes what has
// expired through a Store, re-checks consent evidence when the registry's
// texts changed, runs the registered sweep tasks and records the run; runs
// also start in the background, one at a time per instance. It imports no
// cloud SDK. README.md has the rules.
package retentionsweep

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// The classes a run counts deletions under, besides one class per other
// collection, named after it. Introductions are counted as drafts or
// introductions by their state.
const (
	ClassDrafts          = "drafts"
	ClassIntroductions   = "introductions"
	ClassTranscripts     = "transcripts"
	ClassSpentChallenges = "spentChallenges"
	ClassRateCounters    = "rateCounters"
	ClassIdempotencyKeys = "idempotencyKeys"
	ClassLedger          = "ledger"
	// ClassAttachments counts the objects of the introductions a run
	// deleted (when Config.Attachments is set) and those its scheduled
	// bucket-wide pass deleted.
	ClassAttachments = "attachments"
)

// Classes are reported in every run, zero or not.
var Classes = []string{ClassDrafts, ClassIntroductions, ClassTranscripts, ClassSpentChallenges,
	ClassRateCounters, ClassIdempotencyKeys, ClassLedger}

// IntroductionsCollection is the collection whose documents are counted as
// drafts or introductions.
const IntroductionsCollection = "introductions"

// Unfinished is the error a run's record carries until the run records its
// outcome: a run cut off midway (its instance stopped, or Firestore failed
// for good) stays recorded as not finished.
const Unfinished = "unfinished: the run did not record its outcome (cut off, or still running)"

// RunRetention is how long a run's record is kept when Config says nothing.
const RunRetention = 30 * 24 * time.Hour

// Deleted is what deleting one collection's expired documents did.
type Deleted struct {
	// Documents is how many documents this run deleted.
	Documents int
	// Drafts is how many of them were unconfirmed drafts, whose ledger
	// entries now say EXPIRED (the introductions collection only).
	Drafts int
	// IDs are the ids of the documents this run deleted (the
	// introductions collection only): their attachments go with them.
	IDs []string
}

// Attachments deletes the attachments of the introductions a run deleted
// (attachment.Files is one). Errors: UNAVAILABLE.
type Attachments interface {
	// DeleteUnder deletes every object whose name begins with prefix and
	// returns how many it deleted; none is no error.
	DeleteUnder(ctx context.Context, prefix string) (int, error)
}

// ConsentRecord is a kept introduction's consent evidence, without the
// visitor's words.
type ConsentRecord struct {
	ID          string
	FormID      string
	FormVersion string
	State       intake.State
	Consents    []intake.ConsentEvidence
}

// Store is what a run needs of the database. Errors are *intake.Error:
// UNAVAILABLE (Firestore down, slow or contended) or INTERNAL.
type Store interface {
	// Collections lists every collection of the database, in the order a
	// run visits them: introductions before ledger (an expired draft marks
	// its ledger entry), and any collection the database holds that the
	// store does not write, after the rest.
	Collections(ctx context.Context) ([]string, error)
	// DeleteExpired deletes, in batches, every document of collection whose
	// expireAt is at or before cutoff. Each document is deleted, and
	// counted, by one run only, even when runs overlap; a document changed
	// since it was read is left alone. An unconfirmed draft's ledger entry
	// says EXPIRED, with a reason and no content, in the same write that
	// deletes the draft. On an error Deleted counts what was deleted before
	// it, and the rest stays for the next run.
	DeleteExpired(ctx context.Context, collection string, cutoff time.Time) (Deleted, error)
	// ConsentRecords calls visit with every introduction that is still
	// live at now and carries consent evidence; an error from visit stops
	// it and is returned.
	ConsentRecords(ctx context.Context, now time.Time, visit func(ConsentRecord) error) error
	// MarkRepairNeeded sets the decision of ledger entry id to
	// REPAIR_NEEDED with reason, and reports false (writing nothing) when
	// it already says so or the entry is gone.
	MarkRepairNeeded(ctx context.Context, id, reason string, now time.Time) (bool, error)
	// BeginRun records a run that starts (as Unfinished); FinishRun
	// overwrites it with its outcome.
	BeginRun(ctx context.Context, run intake.SweepRun) error
	FinishRun(ctx context.Context, run intake.SweepRun) error
	// LastRuns returns up to n of the newest runs, newest first.
	LastRuns(ctx context.Context, n int) ([]intake.SweepRun, error)
}

// Config is what a Sweeper needs; New refuses a missing part.
type Config struct {
	Store    Store
	Registry *formregistry.Registry
	// Tasks run after the deletions, in order (one line each in the
	// wiring).
	Tasks []intake.SweepTask
	// ScheduledTasks run after Tasks on the Scheduler's trigger only: the
	// safety nets whose cost grows with what is kept (the bucket-wide
	// attachment pass), which a cold start or a draft must not pay.
	ScheduledTasks []intake.SweepTask
	// Attachments, when set, deletes the attachment prefix of every
	// introduction and draft the run deletes, in the same run.
	Attachments Attachments
	Clock       intake.Clock
	Entropy     io.Reader // run ids; crypto/rand.Reader in production
	Logger      *slog.Logger
	// RunRetention is how long each run's record is kept (RunRetention
	// when zero).
	RunRetention time.Duration
}

// Sweeper runs the sweep. It is safe for concurrent use: overlapping runs,
// on one instance or several, delete each document once between them.
type Sweeper struct {
	cfg Config
}

// New returns a Sweeper, or an error naming every missing dependency.
func New(c Config) (*Sweeper, error) {
	var missing []error
	checks := map[string]bool{
		"Store": c.Store != nil, "Registry": c.Registry != nil, "Clock": c.Clock != nil,
		"Entropy": c.Entropy != nil, "Logger": c.Logger != nil, "RunRetention": c.RunRetention >= 0,
	}
	for _, name := range slices.Sorted(maps.Keys(checks)) {
		if !checks[name] {
			missing = append(missing, errors.New("retentionsweep: missing or invalid "+name))
		}
	}
	for i, t := range append(slices.Clone(c.Tasks), c.ScheduledTasks...) {
		if t == nil {
			missing = append(missing, fmt.Errorf("retentionsweep: task %d is nil", i))
		}
	}
	if err := errors.Join(missing...); err != nil {
		return nil, err
	}
	if c.RunRetention == 0 {
		c.RunRetention = RunRetention
	}
	return &Sweeper{cfg: c}, nil
}

// recordTimeout bounds recording a run's outcome after the run's own
// context has ended.
const recordTimeout = 10 * time.Second

// lastRunsForDigest is how many recent runs a run reads to find the newest
// recorded consent digest.
const lastRunsForDigest = 5

// Run runs the sweep once and returns its record. The run deletes what
// expired at or before its start, re-checks consent evidence when the
// registry's consent texts changed since the last recorded check, then runs
// every task. A failing step is recorded (content-free: the step and an
// error code) and the run goes on with the next step, except that the
// deletions stop at the first failure (the rest waits for the next run).
// The error is nil when every step succeeded and the outcome was recorded;
// otherwise an *intake.Error, UNAVAILABLE when any step found Firestore
// unavailable, else INTERNAL.
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

// deleteAttachments deletes the attachment prefix of each of ids and
// returns how many objects it deleted; it stops at the first error (what
// is left, the scheduled bucket-wide pass deletes).
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

// finish records run's outcome (when its start was recorded), logs it and
// returns it with the run's error.
func (s *Sweeper) finish(ctx context.Context, run intake.SweepRun, f failures, begun bool) (intake.SweepRun, error) {
	run.FinishedAt = s.cfg.Clock.Now().UTC().Truncate(time.Microsecond)
	run.Error = f.String()
	if begun {
		// The outcome is recorded even when the run's own context has
		// ended (a request deadline cut the deletions short).
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

// recheckConsents marks every live introduction whose consent evidence no
// longer matches the registry REPAIR_NEEDED, and returns how many it
// marked.
func (s *Sweeper) recheckConsents(ctx context.Context, now time.Time) (int, error) {
	marked := 0
	err := s.cfg.Store.ConsentRecords(ctx, now, func(rec ConsentRecord) error {
		reason := ConsentMismatch(s.cfg.Registry, rec)
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

// ConsentMismatch returns why rec's consent evidence no longer matches the
// registry (content-free: purpose ids and text versions only), or "" when
// every consent matches the text of the version it was given under.
func ConsentMismatch(registry *formregistry.Registry, rec ConsentRecord) string {
	v, ok := registry.Find(rec.FormID, rec.FormVersion)
	if !ok && len(rec.Consents) > 0 {
		return fmt.Sprintf("consent evidence names form version %s/%s, which the form registry no longer holds", rec.FormID, rec.FormVersion)
	}
	for _, e := range rec.Consents {
		if !contentrules.EvidenceMatches(v, e) {
			lang := e.Lang
			if lang == "" {
				lang = formregistry.DefaultLang
			}
			return fmt.Sprintf("consent evidence for purpose %s (text %s, %s) no longer matches the form registry's text: ask the visitor to consent again or erase the data", e.Purpose, e.TextVersion, lang)
		}
	}
	return ""
}

// newestDigest returns the consent digest of the newest run that recorded
// one.
func newestDigest(runs []intake.SweepRun) string {
	for _, r := range runs {
		if r.ConsentDigest != "" {
			return r.ConsentDigest
		}
	}
	return ""
}

// runID names a run by its start (so ids sort by time) and 6 random bytes.
func (s *Sweeper) runID(start time.Time) (string, error) {
	b := make([]byte, 6)
	if _, err := io.ReadFull(s.cfg.Entropy, b); err != nil {
		return "", err
	}
	return strings.Replace(start.Format("20060102T150405.000000Z"), ".", "_", 1) + "-" + hex.EncodeToString(b), nil
}

// failures collects a run's failed steps: a content-free line per step for
// the record, and the causes for the log.
type failures struct {
	lines       []string
	causes      []error
	unavailable bool
}

func (f *failures) add(step string, err error) {
	code := intake.CodeOf(err)
	if code == intake.CodeUnavailable {
		f.unavailable = true
	}
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
