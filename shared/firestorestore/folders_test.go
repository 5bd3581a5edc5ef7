package firestorestore

import (
	"context"
	"fmt"
	"slices"
	"sync"
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
func no() *bool  { b := false; return &b }

// TestFileFoldersFilesWhatAnEarlierVersionKept: every live introduction
// without a folder, confirmed, handled or a draft, gets the one its spam
// fields make, in one read and one commit; then the folder filters and the
// waiting count find them. One with a folder is not written, an expired
// one is left to the sweep, and a second pass finds nothing. The
// backfill's record stands until it expires, costs one read, and is no
// sweep run.
func TestFileFoldersFilesWhatAnEarlierVersionKept(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	ids := []string{"plain", "signalled", "marked", "cleared", "handled", "filed"}
	for i, id := range ids {
		ts.keepConfirmed(t, id, t0.Add(-time.Duration(i+1)*time.Hour))
	}
	if _, err := ts.MarkHandled(ctx, "handled", "owner", t0); err != nil {
		t.Fatal(err)
	}
	ts.keepConfirmed(t, "expired", t0.Add(-keepFor-time.Hour))
	if _, err := ts.KeepDraft(ctx, draft("draft", t0)); err != nil {
		t.Fatal(err)
	}
	ts.asKeptBefore(t, "plain", nil, nil)
	ts.asKeptBefore(t, "signalled", yes(), nil)
	ts.asKeptBefore(t, "marked", yes(), yes())
	ts.asKeptBefore(t, "cleared", yes(), no())
	ts.asKeptBefore(t, "handled", nil, nil)
	ts.asKeptBefore(t, "expired", nil, nil)
	ts.asKeptBefore(t, "draft", nil, nil)
	_, filedAt := ts.folderOf(t, "filed")

	if n, err := ts.CountWaiting(ctx); err != nil || n != 1 {
		t.Fatalf("CountWaiting before = %d, %v; want 1 (only the one with a folder)", n, err)
	}
	ts.rpcs.Reset()
	found, filed, err := ts.FileFolders(ctx, t0)
	if err != nil || found != 6 || filed != 6 {
		t.Fatalf("FileFolders = %d found, %d filed, %v; want 6, 6", found, filed, err)
	}
	if n := ts.rpcs.Count(); n != 2 {
		t.Errorf("FileFolders made %d calls, want 2 (one page, one commit)", n)
	}
	want := map[string]string{
		"plain": intake.FolderInbox, "signalled": intake.FolderLikelySpam, "marked": intake.FolderSpam,
		"cleared": intake.FolderInbox, "handled": intake.FolderInbox, "filed": intake.FolderInbox,
		"draft": intake.FolderInbox, "expired": "",
	}
	for id, w := range want {
		if got, _ := ts.folderOf(t, id); got != w {
			t.Errorf("%s: folder %q, want %q", id, got, w)
		}
	}
	if _, at := ts.folderOf(t, "filed"); !at.Equal(filedAt) {
		t.Errorf("the introduction that had a folder was written again (%v, was %v)", at, filedAt)
	}

	list := func(folder string) []string { return ts.listed(t, folder) }
	for folder, w := range map[string][]string{
		intake.FolderInbox:      {"plain", "cleared", "handled", "filed"},
		intake.FolderLikelySpam: {"signalled"},
		intake.FolderSpam:       {"marked"},
	} {
		if got := list(folder); !slices.Equal(got, w) {
			t.Errorf("ListIntroductions(%s) = %v, want %v", folder, got, w)
		}
	}
	if n, err := ts.CountWaiting(ctx); err != nil || n != 4 {
		t.Errorf("CountWaiting after = %d, %v; want 4 (plain, signalled, cleared, filed)", n, err)
	}
	if n, err := ts.CountSpam(ctx); err != nil || n != 1 {
		t.Errorf("CountSpam after = %d, %v; want 1", n, err)
	}
	if found, filed, err := ts.FileFolders(ctx, t0); err != nil || found != 0 || filed != 0 {
		t.Errorf("a second pass = %d found, %d filed, %v; want nothing", found, filed, err)
	}

	if ok, err := ts.FoldersFiled(ctx, t0); err != nil || ok {
		t.Fatalf("FoldersFiled before any record = %v, %v", ok, err)
	}
	if err := ts.RecordFoldersFiled(ctx, t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	ts.rpcs.Reset()
	if ok, err := ts.FoldersFiled(ctx, t0); err != nil || !ok {
		t.Fatalf("FoldersFiled after the record = %v, %v", ok, err)
	}
	if n, d := ts.rpcs.Count(), ts.rpcs.Documents(); n != 1 || d != 1 {
		t.Errorf("FoldersFiled made %d calls reading %d documents, want 1 and 1", n, d)
	}
	if ok, err := ts.FoldersFiled(ctx, t0.Add(time.Hour)); err != nil || ok {
		t.Errorf("FoldersFiled once the record expired = %v, %v", ok, err)
	}
	if runs, err := ts.SweepStore.LastRuns(ctx, 5); err != nil || len(runs) != 0 {
		t.Errorf("LastRuns = %+v, %v; the backfill's record is no run", runs, err)
	}
}

// TestFileFoldersKeepsTheOwnersWord: the owner marks an introduction spam
// on another instance between the backfill's read and its commit. The
// page's commit writes nothing, each introduction is then written alone,
// and the marked one keeps the owner's folder: it is found, not filed.
func TestFileFoldersKeepsTheOwnersWord(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for i, id := range []string{"a", "b", "c"} {
		ts.keepConfirmed(t, id, t0.Add(-time.Duration(i+1)*time.Hour))
		ts.asKeptBefore(t, id, yes(), nil)
	}
	owner := ts.sibling(t)
	var once sync.Once
	ts.beforeCommit = func(move string) {
		once.Do(func() {
			if _, err := owner.MarkSpam(ctx, "b", "owner", true, t0); err != nil {
				t.Error(err)
			}
		})
	}
	found, filed, err := ts.FileFolders(ctx, t0)
	if err != nil || found != 3 || filed != 2 {
		t.Fatalf("FileFolders = %d found, %d filed, %v; want 3, 2", found, filed, err)
	}
	for id, w := range map[string]string{"a": intake.FolderLikelySpam, "b": intake.FolderSpam, "c": intake.FolderLikelySpam} {
		if got, _ := ts.folderOf(t, id); got != w {
			t.Errorf("%s: folder %q, want %q", id, got, w)
		}
	}
	ts.beforeCommit = nil
	if found, filed, err := ts.FileFolders(ctx, t0); err != nil || found != 0 || filed != 0 {
		t.Errorf("the next pass = %d found, %d filed, %v; want nothing", found, filed, err)
	}
}

// TestFileFoldersReadsEveryPage: the backfill reads the collection a page
// at a time, by id, and commits each page's folders at once.
func TestFileFoldersReadsEveryPage(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	const n = 2*folderPage + 1
	for start := 0; start < n; start += maxBatchWrites {
		//lint:ignore SA1019 a test writing the older shape in bulk.
		b := ts.client.Batch() //nolint:staticcheck // see above
		for i := start; i < min(start+maxBatchWrites, n); i++ {
			b.Set(ts.client.Collection(Introductions).Doc(fmt.Sprintf("old-%04d", i)),
				map[string]any{"state": intake.StateConfirmed, "confirmedAt": t0, ExpireAtField: t0.Add(keepFor)})
		}
		if _, err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ts.rpcs.Reset()
	found, filed, err := ts.FileFolders(ctx, t0)
	if err != nil || found != n || filed != n {
		t.Fatalf("FileFolders = %d found, %d filed, %v; want %d", found, filed, err, n)
	}
	if calls := ts.rpcs.Count(); calls != 6 {
		t.Errorf("FileFolders made %d calls, want 6 (three pages, three commits)", calls)
	}
	if got, err := ts.CountWaiting(ctx); err != nil || got != n {
		t.Errorf("CountWaiting = %d, %v; want %d", got, err, n)
	}
}

// TestConfirmFilesADraftAnEarlierVersionKept: a draft kept without a
// folder (by an instance of an earlier version during a deployment) gets
// its folder when it is confirmed, so it shows in its filter at once,
// not only after the next backfill.
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
