package checks

import (
	"context"
	"errors"

	"github.com/ownersite/introductions/shared/intake"
)

// Verifier checks an ALTCHA payload without a store. Errors: POW_REQUIRED, POW_INVALID,
// POW_EXPIRED.
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
