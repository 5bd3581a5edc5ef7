package checks

import (
	"context"
	"errors"

	"github.com/ownersite/introductions/shared/intake"
)

// Verifier checks an ALTCHA payload's signature, hash and expiry without
// touching any store. Errors: POW_REQUIRED, POW_INVALID, POW_EXPIRED.
type Verifier interface {
	Verify(payload string) (intake.SpentChallenge, error)
}

// ProofOfWork is the chain's last check, so a visitor told to change the
// message keeps the work already done: the solution is only spent when the
// draft is kept (the store refuses a spent one with POW_SPENT).
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
