// Package checks is the intake's check chain: rate limit, honeypot, content
// rules, proof of work, each a value with one method, the order one list at
// wiring time. A check lets an attempt on (nil) or stops it with an
// *intake.Error; the honeypot only marks it, and no check touches the
// database. README.md says why this order.
package checks

import (
	"context"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Attempt is one draft on its way through the chain.
type Attempt struct {
	Now  time.Time
	Form *formregistry.Version
	// Submission starts as decoded and leaves the content rules as it would be kept.
	Submission intake.Submission
	// ClientKey and EmailKey are keyed hashes, never raw values.
	ClientKey string
	EmailKey  string

	// Filled in by the checks.
	RateDecisions []intake.RateDecision
	Abuse         intake.AbuseState
	Signals       []string
	Challenge     intake.SpentChallenge
	// Honeypot is set when the honeypot was filled: the attempt is answered with a decoy.
	Honeypot bool
}

// Check is one link of the chain.
type Check interface {
	// Check lets the attempt on (nil) or stops it with an *intake.Error, recording on a.
	Check(ctx context.Context, a *Attempt) error
}

// Chain runs checks in order and stops at the first refusal.
type Chain []Check

// Run passes a through every check; on success a.Abuse is CLEAN or HONEYPOT.
func (c Chain) Run(ctx context.Context, a *Attempt) error {
	for _, check := range c {
		if err := check.Check(ctx, a); err != nil {
			return err
		}
	}
	a.Abuse = intake.AbuseClean
	if a.Honeypot {
		a.Abuse = intake.AbuseHoneypot
	}
	return nil
}
