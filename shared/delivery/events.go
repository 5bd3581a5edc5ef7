package delivery

import (
	"context"
	"log/slog"

	"github.com/ownersite/introductions/shared/intake"
)

// ApplyEvent applies one verified provider event to the envelope it names,
// once, and only to an envelope of the event's destination (an email
// provider's event moves no inbox or webhook envelope): delivered is a receipt (DELIVERED); a temporary failure is
// RETRY_PENDING with the next attempt scheduled as after a failed send (or
// FAILED once the attempts are spent); a permanent failure is FAILED with
// the provider's reason. A bounce after a receipt moves a DELIVERED
// envelope back. The event is recorded among the envelope's attempts,
// content-free. Errors: EVENT_REPLAYED for a token seen before (nothing
// changes), NOT_FOUND for an envelope that is not here or not of the
// event's destination (nothing changes but the token's record),
// UNAVAILABLE.
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
