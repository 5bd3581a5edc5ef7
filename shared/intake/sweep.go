package intake

import (
	"context"
	"time"
)

// SweepTrigger says what started a sweep run.
type SweepTrigger string

// The triggers of a sweep run.
const (
	SweepByScheduler       SweepTrigger = "scheduler"
	SweepByColdStart       SweepTrigger = "cold-start"
	SweepByFirstDraftOfDay SweepTrigger = "first-draft-of-day"
	// SweepByQuietSpell: an instance's first request after a spell without
	// any.
	SweepByQuietSpell SweepTrigger = "quiet-spell"
	SweepByOwner      SweepTrigger = "owner"
)

// SweepRun records one run of the retention sweep, for the admin's health
// view: when, what started it, what each retention class lost, and whether
// it failed (a content-free error). Deleted is keyed by class: drafts,
// introductions, transcripts, spentChallenges, rateCounters,
// idempotencyKeys, ledger, and the other collections by name (envelopes,
// sweepRuns, dailyFigures, providerEvents), and what a task deleted by its
// class (attachments: the files whose introduction is gone). A run's record is written when
// it starts, with FinishedAt zero and Error saying it did not finish, and
// overwritten with its outcome at the end: a run cut off midway stays
// visible as unfinished. ConsentDigest is the form registry's consent-text
// digest the run's consent re-check covered ("" when the re-check did not
// complete), so a later run under the same texts can skip it.
type SweepRun struct {
	ID                  string         `json:"id" firestore:"-"`
	Trigger             SweepTrigger   `json:"trigger" firestore:"trigger"`
	StartedAt           time.Time      `json:"startedAt" firestore:"startedAt"`
	FinishedAt          time.Time      `json:"finishedAt" firestore:"finishedAt"`
	Deleted             map[string]int `json:"deleted" firestore:"deleted"`
	DeliveriesAttempted int            `json:"deliveriesAttempted" firestore:"deliveriesAttempted"`
	RepairNeeded        int            `json:"repairNeeded" firestore:"repairNeeded"`
	Error               string         `json:"error,omitempty" firestore:"error"`
	ConsentDigest       string         `json:"consentDigest,omitempty" firestore:"consentDigest"`
	ExpireAt            time.Time      `json:"-" firestore:"expireAt"`
}

// SweepTaskResult is what one sweep task reports into its run.
type SweepTaskResult struct {
	DeliveriesAttempted int
	RepairNeeded        int
	// Deleted counts what the task deleted, by class (attachments), added
	// to the run's Deleted.
	Deleted map[string]int
}

// SweepTask is one job the sweep runs after deleting what has expired and
// re-checking consent evidence (delivery retries, the admin's daily
// figures); the wiring registers each with one line. The run adds up what
// the tasks report. A task whose work fails returns an error; the run
// records it (the task's name and the error's code) and goes on with the
// next task.
type SweepTask interface {
	Name() string
	Run(ctx context.Context, now time.Time) (SweepTaskResult, error)
}

// DailyFigures are one UTC day's intake counts for the admin's chart,
// aggregated once from the ledger, never on a page view.
type DailyFigures struct {
	Day       string `json:"day" firestore:"day"` // YYYY-MM-DD, UTC
	Confirmed int    `json:"confirmed" firestore:"confirmed"`
	// Refused counts refused attempts by abuse state (RATE_LIMITED,
	// HONEYPOT, CONTENT_REJECTED, POW_FAILED), keyed by its name (the
	// Firestore client stores maps with plain string keys only).
	Refused map[string]int `json:"refused" firestore:"refused"`
	// LikelySpam counts the introductions confirmed that day that the
	// spam signals made likely spam (part of Confirmed).
	LikelySpam int `json:"likelySpam" firestore:"likelySpam"`
	// Solves counts the drafts kept that day whose page reported a solve
	// of a base-cost challenge (SolveMaxNumber), by SolveBucket, keyed by
	// the bucket's milliseconds in decimal.
	Solves map[string]int `json:"solves" firestore:"solves"`
	// SolveMaxNumber is the base cost (POW_MAX_NUMBER) the solves were
	// counted at; 0 when none were.
	SolveMaxNumber int64     `json:"solveMaxNumber" firestore:"solveMaxNumber"`
	ExpireAt       time.Time `json:"-" firestore:"expireAt"`
}
