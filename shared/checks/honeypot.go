package checks

import (
	"context"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
)

// Honeypot marks an attempt whose form-version honeypot field is not empty:
// people never see it, so only a robot fills it. It never stops the
// attempt (see the package doc): a robot must not learn from the answer
// that it was caught.
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
