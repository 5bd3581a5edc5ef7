package checks

import (
	"context"
	"errors"
	"time"

	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/intake"
)

// RateLimit is the chain's first check: the flood layer per client address, then the blocks
// the authoritative counters last reported.
type RateLimit struct {
	Flood *floodlimit.Limiter
}

// Check implements Check.
func (r RateLimit) Check(_ context.Context, a *Attempt) error {
	if r.Flood == nil {
		return intake.Internal(errors.New("checks.RateLimit has no Flood"))
	}
	d, wait := r.Flood.Admit(a.ClientKey, a.Now)
	a.RateDecisions = append(a.RateDecisions, d)
	if d.Decision == intake.RateBlock {
		return r.refuse(a, "flood-limit", wait)
	}
	var longest time.Duration
	for _, key := range []string{a.ClientKey, a.EmailKey} {
		if key == "" {
			continue
		}
		if wait, blocked := r.Flood.Blocked(key, a.Now); blocked && wait > longest {
			longest = wait
		}
	}
	if longest > 0 {
		return r.refuse(a, "authoritative-limit-remembered", longest)
	}
	return nil
}

func (r RateLimit) refuse(a *Attempt, signal string, wait time.Duration) error {
	a.Abuse = intake.AbuseRateLimited
	a.Signals = append(a.Signals, signal)
	return intake.RateLimited(wait)
}
