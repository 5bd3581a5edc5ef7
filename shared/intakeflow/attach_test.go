package intakeflow_test

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/storagetest"
	"github.com/ownersite/introductions/shared/testsupport"
)

// scriptedAttacher is an intake.Attacher whose draft is a live draft of
// form version 3 and whose SetAttachment answers set; it has no decoys.
type scriptedAttacher struct {
	intake.Attacher
	set func(a *intake.Attachment) (*intake.Attachment, error)
}

func (scriptedAttacher) AttachableDraft(_ context.Context, c intake.Claim, now time.Time) (*intake.Introduction, error) {
	return &intake.Introduction{ID: c.ID, State: intake.StateDraft, FormID: "introduction", FormVersion: "3", TokenHash: c.TokenHash, ExpireAt: now.Add(time.Hour)}, nil
}

func (s scriptedAttacher) SetAttachment(_ context.Context, _ intake.Claim, _ time.Time, a *intake.Attachment, _ func(string, string) string) (*intake.Attachment, error) {
	return s.set(a)
}

// TestAFailedAttachmentWriteDeletesItsBytesOnlyWhenNothingWasWritten: the
// new object goes when the store refused for certain (the draft was
// confirmed or gone, or the store's own check refused the record); on
// UNAVAILABLE the write may have committed, so the object stays for the
// attachment sweep to judge.
func TestAFailedAttachmentWriteDeletesItsBytesOnlyWhenNothingWasWritten(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		stays bool
	}{
		{"not found", intake.ErrNotFound, false},
		{"state conflict", intake.Errorf(intake.CodeStateConflict, "confirmed"), false},
		{"the store's own check", intake.CheckStorableAttachment("AAAAAAAAAAAAAAAAAAAAAA", &intake.Attachment{}), false},
		{"unavailable", intake.Unavailable(errors.New("commit cut short"), time.Second), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("the case's error is nil")
			}
			files, bucket := storagetest.Bucket(t)
			f := newFixtureWith(t, func(d *intakeflow.Deps) {
				d.Files, d.AttachmentMaxBytes = files, 1<<20
				d.Attacher = scriptedAttacher{set: func(*intake.Attachment) (*intake.Attachment, error) { return nil, c.err }}
			})
			_, err := f.svc.Attach(context.Background(), intakeflow.AttachRequest{
				TokenRequest: intakeflow.TokenRequest{ID: "AAAAAAAAAAAAAAAAAAAAAA", Token: strings.Repeat("A", 43), Client: netip.MustParseAddr("192.0.2.7")},
				ContentType:  "application/pdf", Body: bytes.NewReader(testsupport.SamplePDF(500)),
			})
			if intake.CodeOf(err) != intake.CodeOf(c.err) {
				t.Fatalf("Attach: %v, want %s", err, intake.CodeOf(c.err))
			}
			left := storagetest.Objects(t, bucket)
			if c.stays != (len(left) == 1) || len(left) > 1 {
				t.Fatalf("after %s the bucket holds %v (the new object should stay: %v)", c.name, left, c.stays)
			}
		})
	}
}
