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
	// SweepByQuietSpell: an instance's first request after a quiet spell.
	SweepByQuietSpell SweepTrigger = "quiet-spell"
	SweepByOwner      SweepTrigger = "owner"
)

// SweepRun records one run of the retention sweep: when, what started it, what each class
// lost (Deleted, by class or collection name) and its content-free error. It is written as
// unfinished when it starts and overwritten with its outcome. ConsentDigest is the consent
// texts' digest its re-check covered ("" when incomplete).
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
	// Deleted counts what the task deleted, by class.
	Deleted map[string]int
}

// SweepTask is one job the sweep runs after its deletions and consent re-check. Its error is
// recorded and the run goes on with the next task.
type SweepTask interface {
	Name() string
	Run(ctx context.Context, now time.Time) (SweepTaskResult, error)
}

// DailyFigures are one UTC day's intake counts, aggregated once from the ledger.
type DailyFigures struct {
	Day       string `json:"day" firestore:"day"` // YYYY-MM-DD, UTC
	Confirmed int    `json:"confirmed" firestore:"confirmed"`
	// Refused counts refused attempts by abuse state name.
	Refused map[string]int `json:"refused" firestore:"refused"`
	// LikelySpam counts the day's confirmed introductions the signals made likely spam.
	LikelySpam int `json:"likelySpam" firestore:"likelySpam"`
	// Solves counts the day's reported base-cost solves by SolveBucket milliseconds.
	Solves map[string]int `json:"solves" firestore:"solves"`
	// SolveMaxNumber is the base cost the solves were counted at; 0 when none.
	SolveMaxNumber int64     `json:"solveMaxNumber" firestore:"solveMaxNumber"`
	ExpireAt       time.Time `json:"-" firestore:"expireAt"`
}
