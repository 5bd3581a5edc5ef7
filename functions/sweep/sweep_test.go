package sweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/sweep"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

const path = "/internal/sweep"

// fakeRunner answers a fixed run or error and remembers the trigger.
type fakeRunner struct {
	run     intake.SweepRun
	err     error
	trigger intake.SweepTrigger
	calls   int
}

func (f *fakeRunner) Run(_ context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	f.calls++
	f.trigger = trigger
	run := f.run
	run.Trigger = trigger
	return run, f.err
}

func serve(t *testing.T, runner sweep.Runner) http.Handler {
	t.Helper()
	h, err := sweep.New(runner)
	if err != nil {
		t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(sweep.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return served
}

func TestRunAnswersTheRun(t *testing.T) {
	start := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	runner := &fakeRunner{run: intake.SweepRun{ID: "run-1", StartedAt: start, FinishedAt: start.Add(2 * time.Second),
		Deleted: map[string]int{"drafts": 3, "ledger": 1}, DeliveriesAttempted: 2, RepairNeeded: 1}}
	h := serve(t, runner)

	w := testsupport.Serve(h, testsupport.Request{Method: http.MethodPost, Path: path, Header: map[string]string{"User-Agent": "Google-Cloud-Scheduler"}})
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, type %q, body %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"startedAt", "finishedAt", "deleted", "deliveriesAttempted", "repairNeeded"} {
		if _, ok := got[k]; !ok {
			t.Errorf("answer lacks %q: %s", k, w.Body)
		}
	}
	if got["startedAt"] != "2026-12-01T03:00:00Z" || got["deleted"].(map[string]any)["drafts"] != 3.0 || got["repairNeeded"] != 1.0 || got["deliveriesAttempted"] != 2.0 {
		t.Errorf("answer %s", w.Body)
	}
	if runner.trigger != intake.SweepByScheduler {
		t.Errorf("Cloud Scheduler's call ran as %q", runner.trigger)
	}
	testsupport.Serve(h, testsupport.Request{Method: http.MethodPost, Path: path, Header: map[string]string{"User-Agent": "curl/8"}})
	if runner.trigger != intake.SweepByOwner {
		t.Errorf("a call by hand ran as %q", runner.trigger)
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"Firestore unavailable", intake.Unavailable(errors.New("deleting expired ledger: UNAVAILABLE"), 30*time.Second), http.StatusServiceUnavailable, "UNAVAILABLE"},
		{"a task failed", intake.Internal(errors.New("task figures: INTERNAL")), http.StatusInternalServerError, "INTERNAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := testsupport.Serve(serve(t, &fakeRunner{err: tt.err}), testsupport.Request{Method: http.MethodPost, Path: path})
			if code := testsupport.ProblemCode(t, w); w.Code != tt.status || code != tt.code {
				t.Fatalf("status %d, code %s; want %d %s", w.Code, code, tt.status, tt.code)
			}
			if strings.Contains(w.Body.String(), "deleting expired") || strings.Contains(w.Body.String(), "task figures") {
				t.Errorf("the answer carries the internal cause: %s", w.Body)
			}
			if tt.status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") != "30" {
				t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
			}
		})
	}
}

func TestEdges(t *testing.T) {
	runner := &fakeRunner{}
	testsupport.CheckEdges(t, serve(t, runner), path, "POST")
	if runner.calls != 0 {
		t.Fatalf("a refused request ran %d sweeps", runner.calls)
	}
}

func TestNewRefusesNoRunner(t *testing.T) {
	if _, err := sweep.New(nil); err == nil || !strings.Contains(err.Error(), "Runner") {
		t.Fatalf("New(nil) error = %v", err)
	}
}
