package retentionsweep

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// Runner runs one sweep; *Sweeper is one.
type Runner interface {
	Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error)
}

// RunTimeout bounds every run, whoever asked for it: a run has its own
// context, never a caller's, so that it neither dies with the request that
// started it (another caller may have joined it) nor outlives the Sweep
// function's request timeout.
const RunTimeout = 5 * time.Minute

// Launcher starts the sweeps of one instance, never two at once: a run
// asked for while one is in flight joins it (Run) or is skipped (Start,
// FirstDraftOfDay, Request). It is safe for concurrent use.
type Launcher struct {
	runner Runner
	clock  intake.Clock
	quiet  time.Duration
	logger *slog.Logger

	mu       sync.Mutex
	inFlight *flight
	// draftDay is the UTC day (YYYY-MM-DD) of the newest draft seen here.
	draftDay string
	// lastRequest is when the newest request noted here arrived; zero
	// before the first.
	lastRequest time.Time
}

// flight is one run in progress; done closes when run and err are set.
type flight struct {
	done chan struct{}
	run  intake.SweepRun
	err  error
}

// NewLauncher returns a Launcher over runner whose Request starts a run
// after quiet without requests (config's SweepAfterIdle), or an error
// naming every missing dependency.
func NewLauncher(runner Runner, clock intake.Clock, quiet time.Duration, logger *slog.Logger) (*Launcher, error) {
	var missing []error
	checks := map[string]bool{"Runner": runner != nil, "Clock": clock != nil, "quiet spell": quiet > 0, "Logger": logger != nil}
	for _, name := range slices.Sorted(maps.Keys(checks)) {
		if !checks[name] {
			missing = append(missing, errors.New("retentionsweep.NewLauncher: no "+name))
		}
	}
	if err := errors.Join(missing...); err != nil {
		return nil, err
	}
	return &Launcher{runner: runner, clock: clock, quiet: quiet, logger: logger}, nil
}

// Run runs a sweep and returns its record. When a run is already in flight
// on this instance, Run waits for that one and returns its record instead
// of starting a second. Every caller, the first included, waits with its
// own ctx: when ctx ends first, Run returns UNAVAILABLE and the run goes on
// (bounded by RunTimeout) for whoever else waits on it; otherwise the error
// is the run's.
func (l *Launcher) Run(ctx context.Context, trigger intake.SweepTrigger) (intake.SweepRun, error) {
	f, started := l.claim()
	if started {
		// The run keeps the request's values (its trace, for the logs),
		// not its end.
		go l.fly(context.WithoutCancel(ctx), f, trigger)
	}
	select {
	case <-f.done:
		return f.run, f.err
	case <-ctx.Done():
		return intake.SweepRun{}, intake.Unavailable(ctx.Err(), 30*time.Second)
	}
}

// Start starts a run in the background, unless one is in flight on this
// instance, and returns at once; it reports whether it started one. The
// run is bounded by RunTimeout, not by any request.
func (l *Launcher) Start(trigger intake.SweepTrigger) bool {
	f, started := l.claim()
	if !started {
		return false
	}
	go l.fly(context.Background(), f, trigger)
	return true
}

// FirstDraftOfDay starts a background run (as Start does) when this is the
// first draft this instance sees on the current UTC day; it never waits.
// It reports whether it started one.
func (l *Launcher) FirstDraftOfDay() bool {
	day := l.clock.Now().UTC().Format(time.DateOnly)
	l.mu.Lock()
	first := day != l.draftDay
	l.draftDay = day
	l.mu.Unlock()
	return first && l.Start(intake.SweepByFirstDraftOfDay)
}

// Request notes a request arriving on this instance and, when the one
// before it arrived at least the quiet spell ago, starts a background run
// (as Start does); it never waits. The first request noted starts none:
// the cold start that built this instance sweeps already. Of requests
// arriving together after a quiet spell, one starts the run. It reports
// whether it started one.
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

// claim returns the flight in progress, or a new one that the caller must
// fly (started is then true).
func (l *Launcher) claim() (f *flight, started bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight != nil {
		return l.inFlight, false
	}
	l.inFlight = &flight{done: make(chan struct{})}
	return l.inFlight, true
}

// fly runs the sweep for f, under a context of its own made from parent's
// values and bounded by RunTimeout, and lands it.
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
