package intake

import (
	"slices"
	"time"
)

// RateRule is one keyed limit: at most Limit events per rolling Window.
type RateRule struct {
	Layer  string
	Limit  int
	Window time.Duration
}

// RateKey is a rule applied to one keyed hash (never a raw address).
type RateKey struct {
	RateRule
	KeyHash string
}

// Admit applies the rule to hits at now: the hits still inside the window, the decision, and
// when blocked the wait until the oldest hit leaves.
func (k RateKey) Admit(hits []time.Time, now time.Time) (kept []time.Time, d RateDecision, retryAfter time.Duration) {
	since := now.Add(-k.Window)
	for _, h := range hits {
		if h.After(since) {
			kept = append(kept, h)
		}
	}
	d = RateDecision{Layer: k.Layer, KeyHash: k.KeyHash, WindowSeconds: int64(k.Window / time.Second), Limit: k.Limit, Count: len(kept)}
	if len(kept) >= k.Limit {
		d.Decision = RateBlock
		oldest := slices.MinFunc(kept, time.Time.Compare)
		return kept, d, CoarseRetryAfter(oldest.Add(k.Window).Sub(now))
	}
	d.Decision = RateAllow
	kept = append(kept, now)
	d.Count = len(kept)
	return kept, d, 0
}

// CoarseRetryAfter rounds a wait up to whole minutes, at least one.
func CoarseRetryAfter(d time.Duration) time.Duration {
	if d <= time.Minute {
		return time.Minute
	}
	return d.Truncate(time.Minute) + time.Minute
}

// RateLimited returns the RATE_LIMITED error for a block lasting retryAfter.
func RateLimited(retryAfter time.Duration) *Error {
	return &Error{Code: CodeRateLimited, Detail: "Too many introductions from here; please try again later.", RetryAfter: retryAfter}
}

// Escalation is the proof of work a source owes by the drafts it kept in the window: Base for
// the first Free, then doubling, at most Max. Zero owes nothing.
type Escalation struct {
	Layer string
	Free  int
	Base  int64
	Max   int64
}

// Owed returns the least max number owed after kept drafts.
func (e Escalation) Owed(kept int) int64 {
	if e.Base <= 0 {
		return 0
	}
	owed := e.Base
	for i := e.Free; i <= kept && owed < e.Max; i++ {
		owed *= 2
	}
	return max(e.Base, min(owed, e.Max))
}

// PowTooEasy returns the POW_TOO_EASY refusal.
func PowTooEasy(owed int64) *Error {
	return &Error{Code: CodePowTooEasy, RequiredMaxNumber: owed,
		Detail: "More drafts than usual came from here: please let the page solve a harder challenge."}
}
