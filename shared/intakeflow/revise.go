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
	// ReviseDraft reads c's draft (or decoy), checks RevisableBy, and writes
	// what revise returns (ReviseBy) with its transcript and ledger entry
	// atomically; a Revision.Refusal it only counts (RefuseRevisionBy) and
	// returns. Errors: NOT_FOUND, STATE_CONFLICT, RATE_LIMITED after
	// intake.MaxRevisions, the Refusal, revise's errors, UNAVAILABLE.
	ReviseDraft(ctx context.Context, c intake.Claim, now time.Time,
		revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error)
}

// RevisionRequest is one decoded revision of a kept draft.
type RevisionRequest struct {
	ID    string
	Token string
	// Client is the client address (see DraftRequest.Client).
	Client netip.Addr
	// Lang (empty: the draft's), Fields, Added, Conversation and Consents
	// replace the draft's; the form version, honeypot and proof are not read.
	Submission intake.Submission
	// RequestID is the request's trace id; nothing a revision writes records it.
	RequestID string
}

// Revise replaces a kept draft's content for the holder of its token,
// under its own form version's content rules, and returns it as kept. It
// counts against the flood layer and, refused ones included, toward
// intake.MaxRevisions; a revision the content rules refuse leaves the draft
// as it was and is tallied (validation FAIL). Errors: NOT_FOUND, the
// content codes, CONSENT_REQUIRED, STATE_CONFLICT, RATE_LIMITED,
// UNAVAILABLE.
func (s *Service) Revise(ctx context.Context, req RevisionRequest) (*Draft, error) {
	now := s.Clock.Now()
	clientKey, err := s.admit(req.ID, req.Token, req.Client, now, moveRevision)
	if err != nil {
		return nil, err
	}
	var refused *intake.Error
	var conversation string
	revise := func(current intake.Introduction) (intake.Revision, error) {
		refused = nil // the transaction may run this again
		// The draft keeps its version, even one retired since.
		version, ok := s.Forms.Find(current.FormID, current.FormVersion)
		if !ok {
			return intake.Revision{}, intake.Internal(errors.New("revise: the kept draft's form version is unknown"))
		}
		// The evidence follows the language shown last.
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
			return nil, s.tally(tallyKey{source: clientKey, submission: req.ID, content: true}, now, refused, nil, moveRevision)
		}
		return nil, err
	}
	s.Logger.InfoContext(ctx, "draft revised", slog.String("submissionId", in.ID), slog.Int("revisions", in.Revisions),
		slog.Bool("conversation", in.HasConversation))
	return &Draft{Introduction: *in, Conversation: conversation, Token: req.Token}, nil
}
