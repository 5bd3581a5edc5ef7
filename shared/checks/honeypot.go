package checks

import (
	"context"
	"strings"

	"github.com/ownersite/introductions/shared/intake"
)

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
