// Package checks is the intake's chain of responsibility: rate limit,
// honeypot, content rules, proof of work (README, "How it works", says why
// in that order) — each check a small value with one method, tested alone,
// the order one list at wiring time. A check either lets the attempt on
// (nil) or stops it with an *intake.Error. The honeypot does not stop an
// attempt: it marks it (Attempt.Honeypot), and the rest of the chain runs
// on, so a robot is refused by the content rules and the proof of work
// exactly as a person would be, and only an attempt that passes everything
// is answered with a decoy instead of being kept. Checks record what they
// saw on the Attempt, so the ledger entry can say which signals led to the
// decision. No check touches the
// database: the proof of work is verified before anything is stored.
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
