package intakeflow

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
)

// Reviser replaces a kept draft's content (firestorestore.Store is one).
type Reviser interface {
	// ReviseDraft reads the draft, checks RevisableBy, asks revise for the
	// new content, applies ReviseBy and writes the draft, its transcript
	// and its ledger entry atomically. Errors: NOT_FOUND (unknown id,
	// expired draft, wrong token alike), STATE_CONFLICT, RATE_LIMITED after
	// intake.MaxRevisions, what revise returns, UNAVAILABLE.
	ReviseDraft(ctx context.Context, id string, tokenHash []byte, now time.Time,
		revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error)
	// ReviseDecoy revises a honeypot's decoy as ReviseDraft revises a
	// draft, from its content-free ledger entry, writing no content; the
	// presented token is the holder's only when tokenMatches. Errors: as
	// ReviseDraft.
	ReviseDecoy(ctx context.Context, id string, tokenHash []byte, tokenMatches bool, now time.Time,
		revise func(current intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error)
}

// RevisionRequest is one decoded revision of a kept draft.
type RevisionRequest struct {
	ID    string
	Token string
	// Fields, Added, Conversation and Consents replace the draft's (Added
	// may name only fields the draft's form version adds); FormID,
	// FormVersion, Honeypot and Altcha are not read (the draft keeps its
	// form version, and a revision needs no new proof of work).
	Submission intake.Submission
	// RequestID names the request in the provenance of a refusal's ledger
	// entry.
	RequestID string
}

// Revise replaces a kept draft's content for the holder of its token, after
// the content rules of the draft's own form version, and returns the draft
// as kept with the same id, token and expiry. It spends no proof of work
// and counts against no rate limit; a draft takes at most
// intake.MaxRevisions revisions. A revision refused by the content rules
// leaves the draft as it was and a content-free ledger entry. Errors:
// NOT_FOUND (unknown id, expired draft, wrong token — answered exactly as a
// confirmation answers them), the content codes and CONSENT_REQUIRED,
// STATE_CONFLICT (already confirmed), RATE_LIMITED, UNAVAILABLE.
func (s *Service) Revise(ctx context.Context, req RevisionRequest) (*Draft, error) {
	now := s.Clock.Now()
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
			return intake.Revision{}, refused
		}
		consents, purposes := contentrules.Evidence(version, kept, now, WithdrawalPath(current.ID))
		if consents == nil {
			consents = []intake.ConsentEvidence{}
		}
		revised := current
		revised.Fields, revised.HasConversation = kept.Fields, kept.Conversation != ""
		revised.Added = kept.Added
		conversation = kept.Conversation
		return intake.Revision{Fields: kept.Fields, Conversation: kept.Conversation, Consents: consents,
			Purposes: purposes, Stored: storedFields(revised), SubjectKey: contentrules.SubjectKey(kept.Fields.Email),
			Added: kept.Added}, nil
	}
	var in *intake.Introduction
	var err error
	if key, ok := s.decoyKey(req.ID); ok {
		// A decoy is revised as a draft is — the same checks, content rules
		// and answer — from its ledger entry, keeping none of the content.
		in, err = s.Reviser.ReviseDecoy(ctx, req.ID, intake.HashToken(req.Token), s.decoyTokenMatches(key, req.ID, req.Token), now, revise)
	} else {
		in, err = s.Reviser.ReviseDraft(ctx, req.ID, intake.HashToken(req.Token), now, revise)
	}
	if err != nil {
		if refused != nil && intake.CodeOf(err) == refused.Code {
			return nil, s.refuseRevision(ctx, req, refused)
		}
		return nil, err
	}
	s.Logger.InfoContext(ctx, "draft revised", slog.String("submissionId", in.ID), slog.Int("revisions", in.Revisions),
		slog.Bool("conversation", in.HasConversation))
	return &Draft{Introduction: *in, Conversation: conversation, Token: req.Token}, nil
}

// refuseRevision records a revision the content rules refused, content-free
// and bound to the draft it was meant for, and returns the refusal.
func (s *Service) refuseRevision(ctx context.Context, req RevisionRequest, refused *intake.Error) error {
	entry := s.newEntry(req.RequestID, s.Clock.Now())
	entry.SubmissionID = req.ID
	codes := make([]intake.Code, 0, len(refused.Fields))
	signals := make([]string, 0, len(refused.Fields))
	for _, f := range refused.Fields {
		codes = append(codes, f.Code)
		signals = append(signals, string(f.Code))
	}
	entry.Validation = intake.ValidationRecord{Result: intake.ValidationFail, Codes: codes}
	entry.Abuse = intake.AbuseRecord{State: intake.AbuseContentRejected, Signals: signals}
	if err := s.record(ctx, entry, intake.DecisionRejected, "revision refused: "+string(refused.Code)+"; the draft is unchanged"); err != nil {
		return err
	}
	return refused
}
