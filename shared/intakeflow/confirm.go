package intakeflow

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
)

// TokenRequest is a move by the holder of an introduction's token.
type TokenRequest struct {
	ID    string
	Token string
	// Client is the client address (see DraftRequest.Client).
	Client netip.Addr
	// RequestID names the request in the provenance of what the move writes.
	RequestID string
}

// admit counts a move against the flood layer (RATE_LIMITED, tallied like
// a refusal before the chain), then refuses a malformed id or token as
// NOT_FOUND; it returns the client's keyed hash.
func (s *Service) admit(id, token string, client netip.Addr, now time.Time, move string) (string, error) {
	keyHash := s.keyedHash("ip", clientPrefix(client))
	if d, wait := s.Flood.Admit(keyHash, now); d.Decision == intake.RateBlock {
		return keyHash, s.tally(tallyKey{source: keyHash}, now, intake.RateLimited(wait), []string{"flood-limit"}, move)
	}
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return keyHash, intake.ErrNotFound
	}
	return keyHash, nil
}

// Confirm sends a draft on for the holder of its token: the confirmation
// and its outbox are written together, then sent in the background. A
// repeat answers the same success and writes and sends nothing. Errors:
// NOT_FOUND (unknown id, expired draft, wrong token alike), RATE_LIMITED,
// UNAVAILABLE.
func (s *Service) Confirm(ctx context.Context, req TokenRequest) (*Confirmation, error) {
	if s.Handoff == nil {
		return nil, errNoHandoff
	}
	now := s.Clock.Now()
	if _, err := s.admit(req.ID, req.Token, req.Client, now, moveConfirmation); err != nil {
		return nil, err
	}
	id := req.ID
	c := s.claimOf(id, req.Token)
	var outbox []intake.Envelope // a decoy sends nothing
	if !c.Decoy() {
		outbox = s.Handoff.Outbox(id, intake.EventConfirmed, s.provenance(req.RequestID, now))
	}
	in, err := s.Store.Confirm(ctx, c, now, s.Retention.Introduction, outbox)
	if err != nil {
		return nil, err
	}
	// A repeat returns the first confirmation's time and wrote no outbox.
	if in.ConfirmedAt.Equal(now.UTC().Truncate(time.Microsecond)) {
		s.Handoff.Dispatch(envelopeIDs(outbox))
	}
	s.Logger.InfoContext(ctx, "introduction confirmed", slog.String("submissionId", id), slog.String("state", string(in.State)), slog.Bool("decoy", c.Decoy()))
	return &Confirmation{ID: in.ID, ConfirmedAt: in.ConfirmedAt, KeptUntil: in.ExpireAt}, nil
}

// Withdraw erases a confirmed introduction, its transcript and attachment
// for the holder of its token, leaving a content-free ledger tombstone; a
// destination that had it is sent introduction.withdrawn. Errors:
// NOT_FOUND, STATE_CONFLICT (a draft), RATE_LIMITED, UNAVAILABLE.
func (s *Service) Withdraw(ctx context.Context, req TokenRequest) error {
	if s.Handoff == nil {
		return errNoHandoff
	}
	now := s.Clock.Now()
	if _, err := s.admit(req.ID, req.Token, req.Client, now, moveWithdrawal); err != nil {
		return err
	}
	id := req.ID
	c := s.claimOf(id, req.Token)
	var notices []intake.Envelope
	if !c.Decoy() {
		notices = s.Handoff.Outbox(id, intake.EventWithdrawn, s.provenance(req.RequestID, now))
	}
	if err := s.Store.Withdraw(ctx, c, now, notices); err != nil {
		return err
	}
	// Only the notices whose destination had the content were written.
	s.Handoff.Dispatch(envelopeIDs(notices))
	if s.Files != nil { // else the sweep deletes the bytes
		attachment.DeleteIntroduction(ctx, s.Files, s.Logger, id)
	}
	s.Logger.InfoContext(ctx, "introduction withdrawn", slog.String("submissionId", id), slog.Bool("decoy", c.Decoy()))
	return nil
}

// envelopeIDs lists the PENDING envelopes.
func envelopeIDs(es []intake.Envelope) []string {
	var ids []string
	for _, e := range es {
		if e.Status == intake.DeliveryPending {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

var errNoHandoff = intake.Internal(errors.New("intakeflow: this service has no handoff: it cannot confirm or withdraw"))

// provenance says which code wrote a record now, for which request.
func (s *Service) provenance(requestID string, now time.Time) intake.Provenance {
	return intake.Provenance{Function: s.Function, Revision: s.Revision, RequestID: requestID, Time: now}
}
