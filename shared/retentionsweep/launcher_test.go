package retentionsweep

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

var discard = slog.New(slog.DiscardHandler)

// blockingRunner's runs wait until the test releases them.
type blockingRunner struct {
	started  chan intake.SweepTrigger
	release  chan struct{}
	runs     atomic.Int32
	inFlight atomic.Int32
	maxAtOne atomic.Int32
}

func newBlockingRunner() *blockingRunner {
	return &blockingRunner{started: make(chan intake.SweepTrigger, 100), release: make(chan struct{})}
}

func (b *blockingRunner) Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	b.runs.Add(1)
	n := b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	for {
		m := b.maxAtOne.Load()
		if n <= m || b.maxAtOne.CompareAndSwap(m, n) {
			break
		}
	}
	b.started <- trigger
	<-b.release
	return intake.SweepRun{ID: "run-" + string(trigger), Trigger: trigger}, nil
}

// TestStartDoesNotWait: Start returns while its run is still blocked, and
// a second Start while one is in flight starts nothing.
func TestStartDoesNotWait(t *testing.T) {
	r := newBlockingRunner()
	l := newLauncher(t, r, testsupport.NewClock(time.Now()), discard)
	if !l.Start(intake.SweepByColdStart) {
		t.Fatal("Start did not start a run")
	}
	// Start has returned although the run cannot finish until released.
	if got := <-r.started; got != intake.SweepByColdStart {
		t.Fatalf("started %q", got)
	}
	if l.Start(intake.SweepByColdStart) {
		t.Fatal("a second Start ran while one was in flight")
	}
	close(r.release)
	l.Wait()
	if n := r.runs.Load(); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	if !l.Start(intake.SweepByColdStart) {
		t.Fatal("Start after the run ended did not start one")
	}
	l.Wait()
}

// TestRunJoinsTheRunInFlight: a Run asked for while a background run is in
// flight waits for it and answers its record; never two runs at once.
func TestRunJoinsTheRunInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newBlockingRunner()
		l := newLauncher(t, r, testsupport.NewClock(time.Now()), discard)
		l.Start(intake.SweepByColdStart)
		<-r.started
		got := make(chan intake.SweepRun)
		go func() {
			run, err := l.Run(context.Background(), intake.SweepByScheduler)
			if err != nil {
				t.Error(err)
			}
			got <- run
		}()
		synctest.Wait() // the scheduler's call now waits on the cold start's run
		close(r.release)
		if run := <-got; run.Trigger != intake.SweepByColdStart {
			t.Fatalf("joined run's trigger %q, want the cold start's", run.Trigger)
		}
		if n, m := r.runs.Load(), r.maxAtOne.Load(); n != 1 || m != 1 {
			t.Fatalf("%d runs, %d at once; want 1 and 1", n, m)
		}
	})
}

// TestRunGivesUpWithItsContext: a caller joining a run gets its context's
// end, not a hang.
func TestRunGivesUpWithItsContext(t *testing.T) {
	r := newBlockingRunner()
	defer close(r.release)
	l := newLauncher(t, r, testsupport.NewClock(time.Now()), discard)
	l.Start(intake.SweepByColdStart)
	<-r.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Run(ctx, intake.SweepByScheduler); intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("Run with an ended context = %v, want UNAVAILABLE", err)
	}
}

// TestFirstDraftOfDay starts one background run per UTC day on this
// instance, whatever the hour.
func TestFirstDraftOfDay(t *testing.T) {
	r := newBlockingRunner()
	close(r.release)
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 23, 59, 0, 0, time.UTC))
	l := newLauncher(t, r, clock, discard)
	steps := []struct {
		at    time.Time
		start bool
	}{
		{time.Date(2026, 12, 1, 23, 59, 0, 0, time.UTC), true},
		{time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC), false},
		{time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 12, 2, 3, 0, 0, 0, time.FixedZone("UTC+2", 2*3600)), false}, // 01:00 on 2 December in UTC
		{time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC), false},
		{time.Date(2026, 12, 3, 0, 0, 1, 0, time.UTC), true},
	}
	for _, s := range steps {
		clock.Set(s.at)
		if got := l.FirstDraftOfDay(); got != s.start {
			t.Errorf("at %v: started %v, want %v", s.at, got, s.start)
		}
		l.Wait()
	}
	if n := r.runs.Load(); n != 3 {
		t.Fatalf("%d runs, want 3", n)
	}
}

// quiet is the quiet spell of the launchers under test.
const quiet = 15 * time.Minute

