package attachment_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/storagetest"
)

// kept is a live introduction's named object per id; an id it lacks has
// no live introduction.
type kept map[string]string

func (k kept) AttachmentObjects(_ context.Context, ids []string, _ time.Time) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if o, ok := k[id]; ok {
			out[id] = o
		}
	}
	return out, nil
}

// TestSweepKeepsAFreshUnnamedObjectUntilGrace: a live draft's object that
// the draft does not name (an upload that has not yet been named, or one
// replaced) stays while younger than attachment.Grace and goes once older;
// the named one stays; a gone introduction's object goes at once.
func TestSweepKeepsAFreshUnnamedObjectUntilGrace(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	for _, o := range []string{"live/named", "live/unnamed", "gone/x"} {
		if _, err := attachment.Receive(context.Background(), files, o, "text/plain", strings.NewReader("words"), limit); err != nil {
			t.Fatal(err)
		}
	}
	task, err := attachment.NewSweepTask(files, kept{"live": "live/named"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	left := func() []string {
		var names []string
		for _, o := range storagetest.Objects(t, bucket) {
			names = append(names, o.Name)
		}
		return names
	}
	for _, step := range []struct {
		now     time.Time
		deleted int
		left    []string
	}{
		{time.Now().Add(attachment.Grace - time.Minute), 1, []string{"live/named", "live/unnamed"}},
		{time.Now().Add(attachment.Grace + time.Minute), 1, []string{"live/named"}},
	} {
		res, err := task.Run(context.Background(), step.now)
		if err != nil || res.Deleted[attachment.ClassAttachments] != step.deleted || !slices.Equal(left(), step.left) {
			t.Fatalf("at now+%s: deleted %v (%v), left %v, want %d and %v", time.Until(step.now).Round(time.Minute), res.Deleted, err, left(), step.deleted, step.left)
		}
	}
}
