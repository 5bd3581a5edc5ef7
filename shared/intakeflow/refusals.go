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

// refusal is a refused draft and how it is recorded: with its own entry,
// tallied for its source, or (nothing decided: in flight, unavailable) not at all.
type refusal struct {
	err     error
	entry   *intake.LedgerEntry
	source  string
	now     time.Time
	signals []string
}

// settle records r and returns its error, or UNAVAILABLE when the ledger
// cannot be written.
func (s *Service) settle(ctx context.Context, r *refusal) error {
	switch {
	case r.entry != nil:
		return s.refuse(ctx, *r.entry, r.err)
	case r.source != "":
		return s.tally(tallyKey{source: r.source}, r.now, r.err, r.signals, moveDraft)
	}
	return r.err
}

// refuse records a refused attempt and returns the refusal, or UNAVAILABLE
// when the ledger cannot be written: no decision goes unrecorded.
func (s *Service) refuse(ctx context.Context, entry intake.LedgerEntry, refusal error) error {
	code := intake.CodeOf(refusal)
	if entry.Validation.Result == "" {
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{}}
	}
	if entry.Abuse.State == "" {
		entry.Abuse = intake.AbuseRecord{State: intake.AbuseClean, Signals: []string{}}
	}
	if err := s.record(ctx, entry, intake.DecisionRejected, "refused: "+string(code)); err != nil {
		return err
	}
	return refusal
}

func (s *Service) record(ctx context.Context, entry intake.LedgerEntry, d intake.Decision, reason string) error {
	id, err := s.newID()
	if err != nil {
		return intake.Internal(err)
	}
	entry.ID = id
	entry.Decision, entry.Reason = d, reason
	entry.Retention = intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: entry.Provenance.Time.Add(s.Retention.RejectedAttempt)}
	entry.ExpireAt = entry.Retention.DeleteAfter
	if err := s.Store.RecordAttempt(ctx, entry); err != nil {
		return err
	}
	s.Logger.InfoContext(ctx, "draft refused", slog.String("ledgerId", id), slog.String("decision", string(d)),
		slog.String("reason", reason), slog.String("abuse", string(entry.Abuse.State)))
	return nil
}

// maxTalliedSources bounds the sources counted one by one per window; the
// rest are summed into one entry.
const maxTalliedSources = 200

// Moves a refusal can stop.
const (
	moveDraft        = "draft"
	moveConfirmation = "confirmation"
	moveWithdrawal   = "withdrawal"
	moveRevision     = "revision"
	moveAttachment   = "attachment"
)

// refusalTally counts refusals before the checks, and revisions the content
// rules refuse, in memory by flood window and key; each is written once,
// with its count, after its window ends (README.md): a flood costs memory, not writes.
type refusalTally struct {
	mu      sync.Mutex
	windows map[time.Time]*windowTally
}

// tallyKey is what one entry counts: a source's refusals before the
// checks, or (content) its refused revisions of one draft.
type tallyKey struct {
	source     string
	submission string
	content    bool
}

// window returns the tally of the window that starts at start, made on first use; mu is held.
func (r *refusalTally) window(start time.Time) *windowTally {
	if r.windows == nil {
		r.windows = map[time.Time]*windowTally{}
	}
	if r.windows[start] == nil {
		r.windows[start] = &windowTally{sources: map[tallyKey]*sourceTally{}, overflow: map[bool]*sourceTally{}}
	}
	return r.windows[start]
}

type windowTally struct {
	sources map[tallyKey]*sourceTally
	// overflow sums the keys past maxTalliedSources, by tallyKey.content.
	overflow map[bool]*sourceTally
}

type sourceTally struct {
	// id is the tally's ledger entry, chosen at its first write so that a
	// retry writes the same entry.
	id      string
	sources int
	count   int
	codes   []intake.Code
	signals []string
	moves   []string
}

func (t *sourceTally) add(codes []intake.Code, signals []string, move string) {
	t.count++
	for _, code := range codes {
		if !slices.Contains(t.codes, code) && len(t.codes) < intake.MaxStoredList {
			t.codes = append(t.codes, code)
		}
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

// tally counts one refusal of move at now with the signals that led there
// (a content refusal: its fields' codes), starts writing the tallies of
// windows that have ended, and returns refusal.
func (s *Service) tally(key tallyKey, now time.Time, refusal error, signals []string, move string) error {
	codes := []intake.Code{intake.CodeOf(refusal)}
	if key.content {
		codes = fieldCodes(intake.AsError(refusal))
		for _, c := range codes {
			signals = append(signals, string(c))
		}
	}
	start := now.Truncate(s.Flood.Window())
	s.refusals.mu.Lock()
	w := s.refusals.window(start)
	t := w.sources[key]
	if t == nil && len(w.sources) >= maxTalliedSources {
		if w.overflow[key.content] == nil {
			w.overflow[key.content] = &sourceTally{}
		}
		t = w.overflow[key.content]
		t.sources++ // counts refusals past the bound, not distinct sources: an upper bound
	} else if t == nil {
		t = &sourceTally{sources: 1}
		w.sources[key] = t
	}
	t.add(codes, signals, move)
	s.refusals.mu.Unlock()
	// Windows that have ended are written in the background, one flush at a time.
	if !s.hasEnded(now) || !s.flushing.TryLock() {
		return refusal
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
	return refusal
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

// FlushRefusals writes the tallies of every window ended by now (with all,
// at shutdown, the current one too), after any background write. Errors:
// UNAVAILABLE; what is not written is kept for the next flush.
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
				s.putBack(start, key, t, false)
			}
		}
		for content, t := range w.overflow {
			if err := s.writeRefusal(ctx, start, tallyKey{content: content}, t); err != nil {
				errs = append(errs, err)
				s.putBack(start, tallyKey{content: content}, t, true)
			}
		}
	}
	return errors.Join(errs...)
}

// putBack returns an unwritten tally to its window.
func (s *Service) putBack(start time.Time, key tallyKey, t *sourceTally, overflow bool) {
	s.refusals.mu.Lock()
	defer s.refusals.mu.Unlock()
	w := s.refusals.window(start)
	if overflow {
		w.overflow[key.content] = t
		return
	}
	w.sources[key] = t
}

// writeRefusal writes tally t as one content-free ledger entry.
func (s *Service) writeRefusal(ctx context.Context, start time.Time, key tallyKey, t *sourceTally) error {
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
	entry.Refusals = &intake.RefusalCount{KeyHash: key.source, Sources: t.sources, WindowStart: start, WindowSeconds: int64(window / time.Second),
		Count: t.count, Codes: slices.Clone(t.codes), Moves: slices.Clone(t.moves)}
	entry.Decision = intake.DecisionRejected
	entry.Reason = fmt.Sprintf("refused %d %s before the checks in this window", t.count, plural(t.count, "request"))
	if key.content {
		entry.SubmissionID = key.submission
		entry.Validation = intake.ValidationRecord{Result: intake.ValidationFail, Codes: slices.Clone(t.codes)}
		entry.Abuse.State = intake.AbuseContentRejected
		entry.Reason = fmt.Sprintf("refused %d %s by the content rules in this window; the draft is unchanged", t.count, plural(t.count, "revision"))
	}
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
