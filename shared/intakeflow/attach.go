package intakeflow

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
)

// AttachRequest is one file sent for a draft by the holder of its token.
type AttachRequest struct {
	TokenRequest
	// ContentType is the declared media type; Name the visitor's name for it.
	ContentType string
	Name        string
	Body        io.Reader
}

var errNoFiles = intake.Internal(errors.New("intakeflow: this service keeps no attachments"))

// Attach keeps req's file as the draft's attachment, replacing (and then
// deleting) the one it had, and returns it as kept. It checks the draft and
// its form version before reading a byte. Errors: NOT_FOUND,
// STATE_CONFLICT, ATTACHMENT_NOT_OFFERED, ATTACHMENT_TOO_LARGE,
// ATTACHMENT_TYPE_REFUSED, ATTACHMENT_EMPTY, UNREADABLE_BODY,
// RATE_LIMITED, UNAVAILABLE.
func (s *Service) Attach(ctx context.Context, req AttachRequest) (*intake.Attachment, error) {
	if s.Files == nil || s.Attacher == nil {
		return nil, errNoFiles
	}
	now := s.Clock.Now()
	if _, err := s.admit(req.ID, req.Token, req.Client, now, moveAttachment); err != nil {
		return nil, err
	}
	id := req.ID
	// A decoy takes the same steps; its bytes are read and checked, then dropped.
	c := s.claimOf(id, req.Token)
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
	now := s.Clock.Now()
	if _, err := s.admit(req.ID, req.Token, req.Client, now, moveAttachment); err != nil {
		return err
	}
	previous, err := s.Attacher.SetAttachment(ctx, s.claimOf(req.ID, req.Token), now, nil, s.attachmentPurpose)
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

// discard is the Files of a decoy: it keeps nothing.
type discard struct{}

func (discard) Create(context.Context, string, string) (attachment.Upload, error) {
	return discardUpload{}, nil
}
func (discard) Open(context.Context, string) (io.ReadCloser, error) { return nil, intake.ErrNotFound }
func (discard) Delete(context.Context, string) error                { return nil }
func (discard) DeleteUnder(context.Context, string) (int, error)    { return 0, nil }
func (discard) Objects(context.Context, func(string, time.Time) error) error {
	return nil
}

type discardUpload struct{}

func (discardUpload) Write(p []byte) (int, error) { return len(p), nil }
func (discardUpload) Commit() error               { return nil }
func (discardUpload) Abort()                      {}
