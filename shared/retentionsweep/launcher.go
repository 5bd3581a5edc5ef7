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
