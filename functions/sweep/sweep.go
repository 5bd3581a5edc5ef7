// Package sweep is the sweep function: it runs the retention sweep and
// answers what the run did. Deployed without public invoker, Cloud Run
// checks the caller (Cloud Scheduler's OIDC token) before this code.
package sweep

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// schedulerAgent is the User-Agent Cloud Scheduler's HTTP targets send.
const schedulerAgent = "Google-Cloud-Scheduler"

// Runner runs a sweep and returns its record. Errors: UNAVAILABLE, INTERNAL.
type Runner interface {
	Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error)
}

// Answer is the 200 answer: the run's record.
type Answer struct {
	ID                  string         `json:"id"`
	Trigger             string         `json:"trigger"`
	StartedAt           time.Time      `json:"startedAt"`
	FinishedAt          time.Time      `json:"finishedAt"`
	Deleted             map[string]int `json:"deleted"`
	DeliveriesAttempted int            `json:"deliveriesAttempted"`
	RepairNeeded        int            `json:"repairNeeded"`
}

// Name is the function's entry point.
const Name = "Sweep"

// Routes are the function's rows of the route table, answered by h.
func Routes(h *Handlers) []jsonapi.Route {
	return []jsonapi.Route{{Pattern: "POST /internal/sweep", Handle: h.Run}}
}

// Handlers are the function's route handlers.
type Handlers struct {
	runner Runner
}

// New returns the function's handlers; it refuses a nil runner.
func New(runner Runner) (*Handlers, error) {
	if runner == nil {
		return nil, errors.New("sweep.New: no Runner")
	}
	return &Handlers{runner: runner}, nil
}

// Run runs a sweep, the scheduler's when Cloud Scheduler calls, else the owner's, and answers
// 200 with its record, or its error (503 UNAVAILABLE: Cloud Scheduler retries).
func (h *Handlers) Run(w http.ResponseWriter, r *http.Request) error {
	trigger := intake.SweepByOwner
	if strings.HasPrefix(r.Header.Get("User-Agent"), schedulerAgent) {
		trigger = intake.SweepByScheduler
	}
	run, err := h.runner.Run(r.Context(), trigger)
	if err != nil {
		return err
	}
	jsonapi.WriteJSON(w, http.StatusOK, Answer{
		ID: run.ID, Trigger: string(run.Trigger), StartedAt: run.StartedAt.UTC(), FinishedAt: run.FinishedAt.UTC(),
		Deleted: run.Deleted, DeliveriesAttempted: run.DeliveriesAttempted, RepairNeeded: run.RepairNeeded,
	})
	return nil
}
