// Package checks is the intake's check chain (rate limit, honeypot, content
// rules, proof of work), each a value with one method that lets an attempt
// on or stops it with an *intake.Error, touching no database. README.md says
// why this order.
package checks

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/floodlimit"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// Attempt is one draft on its way through the chain.
type Attempt struct {
	Now                 time.Time
	Form                *formregistry.Version
	Submission          intake.Submission // as decoded; as it would be kept after the content rules
	ClientKey, EmailKey string            // keyed hashes, never raw values

	// Filled in by the checks; Honeypot: the attempt is answered with a decoy.
	RateDecisions []intake.RateDecision
	Abuse         intake.AbuseState
	Signals       []string
	Challenge     intake.SpentChallenge
	Honeypot      bool
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

// RateLimit is the first check: the flood layer per client address, then the blocks remembered.
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

// Honeypot marks an attempt whose honeypot field is filled; it never stops the attempt.
type Honeypot struct{}

// Check implements Check.
func (Honeypot) Check(_ context.Context, a *Attempt) error {
	if strings.TrimSpace(a.Submission.Honeypot) == "" {
		return nil
	}
	a.Honeypot = true
	a.Abuse = intake.AbuseHoneypot
	a.Signals = append(a.Signals, "honeypot-filled")
	return nil
}

// ContentRules applies the form version's field and consent rules and keeps what would be kept.
type ContentRules struct{}

// Check implements Check.
func (ContentRules) Check(_ context.Context, a *Attempt) error {
	kept, errs := contentrules.Check(a.Form, a.Submission)
	if len(errs) > 0 {
		a.Abuse = intake.AbuseContentRejected
		for _, e := range errs {
			a.Signals = append(a.Signals, string(e.Code))
		}
		return intake.Invalid(errs...)
	}
	kept.Altcha = a.Submission.Altcha
	a.Submission = kept
	return nil
}

// Verifier checks an ALTCHA payload without a store. Errors: POW_REQUIRED, POW_INVALID, POW_EXPIRED.
type Verifier interface {
	Verify(payload string) (intake.SpentChallenge, error)
}

// ProofOfWork is the chain's last check; the solution is spent only when the draft is kept.
type ProofOfWork struct {
	Verifier Verifier
}

// Check implements Check.
func (p ProofOfWork) Check(_ context.Context, a *Attempt) error {
	if p.Verifier == nil {
		return intake.Internal(errors.New("checks.ProofOfWork has no Verifier"))
	}
	spent, err := p.Verifier.Verify(a.Submission.Altcha)
	if err != nil {
		a.Abuse = intake.AbusePowFailed
		a.Signals = append(a.Signals, string(intake.CodeOf(err)))
		return err
	}
	a.Challenge = spent
	return nil
}
