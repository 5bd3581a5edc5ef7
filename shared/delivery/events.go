package delivery

import (
	"context"
	"log/slog"

	"github.com/ownersite/introductions/shared/intake"
)

// ApplyEvent applies one verified provider event, once, to its envelope of the event's
// destination: a receipt is DELIVERED, a temporary failure a retry (or FAILED), a permanent
// one FAILED; a bounce moves a DELIVERED envelope back. Errors: EVENT_REPLAYED (nothing
// changes), NOT_FOUND (only the token is recorded), UNAVAILABLE.
func (s *Service) ApplyEvent(ctx context.Context, ev intake.ProviderEvent) (intake.Envelope, error) {
	now := s.d.Clock.Now()
	e, err := s.d.Store.ApplyProviderEvent(ctx, ev, now, now.Add(s.d.EventRetention), func(e *intake.Envelope, entry *intake.LedgerEntry) error {
		var status intake.DeliveryStatus
		detail := intake.ProviderEventPrefix + ev.Provider + " " + string(ev.Kind)
		if ev.Reason != "" {
			detail += ": " + ev.Reason
		}
		switch ev.Kind {
		case intake.ProviderDelivered:
			status = intake.DeliveryDelivered
		case intake.ProviderFailedTemporary:
			status = intake.DeliveryRetryPending
		default:
			status = intake.DeliveryFailed
		}
		e.Attempts = append(e.Attempts, intake.DeliveryAttempt{At: now, Outcome: status, Detail: detail})
		s.moveTo(e, status, detail, 0, now)
		s.mirror(e, entry)
		return nil
	})
	s.d.Logger.LogAttrs(ctx, slog.LevelInfo, "delivery: provider event", slog.String("provider", ev.Provider),
		slog.String("envelopeId", ev.EnvelopeID), slog.String("kind", string(ev.Kind)),
		slog.String("status", string(e.Status)), slog.String("code", string(intake.CodeOf(err))))
	return e, err
}
