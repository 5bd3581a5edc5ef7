package intakeflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/intakeflow"
)

// oneDraft is a Reviser holding one kept draft, revised as the store does
// (RevisableBy, then ReviseBy or RefuseRevisionBy).
type oneDraft struct{ in intake.Introduction }

func (d *oneDraft) ReviseDraft(_ context.Context, c intake.Claim, now time.Time,
	revise func(intake.Introduction) (intake.Revision, error)) (*intake.Introduction, error) {
	tokenHash := c.TokenHash
	if c.ID != d.in.ID || c.Decoy() {
		return nil, intake.ErrNotFound
	}
	in := d.in
	if err := in.RevisableBy(tokenHash, now); err != nil {
		return nil, err
	}
	r, err := revise(in)
	if err != nil {
		return nil, err
	}
	if r.Refusal != nil {
		if err := in.RefuseRevisionBy(tokenHash, now); err != nil {
			return nil, err
		}
		d.in = in
		return nil, r.Refusal
	}
	if err := in.ReviseBy(tokenHash, now, r); err != nil {
		return nil, err
	}
	d.in = in
	return &in, nil
}

// formsWithRetiredVersion is the embedded registry plus a version 3 of the
// introduction form, retired: version 1 with a message of at most 50
// characters and a field of its own, "availability" (at most 20).
func formsWithRetiredVersion(t *testing.T) *formregistry.Registry {
	t.Helper()
	dir := filepath.Join("..", "formregistry", "forms", "introduction")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var v3 map[string]any
	if err := json.Unmarshal(read("1.json"), &v3); err != nil {
		t.Fatal(err)
	}
	v3["version"] = "3"
	for _, f := range v3["fields"].([]any) {
		if f := f.(map[string]any); f["name"] == "message" {
			f["maxLength"] = 50
		}
	}
	v3["fields"] = append(v3["fields"].([]any), map[string]any{
		"name": "availability", "label": "When you are free to talk", "hint": "Optional.", "type": "text",
		"required": false, "maxLength": 20, "code": "FIELD_INVALID",
	})
	v3["notice"].(map[string]any)["textVersion"] = "introduction-notice/3-test"
	b, err := json.Marshal(v3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := formregistry.LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"published","2":"published","3":"retired"}}`)},
		"introduction/1.json":     {Data: read("1.json")},
		"introduction/2.json":     {Data: read("2.json")},
		"introduction/3.json":     {Data: b},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestADraftOfARetiredVersionIsRevisedUnderItsOwnRules: a draft kept under
// version 3, retired since, is still revised — under version 3's rules,
// not refused as unknown and not judged by a published version's.
func TestADraftOfARetiredVersionIsRevisedUnderItsOwnRules(t *testing.T) {
	forms := formsWithRetiredVersion(t)
	if _, err := forms.Version("introduction", "3"); intake.CodeOf(err) != intake.CodeFormVersionUnknown {
		t.Fatalf("version 3 is not retired: %v", err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const token = "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT"
	draft := &oneDraft{in: intake.Introduction{ID: "AAAAAAAAAAAAAAAAAAAAAA", State: intake.StateDraft, FormID: "introduction", FormVersion: "3",
		Fields: intake.Fields{Name: "Ada", Email: "ada@example.com", Message: "Hello."}, Added: map[string]string{"availability": "Mondays"},
		TokenHash: intake.HashToken(token), CreatedAt: now, ExpireAt: now.Add(30 * time.Minute)}}
	f := newFixtureWith(t, func(d *intakeflow.Deps) { d.Forms, d.Reviser = forms, draft })
	revise := func(fields intake.Fields, added map[string]string) (*intakeflow.Draft, error) {
		return f.svc.Revise(context.Background(), intakeflow.RevisionRequest{TokenRequest: intakeflow.TokenRequest{ID: draft.in.ID, Token: token},
			Submission: intake.Submission{Fields: fields, Added: added}})
	}
	fields := intake.Fields{Name: "Ada King", Email: "ada@example.com", Message: "Revised."}

	d, err := revise(fields, map[string]string{"availability": " Tuesdays "})
	if err != nil {
		t.Fatalf("revising a draft of a retired version: %v", err)
	}
	if in := d.Introduction; in.FormVersion != "3" || in.Fields.Name != "Ada King" || in.Added["availability"] != "Tuesdays" || in.Revisions != 1 {
		t.Fatalf("revised %+v", in)
	}
	// Version 3's own limits: availability at most 20 characters (no
	// published version has the field), the message at most 50 (a published
	// one allows 4,000).
	if _, err := revise(fields, map[string]string{"availability": strings.Repeat("x", 21)}); intake.CodeOf(err) != intake.CodeFieldInvalid {
		t.Fatalf("availability over version 3's limit: %v, want FIELD_INVALID", err)
	}
	long := fields
	long.Message = strings.Repeat("m", 51)
	if _, err := revise(long, nil); intake.CodeOf(err) != intake.CodeMessageInvalid {
		t.Fatalf("a message over version 3's limit: %v, want MESSAGE_INVALID", err)
	}
	if draft.in.Fields.Name != "Ada King" || draft.in.Revisions != 3 {
		t.Fatalf("after two refused revisions the draft is %+v (want its content kept, three revisions counted)", draft.in)
	}
}
