package wiring

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// Bounds on a deployed function's start-up.
const (
	// StartTimeout bounds one attempt to build a function.
	StartTimeout = 30 * time.Second
	// FirstRetry is the wait after a failed start before the next attempt;
	// each further failure doubles it, up to LastRetry.
	FirstRetry = time.Second
	LastRetry  = 30 * time.Second
)

// Lazy is one deployed function, built on its first request. Requests that
// arrive while it builds wait for that one attempt (or their own context);
// a failed start is answered 503 UNAVAILABLE with Retry-After until the
// next attempt is due, with a backoff between attempts. No lock is held
// while it builds.
type Lazy struct {
	fn     Function
	getenv func(string) string
	now    func() time.Time

	mu       sync.Mutex
	svc      *Service
	building chan struct{} // closed when the attempt in flight ends
	nextTry  time.Time     // no attempt before it, after a failure
	wait     time.Duration // the wait after the next failure
}

// NewLazy returns the deployed function fn, reading its config through
// getenv and building it, alone, when first used.
func NewLazy(fn Function, getenv func(string) string) *Lazy {
	return &Lazy{fn: fn, getenv: getenv, now: time.Now, wait: FirstRetry}
}

// stderr is where deployed functions log: Cloud Run collects it.
var stderr io.Writer = os.Stderr

// ServeHTTP builds the function when it is not built yet, then serves r.
//
// A cold start (the request whose attempt built the function) also starts
// a sweep in the background where the function holds the store, which no
// request waits for; the Sweep function's own cold start does not, since
// its request runs one anyway (and is then recorded as the scheduler's).
func (l *Lazy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc, retryAfter, err := l.get(r.Context())
	if err != nil {
		jsonapi.WriteError(w, r, nil, intake.Unavailable(errors.New("start-up failed"), retryAfter))
		return
	}
	svc.Function(l.fn.Name).ServeHTTP(w, r)
}

// get returns the built function, building it if no attempt is in flight
// and none failed too recently.
func (l *Lazy) get(ctx context.Context) (*Service, time.Duration, error) {
	for {
		l.mu.Lock()
		switch {
		case l.svc != nil:
			svc := l.svc
			l.mu.Unlock()
			return svc, 0, nil
		case l.building != nil:
			building := l.building
			l.mu.Unlock()
			select {
			case <-building:
				continue
			case <-ctx.Done():
				return nil, FirstRetry, ctx.Err()
			}
		case l.now().Before(l.nextTry):
			wait := l.nextTry.Sub(l.now())
			l.mu.Unlock()
			return nil, wait, errors.New("start-up failed recently")
		}
		building := make(chan struct{})
		l.building = building
		l.mu.Unlock()

		svc, err := l.build(ctx)

		l.mu.Lock()
		l.building = nil
		if err == nil {
			l.svc = svc
		} else {
			l.nextTry = l.now().Add(l.wait)
			l.wait = min(2*l.wait, LastRetry)
		}
		retryAfter := l.nextTry.Sub(l.now())
		l.mu.Unlock()
		close(building)
		if err != nil {
			return nil, retryAfter, err
		}
		if svc.Sweeps != nil && l.fn.Name != SweepFunction {
			svc.Sweeps.Start(intake.SweepByColdStart)
		}
		return svc, 0, nil
	}
}

// build makes one attempt, bounded by StartTimeout and not by the request
// that asked for it (the others waiting on it share the result).
func (l *Lazy) build(ctx context.Context) (*Service, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StartTimeout)
	defer cancel()
	cfg, cfgErr := config.Load(l.getenv)
	logger := cloudlog.New(stderr, cfg.LogLevel)
	if cfgErr != nil {
		logger.ErrorContext(ctx, "start-up failed: configuration; will retry", slog.String("function", l.fn.Name), slog.String("error", cfgErr.Error()))
		return nil, cfgErr
	}
	p, err := NewParts(ctx, cfg, logger, nil, l.fn.Name)
	var svc *Service
	if err == nil {
		svc, err = p.Serve(l.fn)
	}
	if err != nil {
		logger.ErrorContext(ctx, "start-up failed; will retry", slog.String("function", l.fn.Name), slog.String("error", err.Error()))
		return nil, err
	}
	return svc, nil
}
