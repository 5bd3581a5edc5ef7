// Package checks is the intake's chain of responsibility: rate limit,
// honeypot, content rules, proof of work (README, "How it works", says why
// in that order) — each check a small value with one method, tested alone,
// the order one list at wiring time. A check
// either lets the attempt on (nil), or stops it with an *intake.Error, or
// with ErrHoneypot. Checks record what they saw on the Attempt, so the ledger
// entry can say which signals led to the decision. No check touches the
// database: the proof of work is verified before anything is stored.
package checks

import (
	"context"
	"errors"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// ErrHoneypot stops an attempt that filled the honeypot. The caller answers
// it with a success-shaped decoy and keeps nothing but a content-free ledger
// entry.
var ErrHoneypot = errors.New("honeypot filled")

// Attempt is one draft on its way through the chain.
type Attempt struct {
	Now  time.Time
	Form *formregistry.Version
	// Submission starts as decoded and leaves the content rules as it
	// would be kept.
	Submission intake.Submission
	// ClientKey and EmailKey are keyed hashes, never raw values.
	ClientKey string
	EmailKey  string

	// Filled in by the checks.
	RateDecisions []intake.RateDecision
	Abuse         intake.AbuseState
	Signals       []string
	Challenge     intake.SpentChallenge
}

// Check is one link of the chain.
type Check interface {
	// Check lets the attempt on (nil) or stops it: *intake.Error or
	// ErrHoneypot. It records its decision and signals on a.
	Check(ctx context.Context, a *Attempt) error
}

// Chain runs checks in order and stops at the first refusal.
type Chain []Check

// Run passes a through every check. On success a.Abuse is CLEAN.
func (c Chain) Run(ctx context.Context, a *Attempt) error {
	for _, check := range c {
		if err := check.Check(ctx, a); err != nil {
			return err
		}
	}
	a.Abuse = intake.AbuseClean
	return nil
}
