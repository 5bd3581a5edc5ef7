package delivery

import "context"

// Deliver attempts one envelope if due and not leased, as the sweep does. Errors: NOT_FOUND, UNAVAILABLE.
func (s *Service) Deliver(ctx context.Context, envelopeID string) (bool, error) {
	return s.attempt(ctx, envelopeID)
}
