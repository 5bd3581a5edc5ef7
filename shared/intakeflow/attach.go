package intakeflow

import (
	"context"
	"encoding/base64"
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
	// ContentType is the declared media type; Name the display name the
	// visitor gave it (cleaned by attachment.CleanName, "" for none).
	ContentType string
	Name        string
	Body        io.Reader
}

// errNoFiles refuses an attachment move on a service built without Files.
var errNoFiles = intake.Internal(errors.New("intakeflow: this service keeps no attachments"))

// Attach keeps the file of req as the draft's attachment, replacing the
// one it had (whose bytes are deleted once the draft no longer names
// them), and returns it as kept. It counts against the flood layer as a
// revision does, checks the draft and its form version before reading a
// byte, and streams the body to the bucket through the attachment's
// checks. Errors: NOT_FOUND (unknown id, expired draft, wrong token —
// as a confirmation answers them), STATE_CONFLICT (confirmed),
// ATTACHMENT_NOT_OFFERED (the draft's form version offers none),
// ATTACHMENT_TOO_LARGE, ATTACHMENT_TYPE_REFUSED, ATTACHMENT_EMPTY,
// UNREADABLE_BODY, RATE_LIMITED (the flood layer), UNAVAILABLE.
func (s *Service) Attach(ctx context.Context, req AttachRequest) (*intake.Attachment, error) {
	if s.Files == nil || s.Attacher == nil {
		return nil, errNoFiles
	}
	now := s.Clock.Now()
	if err := s.admitMove(req.TokenRequest, now, moveAttachment); err != nil {
		return nil, err
	}
	id, token := req.ID, req.Token
	if !idPattern.MatchString(id) || !tokenPattern.MatchString(token) {
		return nil, intake.ErrNotFound
	}
	// A honeypot's decoy takes the same steps, with the same reads and
	// writes, on its own records; its bytes are read to their end and
	// checked as a draft's are, then dropped.
	c := s.claimOf(id, token)
	draft, err := s.Attacher.AttachableDraft(ctx, c, now)
	if err != nil {
		return nil, err
	}
	if err := s.offered(draft.FormID, draft.FormVersion); err != nil {
		return nil, err
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
		// Refused for certain (confirmed or gone while the bytes streamed,
		// or the store's own check): no draft names the new object, so it
		// goes now. Any other failure (UNAVAILABLE above all) may have
		// committed: the object stays, and the attachment sweep deletes it
		// after its grace period if no draft names it.
		if refusedForCertain(err) {
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

// Detach removes the draft's attachment and deletes its bytes; a draft
// without one is no error. Errors: as Attach, without the file's.
func (s *Service) Detach(ctx context.Context, req TokenRequest) error {
	if s.Files == nil || s.Attacher == nil {
		return errNoFiles
	}
	now := s.Clock.Now()
	if err := s.admitMove(req, now, moveAttachment); err != nil {
		return err
	}
	if !idPattern.MatchString(req.ID) || !tokenPattern.MatchString(req.Token) {
		return intake.ErrNotFound
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

// refusedForCertain reports whether SetAttachment's err says it wrote
// nothing: NOT_FOUND and STATE_CONFLICT are answered from its read, and a
// record its check refuses is refused before any write.
func refusedForCertain(err error) bool {
	switch intake.CodeOf(err) {
	case intake.CodeNotFound, intake.CodeStateConflict:
		return true
	}
	return intake.IsNotStorable(err)
}

// attachmentPurpose is the purpose an attachment serves on a form
// version ("" for a version that offers none).
func (s *Service) attachmentPurpose(formID, version string) string {
	if v, ok := s.Forms.Find(formID, version); ok && v.Attachment != nil {
		return v.Attachment.Purpose
	}
	return ""
}

// offered refuses a form version that offers no attachment.
func (s *Service) offered(formID, version string) error {
	v, ok := s.Forms.Find(formID, version)
	if !ok || v.Attachment == nil {
		return intake.Errorf(intake.CodeAttachmentNotOffered, "This form takes no attachment; the version this draft was written in offers none.")
	}
	return nil
}

// DeleteAttachments deletes every object introduction id ever had; the
// withdrawal calls it after its commit (the admin's erasure calls the same
// attachment.DeleteIntroduction). A failure is logged, not returned: the
// sweep deletes what a gone introduction left.
func (s *Service) DeleteAttachments(ctx context.Context, id string) {
	if s.Files != nil {
		attachment.DeleteIntroduction(ctx, s.Files, s.Logger, id)
	}
}

// deleteObjects deletes the objects under prefix (an object's full name,
// or an introduction's prefix; "", a decoy's, names none), logging a
// failure.
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

// newObjectName is a fresh object name under the introduction's prefix:
// each upload writes its own object, never over another.
func (s *Service) newObjectName(id string) (string, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(s.Entropy, b); err != nil {
		return "", err
	}
	return intake.AttachmentPrefix(id) + base64.RawURLEncoding.EncodeToString(b), nil
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
