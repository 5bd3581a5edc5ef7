package firestorestore

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/intake"
)

// asKeptBefore reshapes introduction id as a version of the service before
// folders kept it: no folder field, and the spam fields as given (absent
// when nil, as that version wrote none).
func (ts *testStore) asKeptBefore(t testing.TB, id string, likelySpam, spam *bool) {
	t.Helper()
	updates := []firestore.Update{{Path: "folder", Value: firestore.Delete},
		{Path: "likelySpam", Value: firestore.Delete}, {Path: "spam", Value: firestore.Delete}}
	if likelySpam != nil {
		updates[1].Value = *likelySpam
	}
	if spam != nil {
		updates[2].Value = *spam
	}
	if _, err := ts.client.Collection(Introductions).Doc(id).Update(context.Background(), updates); err != nil {
		t.Fatal(err)
	}
}

// folderOf returns introduction id's stored folder ("" when it has none)
// and its update time.
func (ts *testStore) folderOf(t testing.TB, id string) (string, time.Time) {
	t.Helper()
	snap, err := ts.client.Collection(Introductions).Doc(id).Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := snap.DataAt("folder")
	s, _ := f.(string)
	return s, snap.UpdateTime
}

func yes() *bool { b := true; return &b }

// TestConfirmFilesADraftAnEarlierVersionKept: a draft kept without a
// folder (by an instance of an earlier version during a deployment) gets
// its folder when it is confirmed, so it shows in its filter at once.
func TestConfirmFilesADraftAnEarlierVersionKept(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for _, c := range []struct {
		id         string
		likelySpam *bool
		want       string
	}{{"plain", nil, intake.FolderInbox}, {"signalled", yes(), intake.FolderLikelySpam}} {
		if _, err := ts.KeepDraft(ctx, draft(c.id, t0)); err != nil {
			t.Fatal(err)
		}
		ts.asKeptBefore(t, c.id, c.likelySpam, nil)
		if _, err := ts.Confirm(ctx, intake.Claim{ID: c.id, TokenHash: intake.HashToken(token(c.id))}, t0.Add(time.Minute), keepFor, nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := ts.folderOf(t, c.id); got != c.want {
			t.Errorf("%s: folder %q after its confirmation, want %q", c.id, got, c.want)
		}
	}
}
