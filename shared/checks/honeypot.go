package checks

import (
	"context"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
)

// Honeypot stops an attempt whose form-version honeypot field is not empty:
// people never see it, so only a robot fills it.
type Honeypot struct{}

// Check implements Check.
func (Honeypot) Check(_ context.Context, a *Attempt) error {
	if strings.TrimSpace(a.Submission.Honeypot) == "" {
		return nil
	}
	a.Abuse = intake.AbuseHoneypot
	a.Signals = append(a.Signals, "honeypot-filled")
	return ErrHoneypot
}
