package intakeflow

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TokenRequest is a confirmation or withdrawal: the introduction's id, the
// token its holder presents, and where the request came from.
type TokenRequest struct {
	ID    string
	Token string
	// Client is the client address (see DraftRequest.Client).
	Client netip.Addr
	// RequestID names the request in the provenance of the envelopes the
	// move writes.
	RequestID string
}

// admitMove counts a confirmation or withdrawal against the flood layer,
// as drafts are: a flood of guessed ids costs no read past the limit. A
// refusal is RATE_LIMITED, tallied like a draft refused before the chain.
func (s *Service) admitMove(req TokenRequest, now time.Time, move string) error {
	return s.admit(s.keyedHash("ip", clientPrefix(req.Client)), now, move)
}

// admit counts a move of the client keyHash names against the flood
// layer (see admitMove); revisions are admitted so too.
func (s *Service) admit(keyHash string, now time.Time, move string) error {
	if d, wait := s.Flood.Admit(keyHash, now); d.Decision == intake.RateBlock {
		return s.tally(keyHash, now, intake.RateLimited(wait), []string{"flood-limit"}, move)
	}
	return nil
}

// Confirm sends a draft on for the holder of its token: the confirmation
// and its outbox (an envelope per destination) are written together, then
// the envelopes are sent in the background; the answer never waits for a
// provider. A repeat answers the same success, writes nothing and sends
// nothing. Errors: NOT_FOUND (unknown id, expired draft, wrong token —
// indistinguishable), RATE_LIMITED (the flood layer), UNAVAILABLE.
func (s *Service) Confirm(ctx context.Context, req TokenRequest) (*Confirmation, error) {
	if s.Handoff == nil {
		return nil, errNoHandoff
	}
	now := s.Clock.Now()
	if err := s.admitMove(req, now, moveConfirmation); err != nil {
		return nil, err
	}
	id, token := req.ID, req.Token
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return nil, intake.ErrNotFound
	}
	c := s.claimOf(id, token)
	var outbox []intake.Envelope // a decoy sends nothing
	if !c.Decoy() {
		outbox = s.Handoff.Outbox(id, intake.EventConfirmed, s.provenance(req.RequestID, now))
	}
	in, err := s.Store.Confirm(ctx, c, now, s.Retention.Introduction, outbox)
	if err != nil {
		return nil, err
	}
	// The store stamps the confirmation with now (UTC, to the
	// microsecond); a repeat returns the first one's time and wrote no
	// outbox: what is still pending there is the sweep's.
	if in.ConfirmedAt.Equal(now.UTC().Truncate(time.Microsecond)) {
		s.Handoff.Dispatch(envelopeIDs(outbox))
	}
	s.Logger.InfoContext(ctx, "introduction confirmed", slog.String("submissionId", id), slog.String("state", string(in.State)), slog.Bool("decoy", c.Decoy()))
	return &Confirmation{ID: in.ID, ConfirmedAt: in.ConfirmedAt, KeptUntil: in.ExpireAt}, nil
}

// Withdraw erases a confirmed introduction, its transcript and its
// attachment's bytes for the holder of its token, leaving a content-free tombstone in the ledger that
// names the destinations the content had already reached; a webhook that
// had it is sent an introduction.withdrawn envelope, so its receiver can
// erase its copy.
// Errors: NOT_FOUND, STATE_CONFLICT (a draft is never sent and simply
// expires), RATE_LIMITED (the flood layer), UNAVAILABLE.
func (s *Service) Withdraw(ctx context.Context, req TokenRequest) error {
	if s.Handoff == nil {
		return errNoHandoff
	}
	now := s.Clock.Now()
	if err := s.admitMove(req, now, moveWithdrawal); err != nil {
		return err
	}
	id, token := req.ID, req.Token
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return intake.ErrNotFound
	}
	c := s.claimOf(id, token)
	var notices []intake.Envelope
	if !c.Decoy() {
		notices = s.Handoff.Outbox(id, intake.EventWithdrawn, s.provenance(req.RequestID, now))
	}
	if err := s.Store.Withdraw(ctx, c, now, notices); err != nil {
		return err
	}
	// The store wrote only the notices whose destination had the content;
	// the others are not found and cost nothing.
	s.Handoff.Dispatch(envelopeIDs(notices))
	s.DeleteAttachments(ctx, id)
	s.Logger.InfoContext(ctx, "introduction withdrawn", slog.String("submissionId", id), slog.Bool("decoy", c.Decoy()))
	return nil
}

// envelopeIDs lists the envelopes there is something to send for: the
// PENDING ones (the admin inbox is DELIVERED when written).
func envelopeIDs(es []intake.Envelope) []string {
	var ids []string
	for _, e := range es {
		if e.Status == intake.DeliveryPending {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// errNoHandoff refuses a move that sends on a service built without a
// handoff.
var errNoHandoff = intake.Internal(errors.New("intakeflow: this service has no handoff: it cannot confirm or withdraw"))

// provenance says which code wrote a record now, for which request.
func (s *Service) provenance(requestID string, now time.Time) intake.Provenance {
	return intake.Provenance{Function: s.Function, Revision: s.Revision, RequestID: requestID, Time: now}
}
