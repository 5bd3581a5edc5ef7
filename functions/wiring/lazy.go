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

// Lazy is one deployed function, built on its first request; requests wait for that attempt,
// and after a failure are answered 503 UNAVAILABLE with Retry-After until the next, with backoff.
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

// NewLazy returns fn, configured through getenv, built alone when first used.
func NewLazy(fn Function, getenv func(string) string) *Lazy {
	return &Lazy{fn: fn, getenv: getenv, now: time.Now, wait: FirstRetry}
}

// stderr is where deployed functions log: Cloud Run collects it.
var stderr io.Writer = os.Stderr

// ServeHTTP builds the function if need be, then serves r. A cold start also starts a
// background sweep where the function holds the store (but Sweep's, whose request runs one).
func (l *Lazy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc, retryAfter, err := l.get(r.Context())
	if err != nil {
		jsonapi.WriteError(w, r, nil, intake.Unavailable(errors.New("start-up failed"), retryAfter))
		return
	}
	svc.Function(l.fn.Name).ServeHTTP(w, r)
}

// get returns the built function, building it unless an attempt is in flight or failed too recently.
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

// build makes one attempt, bounded by StartTimeout, not by the request.
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
