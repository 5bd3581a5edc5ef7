package wiring_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/intake"
)

// heldRunner is a sweep that starts and then waits for the test.
type heldRunner struct {
	started chan intake.SweepTrigger
	release chan struct{}
}

func (r *heldRunner) Run(_ context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	r.started <- trigger
	<-r.release
	return intake.SweepRun{Trigger: trigger}, nil
}

// TestFirstDraftOfTheDayDoesNotWaitForTheSweep: the day's first draft
// starts a sweep in the background and is answered while that sweep is
// still running; the next draft starts none.
func TestFirstDraftOfTheDayDoesNotWaitForTheSweep(t *testing.T) {
	runner := &heldRunner{started: make(chan intake.SweepTrigger, 4), release: make(chan struct{})}
	h := newHarnessWith(t, nil, dbparts.Overrides{SweepRunner: runner})
	t.Cleanup(func() { close(runner.release) }) // before the harness waits for the sweep at Close

	// The sweep cannot finish before release: an answer here proves the
	// draft did not wait for it.
	if r := h.postJSON("/api/introductions", h.draftBody(nil)); r.status != http.StatusCreated {
		t.Fatalf("first draft: %d %s", r.status, r.body)
	}
	select {
	case got := <-runner.started:
		if got != intake.SweepByFirstDraftOfDay {
			t.Fatalf("started a %q sweep", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the day's first draft started no sweep")
	}
	if r := h.postJSON("/api/introductions", h.draftBody(nil)); r.status != http.StatusCreated {
		t.Fatalf("second draft: %d %s", r.status, r.body)
	}
	select {
	case got := <-runner.started:
		t.Fatalf("the day's second draft started a %q sweep", got)
	default:
	}
}

// TestAQuietSpellStartsASweep: on a warm instance, the first request after
// SWEEP_AFTER_IDLE without any starts a background sweep (recorded as the
// quiet spell's); requests that keep coming start none, and the Sweep
// function's own request is not counted as one.
func TestAQuietSpellStartsASweep(t *testing.T) {
	runner := &heldRunner{started: make(chan intake.SweepTrigger, 4), release: make(chan struct{})}
	h := newHarnessWith(t, map[string]string{"SWEEP_AFTER_IDLE": "15m"}, dbparts.Overrides{SweepRunner: runner})
	t.Cleanup(func() { close(runner.release) })
	challenge := func() {
		t.Helper()
		if r := h.do(http.MethodGet, "/api/introductions/challenge", "", nil); r.status != http.StatusOK {
			t.Fatalf("challenge: %d %s", r.status, r.body)
		}
	}
	started := func() intake.SweepTrigger {
		select {
		case got := <-runner.started:
			return got
		case <-time.After(100 * time.Millisecond):
			return ""
		}
	}
	challenge()
	for range 3 {
		h.clock.Advance(14 * time.Minute)
		challenge()
	}
	if got := started(); got != "" {
		t.Fatalf("requests 14 minutes apart started a %q sweep", got)
	}
	h.clock.Advance(15 * time.Minute)
	challenge()
	select {
	case got := <-runner.started:
		if got != intake.SweepByQuietSpell {
			t.Fatalf("the first request after a quiet spell started a %q sweep", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the first request after a quiet spell started no sweep")
	}
}

// TestSweepEndpointExpiresADraft: a draft not confirmed in time cannot be
// confirmed before any sweep comes; POST /internal/sweep then deletes it,
// answers what it deleted, and leaves the draft's ledger entry EXPIRED
// without content.
func TestSweepEndpointExpiresADraft(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(map[string]any{"message": "canary-sweep-message"})).json(t)
	id := d["id"].(string)
	h.clock.Advance(30 * time.Minute)
	if r := h.postJSON("/api/introductions/"+id+"/confirmation", map[string]string{"token": d["token"].(string)}); r.status != http.StatusNotFound {
		t.Fatalf("confirming at the draft's expiry, before any sweep: %d %s", r.status, r.body)
	}
	h.svc.Sweeps.Wait() // the first draft's background sweep, if still running

	r := h.do(http.MethodPost, "/internal/sweep", "", nil, "User-Agent", "Google-Cloud-Scheduler")
	if r.status != http.StatusOK {
		t.Fatalf("sweep: %d %s", r.status, r.body)
	}
	var run struct {
		StartedAt, FinishedAt             time.Time
		Deleted                           map[string]int
		DeliveriesAttempted, RepairNeeded int
	}
	if err := json.Unmarshal(r.body, &run); err != nil {
		t.Fatal(err)
	}
	if run.Deleted["drafts"] != 1 || run.Deleted["idempotencyKeys"] != 0 || run.StartedAt.IsZero() || run.FinishedAt.Before(run.StartedAt) {
		t.Fatalf("sweep answered %s", r.body)
	}
	for _, k := range []string{"drafts", "introductions", "transcripts", "spentChallenges", "rateCounters", "idempotencyKeys", "ledger"} {
		if _, ok := run.Deleted[k]; !ok {
			t.Errorf("the answer's deleted lacks %q: %s", k, r.body)
		}
	}
	if n := h.count("introductions"); n != 0 {
		t.Fatalf("%d introductions left", n)
	}
	ledger := h.docs("ledger")
	if len(ledger) != 1 || !strings.Contains(ledger[0], `"decision":"EXPIRED"`) || strings.Contains(ledger[0], "canary") {
		t.Fatalf("ledger after the sweep: %q", ledger)
	}
	if strings.Contains(h.logs.String(), "canary-sweep-message") || !strings.Contains(h.logs.String(), "sweep finished") {
		t.Fatal("the sweep's logs carry the draft's words, or it logged no run")
	}
	runs, err := h.svc.DB.Owner().LastRuns(context.Background(), 1)
	if err != nil || len(runs) != 1 || runs[0].Trigger != intake.SweepByScheduler || runs[0].Error != "" || runs[0].Deleted["drafts"] != 1 {
		t.Fatalf("recorded run %+v, %v", runs, err)
	}
}

// TestTheSweepCountsTheAdminsDailyFigures: the admin's daily-figures task
// is one of the sweep's tasks, so a sweep counts each finished day of the
// chart and the figures page then shows them all counted; a confirmed
// introduction is on the list.
func TestTheSweepCountsTheAdminsDailyFigures(t *testing.T) {
	h := newHarness(t, nil)
	d := h.postJSON("/api/introductions", h.draftBody(nil)).json(t)
	if r := h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": d["token"].(string)}); r.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	h.svc.Sweeps.Wait() // the first draft's background sweep, if still running
	if r := h.do(http.MethodPost, "/internal/sweep", "", nil); r.status != http.StatusOK {
		t.Fatalf("sweep: %d %s", r.status, r.body)
	}
	if n := h.count("dailyFigures"); n != 30 {
		t.Fatalf("%d days of figures after a sweep, want the chart's 30", n)
	}
	page := h.do(http.MethodGet, "/admin/figures", "", nil)
	if page.status != http.StatusOK || strings.Contains(string(page.body), "days counted so far") || !strings.Contains(string(page.body), `<svg class="chart"`) {
		t.Fatalf("the figures page: %d", page.status)
	}
	list := h.do(http.MethodGet, "/admin/api/introductions", "", nil).json(t)["introductions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != d["id"] {
		t.Fatalf("the admin's list: %v", list)
	}
}
