// Package floodlimit is the cheap per-instance rate layer in front of the
// authoritative Firestore counters: it counts every request, kept
// or not, per keyed hash in memory, so that a flood of garbage costs no
// Firestore transaction; and it remembers the authoritative blocks the store
// reported, so a source already at its limit is refused before the chain.
// Memory is bounded: two counters per key, and keys idle for two windows are
// dropped.
package floodlimit

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// Layer is the name this layer records in ledger entries.
const Layer = "flood"

// MaxKeys bounds the keys kept in memory; past it, the oldest window's keys
// are dropped first.
const MaxKeys = 100_000

type counter struct {
	windowStart time.Time
	current     int
	previous    int
}

// Limiter is safe for concurrent use.
type Limiter struct {
	limit  int
	window time.Duration

	mu        sync.Mutex
	counts    map[string]*counter
	blocks    map[string]time.Time
	lastPrune time.Time
}

// New returns a limiter allowing limit requests per rolling window per key.
// It refuses a limit below 1 and a window that is not positive, naming
// each.
func New(limit int, window time.Duration) (*Limiter, error) {
	var problems []error
	if limit < 1 {
		problems = append(problems, fmt.Errorf("floodlimit.New: limit %d is below 1", limit))
	}
	if window <= 0 {
		problems = append(problems, fmt.Errorf("floodlimit.New: window %v is not positive", window))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return &Limiter{limit: limit, window: window, counts: map[string]*counter{}, blocks: map[string]time.Time{}}, nil
}

// Admit counts one request for keyHash at now and returns the layer's
// decision. The estimate is the sliding-window approximation: the previous
// window's count weighted by how much of it still overlaps, plus this one's.
func (l *Limiter) Admit(keyHash string, now time.Time) (intake.RateDecision, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prune(now)
	c := l.counts[keyHash]
	if c == nil {
		c = &counter{windowStart: now.Truncate(l.window)}
		l.counts[keyHash] = c
	}
	l.roll(c, now)
	overlap := 1 - float64(now.Sub(c.windowStart))/float64(l.window)
	estimate := int(float64(c.previous)*overlap) + c.current
	d := intake.RateDecision{Layer: Layer, KeyHash: keyHash, WindowSeconds: int64(l.window / time.Second), Limit: l.limit}
	if estimate >= l.limit {
		d.Count, d.Decision = estimate, intake.RateBlock
		return d, intake.CoarseRetryAfter(c.windowStart.Add(l.window).Sub(now))
	}
	c.current++
	d.Count, d.Decision = estimate+1, intake.RateAllow
	return d, 0
}

func (l *Limiter) roll(c *counter, now time.Time) {
	start := now.Truncate(l.window)
	switch {
	case start.Equal(c.windowStart):
	case start.Sub(c.windowStart) == l.window:
		c.previous, c.current, c.windowStart = c.current, 0, start
	default:
		c.previous, c.current, c.windowStart = 0, 0, start
	}
}

// Block remembers that the authoritative layer blocked keyHash until until.
func (l *Limiter) Block(keyHash string, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.blocks) >= MaxKeys {
		clear(l.blocks)
	}
	l.blocks[keyHash] = until
}

// Blocked reports whether keyHash is under a remembered authoritative block
// at now, and for how long.
func (l *Limiter) Blocked(keyHash string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.blocks[keyHash]
	if !ok {
		return 0, false
	}
	if !now.Before(until) {
		delete(l.blocks, keyHash)
		return 0, false
	}
	return intake.CoarseRetryAfter(until.Sub(now)), true
}

// prune drops idle keys once per window, and everything when over MaxKeys.
func (l *Limiter) prune(now time.Time) {
	if len(l.counts) < MaxKeys && now.Sub(l.lastPrune) < l.window {
		return
	}
	l.lastPrune = now
	for k, c := range l.counts {
		if now.Sub(c.windowStart) >= 2*l.window {
			delete(l.counts, k)
		}
	}
	if len(l.counts) >= MaxKeys {
		clear(l.counts)
	}
	for k, until := range l.blocks {
		if !now.Before(until) {
			delete(l.blocks, k)
		}
	}
}
