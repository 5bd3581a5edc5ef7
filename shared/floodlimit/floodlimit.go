// Package floodlimit is the cheap per-instance rate layer in front of the
// authoritative Firestore counters: it counts every request per keyed hash
// in memory and remembers the blocks the store reported, so a flood costs
// no Firestore transaction. Memory is bounded; README.md says what it
// forgets first.
package floodlimit

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

const (
	Layer   = "flood" // the name this layer records in ledger entries
	MaxKeys = 100_000 // the keys held at most: about 200 bytes a key, 20 MB in all
)

// entry is one key's counts and remembered block.
type entry struct {
	key          string
	windowStart  time.Time
	current      int
	previous     int
	blockedUntil time.Time // a remembered authoritative block; zero for none
	held         bool      // which list elem is in
	elem         *list.Element
}

// Limiter is safe for concurrent use.
type Limiter struct {
	limit    int
	window   time.Duration
	capacity int

	mu        sync.Mutex
	entries   map[string]*entry
	open      *list.List // front: most recently used
	held      *list.List
	lastPrune time.Time
}

// New returns a limiter of limit requests per rolling window per key, holding at most MaxKeys
// keys. It refuses a limit below 1 and a non-positive window.
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
	return &Limiter{limit: limit, window: window, capacity: MaxKeys,
		entries: map[string]*entry{}, open: list.New(), held: list.New()}, nil
}

// Window is the rolling window the limiter counts in.
func (l *Limiter) Window() time.Duration { return l.window }

// Admit counts one request for keyHash at now and returns the sliding-window decision.
func (l *Limiter) Admit(keyHash string, now time.Time) (intake.RateDecision, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prune(now)
	e := l.get(keyHash, now)
	l.roll(e, now)
	overlap := 1 - float64(now.Sub(e.windowStart))/float64(l.window)
	estimate := int(float64(e.previous)*overlap) + e.current
	d := intake.RateDecision{Layer: Layer, KeyHash: keyHash, WindowSeconds: int64(l.window / time.Second), Limit: l.limit}
	if estimate >= l.limit {
		d.Count, d.Decision = estimate, intake.RateBlock
		l.touch(e, true)
		return d, intake.CoarseRetryAfter(e.windowStart.Add(l.window).Sub(now))
	}
	e.current++
	d.Count, d.Decision = estimate+1, intake.RateAllow
	l.touch(e, estimate+1 >= l.limit || now.Before(e.blockedUntil))
	return d, 0
}

func (l *Limiter) roll(e *entry, now time.Time) {
	start := now.Truncate(l.window)
	switch {
	case start.Equal(e.windowStart):
	case start.Sub(e.windowStart) == l.window:
		e.previous, e.current, e.windowStart = e.current, 0, start
	default:
		e.previous, e.current, e.windowStart = 0, 0, start
	}
}

// Block remembers that the authoritative layer blocked keyHash until until.
func (l *Limiter) Block(keyHash string, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.get(keyHash, until)
	if until.After(e.blockedUntil) {
		e.blockedUntil = until
	}
	l.touch(e, true)
}

// Blocked reports whether keyHash is under a remembered authoritative block, and for how long.
func (l *Limiter) Blocked(keyHash string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.entries[keyHash]
	if !ok {
		return 0, false
	}
	l.touch(e, e.held)
	if !now.Before(e.blockedUntil) {
		return 0, false
	}
	return intake.CoarseRetryAfter(e.blockedUntil.Sub(now)), true
}

// get returns keyHash's entry, making room for it when it is new.
func (l *Limiter) get(keyHash string, now time.Time) *entry {
	if e, ok := l.entries[keyHash]; ok {
		return e
	}
	for len(l.entries) >= l.capacity {
		victim := l.open.Back()
		if victim == nil {
			victim = l.held.Back()
		}
		l.remove(victim.Value.(*entry))
	}
	e := &entry{key: keyHash, windowStart: now.Truncate(l.window)}
	e.elem = l.open.PushFront(e)
	l.entries[keyHash] = e
	return e
}

// touch moves e to the front of the list it belongs in.
func (l *Limiter) touch(e *entry, held bool) {
	if e.held == held {
		l.list(held).MoveToFront(e.elem)
		return
	}
	l.list(e.held).Remove(e.elem)
	e.elem, e.held = l.list(held).PushFront(e), held
}

func (l *Limiter) list(held bool) *list.List {
	if held {
		return l.held
	}
	return l.open
}

func (l *Limiter) remove(e *entry) {
	l.list(e.held).Remove(e.elem)
	delete(l.entries, e.key)
}

// prune drops, once per window, the keys idle for two windows and under no block.
func (l *Limiter) prune(now time.Time) {
	if now.Sub(l.lastPrune) < l.window {
		return
	}
	l.lastPrune = now
	for _, e := range l.entries {
		if now.Sub(e.windowStart) >= 2*l.window && !now.Before(e.blockedUntil) {
			l.remove(e)
		}
	}
}
