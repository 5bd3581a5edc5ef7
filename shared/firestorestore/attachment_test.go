package firestorestore

import (
	"context"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

// TestSetAttachmentRefusesWhatTheServiceWouldRefuse: the store's check is
// the service's (intake.CheckStorableAttachment): an object outside the
// introduction's prefix, a type not offered, or a name over the display
// name's length is refused INTERNAL, and nothing is written.
func TestSetAttachmentRefusesWhatTheServiceWouldRefuse(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("att1", t0)); err != nil {
		t.Fatal(err)
	}
	good := intake.Attachment{Name: "cv.pdf", Type: "application/pdf", Size: 10, SHA256: strings.Repeat("ab", 32), Object: "att1/x"}
	cases := map[string]func(a *intake.Attachment){
		"another introduction's object": func(a *intake.Attachment) { a.Object = "att2/x" },
		"the bare prefix":               func(a *intake.Attachment) { a.Object = "att1/" },
		"a type not offered":            func(a *intake.Attachment) { a.Type = "application/zip" },
		"a name too long":               func(a *intake.Attachment) { a.Name = strings.Repeat("é", intake.MaxAttachmentNameLength+1) },
		"a path for a name":             func(a *intake.Attachment) { a.Name = "../cv.pdf" },
	}
	before := ts.dump(t)
	for name, change := range cases {
		a := good
		change(&a)
		if _, err := ts.SetAttachment(ctx, intake.Claim{ID: "att1", TokenHash: intake.HashToken(token("att1"))}, t0, &a, noPurpose); codeOf(t, err) != intake.CodeInternal || !intake.IsNotStorable(err) {
			t.Errorf("%s: %v, want INTERNAL from the store's check", name, err)
		}
	}
	if after := ts.dump(t); len(after) != len(before) {
		t.Fatal("a refused attachment wrote something")
	} else {
		for k, v := range before {
			if after[k] != v {
				t.Fatalf("a refused attachment changed %s", k)
			}
		}
	}
	if _, err := ts.SetAttachment(ctx, intake.Claim{ID: "att1", TokenHash: intake.HashToken(token("att1"))}, t0, &good, noPurpose); err != nil {
		t.Fatalf("a storable attachment: %v", err)
	}
}

func noPurpose(string, string) string { return "" }
