package admin_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/firestorestore"
)

// withoutFolder takes introduction id back to the shape an earlier version
// of the service kept, which had no folder.
func (f *fixture) withoutFolder(id string) {
	f.t.Helper()
	_, err := f.client.Collection(firestorestore.Introductions).Doc(id).Update(context.Background(),
		[]firestore.Update{{Path: "folder", Value: firestore.Delete}})
	if err != nil {
		f.t.Fatal(err)
	}
}

// TestFolderBackfillTask: introductions kept before folders existed are in
// no filter and not in the waiting count; one run of the task files each
// in its folder and records that none is left, after which a run reads
// that record and nothing else. Once the record expires, a run scans again
// and files one that came without a folder meanwhile.
func TestFolderBackfillTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	clean, likely, other := spamSamples(f)
	for _, id := range []string{clean, likely, other} {
		f.withoutFolder(id)
	}
	filters := func(want map[string][]string) {
		t.Helper()
		for query, w := range want {
			if got := f.listed(query); !slices.Equal(got, w) {
				t.Errorf("list%s = %v, want %v", query, got, w)
			}
		}
	}
	filters(map[string][]string{"?filter=inbox": nil, "?filter=likely-spam": nil})

	// The task's store counts its calls, on the fixture's database.
	rpcs := &emulatortest.RPCCounter{}
	client, err := firestore.NewClientWithDatabase(ctx, emulatortest.Project(t), emulatortest.Database, rpcs.ClientOptions(emulatortest.Host(t))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	db, err := firestorestore.New(client, firestorestore.Config{Database: emulatortest.Database, OpTimeout: 20 * time.Second}, f.logger)
	if err != nil {
		t.Fatal(err)
	}
	task, err := admin.NewFolderBackfillTask(db.Sweep(), f.logger)
	if err != nil {
		t.Fatal(err)
	}
	if task.Name() != "folder-backfill" {
		t.Errorf("name %q", task.Name())
	}
	if _, err := task.Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	filters(map[string][]string{"?filter=inbox": {clean, other}, "?filter=likely-spam": {likely}})
	if p := f.do(http.MethodGet, "/admin/", ""); !strings.Contains(string(p.body), "<strong>3 introductions</strong> wait for you") {
		t.Errorf("the waiting count after the backfill:\n%s", p.body)
	}

	f.withoutFolder(other) // as an instance of the earlier version might keep one during a deployment
	rpcs.Reset()
	if _, err := task.Run(ctx, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, d := rpcs.Count(), rpcs.Documents(); n != 1 || d != 1 {
		t.Errorf("a run after the record made %d calls reading %d documents, want 1 and 1 (the record)", n, d)
	}
	filters(map[string][]string{"?filter=inbox": {clean}})

	if _, err := task.Run(ctx, now.Add(admin.FoldersCheckedFor)); err != nil {
		t.Fatal(err)
	}
	filters(map[string][]string{"?filter=inbox": {clean, other}, "?filter=likely-spam": {likely}})
	for _, word := range []string{"Cathy", "cathy@", "Sam", "Olga"} {
		if strings.Contains(f.logs.String(), word) {
			t.Errorf("the logs carry %q", word)
		}
	}
}