// TestRequestAfterAQuietSpell: requests that keep coming start nothing,
// however long they go on; the first after a quiet spell starts one run;
// the first request of all starts none (the cold start sweeps).
func TestRequestAfterAQuietSpell(t *testing.T) {
	r := newBlockingRunner()
	close(r.release)
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	l := newLauncher(t, r, clock, discard)
	steps := []struct {
		name  string
		after time.Duration
		start bool
	}{
		{"the first request", 0, false},
		{"a request after a long wait", 40 * time.Minute, true},
		{"one just under the quiet spell later", quiet - time.Second, false},
		{"another just under it", quiet - time.Second, false},
		{"and another", quiet - time.Second, false},
		{"one a quiet spell later", quiet, true},
		{"one a second later", time.Second, false},
		{"one a day later", 24 * time.Hour, true},
	}
	for _, s := range steps {
		clock.Advance(s.after)
		if got := l.Request(); got != s.start {
			t.Errorf("%s: started %v, want %v", s.name, got, s.start)
		}
		l.Wait()
	}
	if n := r.runs.Load(); n != 3 {
		t.Fatalf("%d runs, want 3", n)
	}
	for range 3 {
		if got := <-r.started; got != intake.SweepByQuietSpell {
			t.Fatalf("trigger %q, want %q", got, intake.SweepByQuietSpell)
		}
	}
}

// TestRequestsTogetherAfterAQuietSpell: of many requests arriving at once
// after a quiet spell, one starts a run, even when runs end at once (so no
// run in flight is what holds the others back).
func TestRequestsTogetherAfterAQuietSpell(t *testing.T) {
	r := newBlockingRunner()
	close(r.release)
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	l := newLauncher(t, r, clock, discard)
	l.Request()
	clock.Advance(quiet)
	var started atomic.Int32
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			if l.Request() {
				started.Add(1)
			}
		})
	}
	wg.Wait()
	l.Wait()
	if n, runs := started.Load(), r.runs.Load(); n != 1 || runs != 1 {
		t.Fatalf("%d requests started a run, %d runs; want 1 and 1", n, runs)
	}
}

func newLauncher(t *testing.T, r Runner, clock intake.Clock, logger *slog.Logger) *Launcher {
	t.Helper()
	l, err := NewLauncher(r, clock, quiet, logger)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewLauncherRefusesMissingParts(t *testing.T) {
	_, err := NewLauncher(nil, nil, 0, nil)
	for _, part := range []string{"Runner", "Clock", "quiet spell", "Logger"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("NewLauncher without %s: %v", part, err)
		}
	}
	if _, err := NewLauncher(newBlockingRunner(), testsupport.NewClock(time.Now()), -time.Minute, discard); err == nil {
		t.Error("NewLauncher took a negative quiet spell")
	}
}

// heldTask is a sweep task that waits, as a slow Firestore call does, until
// the test releases it or its context ends (then it fails as Firestore
// would: UNAVAILABLE).
type heldTask struct {
	started chan struct{}
	release chan struct{}
}

func (heldTask) Name() string { return "held" }
func (h heldTask) Run(ctx context.Context, _ time.Time) (intake.SweepTaskResult, error) {
	close(h.started)
	select {
	case <-h.release:
		return intake.SweepTaskResult{DeliveriesAttempted: 1}, nil
	case <-ctx.Done():
		return intake.SweepTaskResult{}, intake.Unavailable(ctx.Err(), time.Second)
	}
}

// TestARunOutlivesTheCallerThatStartedIt: the first caller of Run hangs up
// while a second has joined its run; the second still gets the run's
// record, and the run is recorded as finished, not cut by the first
// caller's end.
func TestARunOutlivesTheCallerThatStartedIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &fakeStore{collections: []string{"ledger"}}
		held := heldTask{started: make(chan struct{}), release: make(chan struct{})}
		l := newLauncher(t, sweeperOver(t, store, held), testsupport.NewClock(time.Now()), discard)

		first, hangUp := context.WithCancel(context.Background())
		firstErr := make(chan error, 1)
		go func() {
			_, err := l.Run(first, intake.SweepByOwner)
			firstErr <- err
		}()
		<-held.started
		type answer struct {
			run intake.SweepRun
			err error
		}
		second := make(chan answer, 1)
		go func() {
			run, err := l.Run(context.Background(), intake.SweepByScheduler)
			second <- answer{run, err}
		}()
		synctest.Wait() // the second caller now waits on the first one's run
		hangUp()
		if err := <-firstErr; intake.CodeOf(err) != intake.CodeUnavailable {
			t.Fatalf("the caller that hung up got %v, want UNAVAILABLE", err)
		}
		close(held.release)
		got := <-second
		if got.err != nil || got.run.Trigger != intake.SweepByOwner || got.run.DeliveriesAttempted != 1 {
			t.Fatalf("the caller that stayed got %+v, %v; want the owner's run, finished", got.run, got.err)
		}
		if len(store.finished) != 1 || store.finished[0].Error != "" || store.finished[0].FinishedAt.IsZero() {
			t.Fatalf("recorded %+v, want one run finished without error", store.finished)
		}
	})
}
