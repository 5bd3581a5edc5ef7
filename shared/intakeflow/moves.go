package intakeflow

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/contentrules"
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
// NOT_FOUND; it returns the move's time, the holder's claim and the
// client's keyed hash.
func (s *Service) admit(req TokenRequest, move string) (time.Time, intake.Claim, string, error) {
	now, keyHash := s.Clock.Now(), s.keyedHash("ip", clientPrefix(req.Client))
	if d, wait := s.Flood.Admit(keyHash, now); d.Decision == intake.RateBlock {
		return now, intake.Claim{}, keyHash, s.tally(tallyKey{source: keyHash}, now, intake.RateLimited(wait), []string{"flood-limit"}, move)
	}
	if !wellFormed(req.ID, 22) || !wellFormed(req.Token, 43) {
		return now, intake.Claim{}, keyHash, intake.ErrNotFound
	}
	return now, s.claimOf(req.ID, req.Token), keyHash, nil
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
	now, c, _, err := s.admit(req, moveConfirmation)
	if err != nil {
		return nil, err
	}
	id := req.ID
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
	now, c, _, err := s.admit(req, moveWithdrawal)
	if err != nil {
		return err
	}
	id := req.ID
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
	// TokenRequest's RequestID is the request's trace id; nothing a revision writes records it.
	TokenRequest
	// Lang (empty: the draft's), Fields, Added, Conversation and Consents
	// replace the draft's; the form version, honeypot and proof are not read.
	Submission intake.Submission
}

// Revise replaces a kept draft's content for the holder of its token under
// its own form version's rules and returns it as kept; every revision counts
// toward intake.MaxRevisions, and a refused one leaves the draft as it was
// and is tallied. Errors: NOT_FOUND, the content codes, CONSENT_REQUIRED,
// STATE_CONFLICT, RATE_LIMITED, UNAVAILABLE.
func (s *Service) Revise(ctx context.Context, req RevisionRequest) (*Draft, error) {
	now, claim, clientKey, err := s.admit(req.TokenRequest, moveRevision)
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
		version, err := version.Shown(cmp.Or(req.Submission.Lang, current.Lang)) // the evidence follows the language shown last
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
		revised.Fields, revised.HasConversation, revised.Added = kept.Fields, kept.Conversation != "", kept.Added
		conversation = kept.Conversation
		return intake.Revision{Lang: version.Lang, Fields: kept.Fields, Conversation: kept.Conversation, Consents: consents,
			Purposes: purposes, Stored: storedFields(revised), SubjectKey: contentrules.SubjectKey(kept.Fields.Email),
			Added: kept.Added}, nil
	}
	// A decoy is revised as a draft is, keeping none of the content.
	in, err := s.Reviser.ReviseDraft(ctx, claim, now, revise)
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

// AttachRequest is one file sent for a draft by the holder of its token.
type AttachRequest struct {
	TokenRequest
	// ContentType is the declared media type; Name the visitor's name for it.
	ContentType string
	Name        string
	Body        io.Reader
}

var errNoFiles = intake.Internal(errors.New("intakeflow: this service keeps no attachments"))

