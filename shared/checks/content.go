package checks

import (
	"context"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
)

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
