package intakeflow

import (
	"context"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// Confirm sends a draft on for the holder of its token. A repeat answers the
// same success. Errors: NOT_FOUND (unknown id, expired draft, wrong token —
// indistinguishable), UNAVAILABLE.
func (s *Service) Confirm(ctx context.Context, id, token string) (*Confirmation, error) {
	now := s.Clock.Now()
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return nil, intake.ErrNotFound
	}
	if key, ok := s.decoyKey(id); ok {
		if !s.decoyTokenMatches(key, id, token) {
			return nil, intake.ErrNotFound
		}
		return &Confirmation{ID: id, ConfirmedAt: now.Truncate(time.Second), KeptUntil: now.Add(s.Retention.Introduction).Truncate(time.Second)}, nil
	}
	in, err := s.Store.Confirm(ctx, id, intake.HashToken(token), now, s.Retention.Introduction)
	if err != nil {
		return nil, err
	}
	s.Logger.InfoContext(ctx, "introduction confirmed", slog.String("submissionId", id), slog.String("state", string(in.State)))
	return &Confirmation{ID: in.ID, ConfirmedAt: in.ConfirmedAt, KeptUntil: in.ExpireAt}, nil
}

// Withdraw erases a confirmed introduction and its transcript for the
// holder of its token, leaving a content-free tombstone in the ledger.
// Errors: NOT_FOUND, STATE_CONFLICT (a draft is never sent and simply
// expires), UNAVAILABLE.
func (s *Service) Withdraw(ctx context.Context, id, token string) error {
	now := s.Clock.Now()
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return intake.ErrNotFound
	}
	if key, ok := s.decoyKey(id); ok {
		if !s.decoyTokenMatches(key, id, token) {
			return intake.ErrNotFound
		}
		return nil
	}
	if err := s.Store.Withdraw(ctx, id, intake.HashToken(token), now); err != nil {
		return err
	}
	s.Logger.InfoContext(ctx, "introduction withdrawn", slog.String("submissionId", id))
	return nil
}