// Attach keeps req's file as the draft's attachment in place of the one it
// had, checking the draft and its form version before reading a byte.
// Errors: NOT_FOUND, STATE_CONFLICT, ATTACHMENT_*, UNREADABLE_BODY, RATE_LIMITED, UNAVAILABLE.
func (s *Service) Attach(ctx context.Context, req AttachRequest) (*intake.Attachment, error) {
	if s.Files == nil || s.Attacher == nil {
		return nil, errNoFiles
	}
	// A decoy takes the same steps; its bytes are read and checked, then dropped.
	now, c, _, err := s.admit(req.TokenRequest, moveAttachment)
	if err != nil {
		return nil, err
	}
	id := req.ID
	draft, err := s.Attacher.AttachableDraft(ctx, c, now)
	if err != nil {
		return nil, err
	}
	if v, ok := s.Forms.Find(draft.FormID, draft.FormVersion); !ok || v.Attachment == nil {
		return nil, intake.Errorf(intake.CodeAttachmentNotOffered, "This form takes no attachment; the version this draft was written in offers none.")
	}
	files, object := attachment.Files(discard{}), ""
	if !c.Decoy() {
		files = s.Files
		if object, err = s.newObjectName(id); err != nil {
			return nil, intake.Internal(err)
		}
	}
	got, err := attachment.Receive(ctx, files, object, req.ContentType, req.Body, s.AttachmentMaxBytes)
	if err != nil {
		s.Logger.InfoContext(ctx, "attachment refused", slog.String("submissionId", id), slog.String("code", string(intake.CodeOf(err))))
		return nil, err
	}
	a := &intake.Attachment{Name: attachment.CleanName(req.Name), Type: got.Type, Size: got.Size, SHA256: got.SHA256, Object: object}
	previous, err := s.Attacher.SetAttachment(ctx, c, s.Clock.Now(), a, s.attachmentPurpose)
	if err != nil {
		// Refused for certain, no draft names the new object: it goes now.
		// Any other failure may have committed: the sweep decides later.
		if c := intake.CodeOf(err); c == intake.CodeNotFound || c == intake.CodeStateConflict || intake.IsNotStorable(err) {
			s.deleteObjects(ctx, id, object)
		}
		return nil, err
	}
	if previous != nil {
		s.deleteObjects(ctx, id, previous.Object)
	}
	s.Logger.InfoContext(ctx, "attachment kept", slog.String("submissionId", id), slog.String("type", a.Type),
		slog.Int64("size", a.Size), slog.Bool("replaced", previous != nil), slog.Bool("decoy", c.Decoy()))
	return a, nil
}

// Detach removes the draft's attachment, if any, and deletes its bytes.
// Errors: as Attach, without the file's.
func (s *Service) Detach(ctx context.Context, req TokenRequest) error {
	if s.Files == nil || s.Attacher == nil {
		return errNoFiles
	}
	now, c, _, err := s.admit(req, moveAttachment)
	if err != nil {
		return err
	}
	previous, err := s.Attacher.SetAttachment(ctx, c, now, nil, s.attachmentPurpose)
	if err != nil {
		return err
	}
	if previous != nil {
		s.deleteObjects(ctx, req.ID, previous.Object)
	}
	s.Logger.InfoContext(ctx, "attachment removed", slog.String("submissionId", req.ID), slog.Bool("had", previous != nil))
	return nil
}

// attachmentPurpose is a form version's attachment purpose, "" for none.
func (s *Service) attachmentPurpose(formID, version string) string {
	if v, ok := s.Forms.Find(formID, version); ok && v.Attachment != nil {
		return v.Attachment.Purpose
	}
	return ""
}

// deleteObjects deletes the objects under prefix ("" names none), logging a failure.
func (s *Service) deleteObjects(ctx context.Context, id, prefix string) {
	if prefix == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := s.Files.DeleteUnder(ctx, prefix); err != nil {
		s.Logger.WarnContext(ctx, "attachment not deleted; the sweep deletes it", slog.String("submissionId", id),
			slog.String("code", string(intake.CodeOf(err))))
	}
}

// newObjectName is a fresh object name under the introduction's prefix.
func (s *Service) newObjectName(id string) (string, error) {
	b, err := s.random(16)
	return intake.AttachmentPrefix(id) + b64.EncodeToString(b), err
}

// discard is the Files of a decoy: its uploads keep nothing. Receive only
// creates; the other methods are the nil Files'.
type discard struct{ attachment.Files }

func (discard) Create(context.Context, string, string) (attachment.Upload, error) {
	return discardUpload{}, nil
}

type discardUpload struct{}

func (discardUpload) Write(p []byte) (int, error) { return len(p), nil }
func (discardUpload) Commit() error               { return nil }
func (discardUpload) Abort()                      {}
