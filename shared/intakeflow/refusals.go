package intakeflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// The threat: a flood of requests that are refused before the check chain
// (past the flood layer, under a remembered block, or malformed) made one
// ledger document each — 200 requests from one blocked address, 200 writes;
// 5,000 addresses, 5,000 writes — so refusing cost more than the attack.
// Those refusals are counted in memory instead, per keyed source and flood
// window, and each (source, window) is written once, with its count, after
// the window ends; past maxTalliedSources sources in one window the rest
// are summed into one entry. A flood costs memory, not writes. What it
// gives up: the counts of the window an instance is in when it is stopped
// without Close are lost.

// maxTalliedSources bounds the sources counted one by one per window and
// instance: at most this many ledger writes (plus one that sums the rest)
// per window, however many sources a flood uses.
const maxTalliedSources = 200

// Moves a refusal can stop.
const (
	moveDraft        = "draft"
	moveConfirmation = "confirmation"
	moveWithdrawal   = "withdrawal"
)

// refusalTally counts refusals by window start and source.
type refusalTally struct {
	mu      sync.Mutex
	windows map[time.Time]*windowTally
}

type windowTally struct {
	sources  map[string]*sourceTally
	overflow *sourceTally // sources past maxTalliedSources, summed
}

type sourceTally struct {
	// id is the ledger entry the tally is written as, chosen at its first
	// write: a write retried after a lost answer writes the same entry
	// again, never a second one.
	id      string
	sources int
	count   int
	codes   []intake.Code
	signals []string
	moves   []string
}

func (t *sourceTally) add(code intake.Code, signals []string, move string) {
	t.count++
	if !slices.Contains(t.codes, code) {
		t.codes = append(t.codes, code)
	}
	for _, s := range signals {
		if !slices.Contains(t.signals, s) && len(t.signals) < 16 {
			t.signals = append(t.signals, s)
		}
	}
	if !slices.Contains(t.moves, move) {
		t.moves = append(t.moves, move)
	}
}

// tally counts one refusal of move from keyHash at now, with the refusal's
// code and the signals that led there, and starts writing the tallies of
// windows that have ended. It returns refusal.
func (s *Service) tally(keyHash string, now time.Time, refusal error, signals []string, move string) error {
	start := now.Truncate(s.Flood.Window())
	s.refusals.mu.Lock()
	if s.refusals.windows == nil {
		s.refusals.windows = map[time.Time]*windowTally{}
	}
	w := s.refusals.windows[start]
	if w == nil {
		w = &windowTally{sources: map[string]*sourceTally{}}
		s.refusals.windows[start] = w
	}
	t := w.sources[keyHash]
	if t == nil && len(w.sources) >= maxTalliedSources {
		if w.overflow == nil {
			w.overflow = &sourceTally{}
		}
		t = w.overflow
		t.sources++ // counts refusals past the bound, not distinct sources: an upper bound
	} else if t == nil {
		t = &sourceTally{sources: 1}
		w.sources[keyHash] = t
	}
	t.add(intake.CodeOf(refusal), signals, move)
	s.refusals.mu.Unlock()
	s.flushEnded(now)
	return refusal
}

// flushEnded writes, in the background, the tallies of windows that ended
// before now (one flush at a time; FlushRefusals waits for it).
func (s *Service) flushEnded(now time.Time) {
	if !s.hasEnded(now) || !s.flushing.TryLock() {
		return
	}
	s.flushes.Add(1)
	go func() {
		defer s.flushes.Done()
		defer s.flushing.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.writeRefusals(ctx, now, false); err != nil {
			s.Logger.WarnContext(ctx, "refusal counts not written; kept for the next try", slog.String("code", string(intake.CodeOf(err))))
		}
	}()
}

func (s *Service) hasEnded(now time.Time) bool {
	s.refusals.mu.Lock()
	defer s.refusals.mu.Unlock()
	for start := range s.refusals.windows {
		if !start.Add(s.Flood.Window()).After(now) {
			return true
		}
	}
	return false
}

// FlushRefusals writes one ledger entry per source for every refusal
// window that has ended by the clock's now, after any background write in
// progress. With all set (at shutdown) it writes the current window too.
// Errors: UNAVAILABLE; what could not be written is kept for the next
// flush.
func (s *Service) FlushRefusals(ctx context.Context, all bool) error {
	s.flushes.Wait()
	s.flushing.Lock()
	defer s.flushing.Unlock()
	return s.writeRefusals(ctx, s.Clock.Now(), all)
}

func (s *Service) writeRefusals(ctx context.Context, now time.Time, all bool) error {
	s.refusals.mu.Lock()
	due := map[time.Time]*windowTally{}
	for start, w := range s.refusals.windows {
		if all || !start.Add(s.Flood.Window()).After(now) {
			due[start] = w
			delete(s.refusals.windows, start)
		}
	}
	s.refusals.mu.Unlock()

	var errs []error
	for start, w := range due {
		for key, t := range w.sources {
			if err := s.writeRefusal(ctx, start, key, t); err != nil {
				errs = append(errs, err)
				s.putBack(start, key, t)
			}
		}
		if t := w.overflow; t != nil {
			if err := s.writeRefusal(ctx, start, "", t); err != nil {
				errs = append(errs, err)
				s.putBack(start, "", t)
			}
		}
	}
	return errors.Join(errs...)
}

// putBack returns a tally that could not be written to its window.
func (s *Service) putBack(start time.Time, key string, t *sourceTally) {
	s.refusals.mu.Lock()
	defer s.refusals.mu.Unlock()
	w := s.refusals.windows[start]
	if w == nil {
		w = &windowTally{sources: map[string]*sourceTally{}}
		s.refusals.windows[start] = w
	}
	if key == "" {
		w.overflow = t
		return
	}
	w.sources[key] = t
}

func (s *Service) writeRefusal(ctx context.Context, start time.Time, key string, t *sourceTally) error {
	if t.id == "" {
		id, err := s.newID()
		if err != nil {
			return intake.Internal(err)
		}
		t.id = id
	}
	window := s.Flood.Window()
	entry := s.newEntry("", start)
	entry.ID = t.id
	entry.Validation = intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{}}
	entry.Abuse = intake.AbuseRecord{State: intake.AbuseClean, Signals: slices.Clone(t.signals)}
	if slices.Contains(t.codes, intake.CodeRateLimited) {
		entry.Abuse.State = intake.AbuseRateLimited
	}
	if entry.Abuse.Signals == nil {
		entry.Abuse.Signals = []string{}
	}
	entry.Refusals = &intake.RefusalCount{KeyHash: key, Sources: t.sources, WindowStart: start, WindowSeconds: int64(window / time.Second),
		Count: t.count, Codes: slices.Clone(t.codes), Moves: slices.Clone(t.moves)}
	entry.Decision = intake.DecisionRejected
	entry.Reason = fmt.Sprintf("refused %d %s before the checks in this window", t.count, plural(t.count, "request"))
	entry.Retention = intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: start.Add(window).Add(s.Retention.RejectedAttempt)}
	entry.ExpireAt = entry.Retention.DeleteAfter
	entry.UpdatedAt = start.Add(window)
	if err := s.Store.RecordAttempt(ctx, entry); err != nil {
		return err
	}
	s.Logger.InfoContext(ctx, "refusals recorded", slog.String("ledgerId", t.id), slog.Int("count", t.count), slog.Int("sources", t.sources))
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
