package intakeflow

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
)

// Reviser replaces a kept draft's content (firestorestore.Store is one).
type Reviser interface {
	// ReviseDraft reads c's draft (or decoy), checks RevisableBy, asks revise for the
	// new content, applies ReviseBy and writes the draft, its transcript
	// and its ledger entry atomically; a revision revise refuses
	// (Revision.Refusal) it counts with RefuseRevisionBy, writing only the
	// count, and returns the Refusal. Errors: NOT_FOUND (unknown id,
	// expired draft, wrong token alike), STATE_CONFLICT, RATE_LIMITED after
	// intake.MaxRevisions, the Refusal, what revise returns, UNAVAILABLE.
	ReviseDraft(ctx context.Context, c intake.Claim, now time.Time,
		revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error)
}

// RevisionRequest is one decoded revision of a kept draft.
type RevisionRequest struct {
	ID    string
	Token string
	// Client is the client address (see DraftRequest.Client).
	Client netip.Addr
	// Lang, Fields, Added, Conversation and Consents replace the draft's
	// (Added may name only fields the draft's form version adds; an empty
	// Lang keeps the draft's language); FormID,
	// FormVersion, Honeypot and Altcha are not read (the draft keeps its
	// form version, and a revision needs no new proof of work).
	Submission intake.Submission
	// RequestID is the request's trace id, as on every request; nothing a
	// revision writes records it (a refused revision is tallied, not an
	// entry of its own).
	RequestID string
}

// Revise replaces a kept draft's content for the holder of its token, after
// the content rules of the draft's own form version, and returns the draft
// as kept with the same id, token and expiry. It spends no proof of work
// and counts against no authoritative rate limit, but it counts against
// the flood layer as a confirmation does; a draft takes at most
// intake.MaxRevisions revisions, refused ones included. A revision refused
// by the content rules leaves the draft as it was, counts toward that cap,
// and is tallied in memory like a refusal before the checks: one
// content-free ledger entry per source, draft and flood window, validation
// FAIL. Errors: NOT_FOUND (unknown id, expired draft, wrong token —
// answered exactly as a confirmation answers them), the content codes and
// CONSENT_REQUIRED, STATE_CONFLICT (already confirmed), RATE_LIMITED (the
// flood layer, or the cap), UNAVAILABLE.
func (s *Service) Revise(ctx context.Context, req RevisionRequest) (*Draft, error) {
	now := s.Clock.Now()
	clientKey := s.keyedHash("ip", clientPrefix(req.Client))
	if err := s.admit(clientKey, now, moveRevision); err != nil {
		return nil, err
	}
	if !idPattern.MatchString(req.ID) || !tokenPattern.MatchString(req.Token) {
		return nil, intake.ErrNotFound
	}
	var refused *intake.Error
	var conversation string
	revise := func(current intake.Introduction) (intake.Revision, error) {
		refused = nil // the transaction may run this again
		// The draft keeps the version it was made under, even one retired
		// since (it can still be confirmed, so it can still be edited).
		version, ok := s.Forms.Find(current.FormID, current.FormVersion)
		if !ok {
			return intake.Revision{}, intake.Internal(errors.New("revise: the kept draft's form version is unknown"))
		}
		// A revision may be written in another language than the draft
		// (the visitor switched): the evidence follows what was shown last.
		lang := req.Submission.Lang
		if lang == "" {
			lang = current.Lang
		}
		version, err := version.Shown(lang)
		if err != nil {
			return intake.Revision{}, err
		}
		sub := req.Submission
		sub.FormID, sub.FormVersion = current.FormID, current.FormVersion
		for name := range sub.Added {
			if f, ok := version.Field(name); !ok || !f.Added() {
				return intake.Revision{}, intake.Errorf(intake.CodeUnreadableBody, "The body has a member this form does not know.")
			}
		}
		kept, errs := contentrules.Check(version, sub)
		if len(errs) > 0 {
			refused = intake.Invalid(errs...)
			return intake.Revision{Refusal: refused}, nil
		}
		consents, purposes := contentrules.Evidence(version, kept, now, WithdrawalPath(current.ID))
		if version.Attachment != nil {
			// The attachment's purpose is granted by the file held, not by a consent.
			purposes = intake.GrantAttachment(purposes, version.Attachment.Purpose, current.Attachment != nil)
		}
		if consents == nil {
			consents = []intake.ConsentEvidence{}
		}
		revised := current
		revised.Fields, revised.HasConversation = kept.Fields, kept.Conversation != ""
		revised.Added = kept.Added
		conversation = kept.Conversation
		return intake.Revision{Lang: version.Lang, Fields: kept.Fields, Conversation: kept.Conversation, Consents: consents,
			Purposes: purposes, Stored: storedFields(revised), SubjectKey: contentrules.SubjectKey(kept.Fields.Email),
			Added: kept.Added}, nil
	}
	// A decoy is revised as a draft is, keeping none of the content.
	in, err := s.Reviser.ReviseDraft(ctx, s.claimOf(req.ID, req.Token), now, revise)
	if err != nil {
		if refused != nil && intake.AsError(err) == refused {
			return nil, s.tallyRevision(clientKey, req.ID, now, refused)
		}
		return nil, err
	}
	s.Logger.InfoContext(ctx, "draft revised", slog.String("submissionId", in.ID), slog.Int("revisions", in.Revisions),
		slog.Bool("conversation", in.HasConversation))
	return &Draft{Introduction: *in, Conversation: conversation, Token: req.Token}, nil
}
