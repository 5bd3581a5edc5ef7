package attachmentbucket_test

import (
	"context"
	"io"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/storagetest"
)

// TestCreateNeverOverwrites: a second upload to an object that exists is
// refused at its commit, and the first bytes stay, on fake-gcs-server.
func TestCreateNeverOverwrites(t *testing.T) {
	b, _ := storagetest.Bucket(t)
	ctx := context.Background()
	for i, body := range []string{"first", "second"} {
		w, err := b.Create(ctx, "id/object", "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			t.Fatal(err)
		}
		err = w.Commit()
		if i == 0 && err != nil {
			t.Fatalf("the first upload: %v", err)
		}
		if i == 1 && intake.CodeOf(err) != intake.CodeUnavailable {
			t.Fatalf("the second upload to the same object: %v, want UNAVAILABLE", err)
		}
	}
	r, err := b.Open(ctx, "id/object")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, _ := io.ReadAll(r); string(got) != "first" {
		t.Fatalf("the object holds %q", got)
	}
	if _, err := b.Open(ctx, "id/none"); intake.CodeOf(err) != intake.CodeNotFound {
		t.Fatalf("open of no object: %v", err)
	}
}
