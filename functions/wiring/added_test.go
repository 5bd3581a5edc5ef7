package wiring_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/formregistry"
)

// formsWithAddedField is the embedded registry plus a made-up version 3 of
// the introduction form: version 1 with one field it adds, "availability".
func formsWithAddedField(t *testing.T) *formregistry.Registry {
	t.Helper()
	v1 := readEmbeddedForm(t, "introduction/1.json")
	var m map[string]any
	if err := json.Unmarshal(v1, &m); err != nil {
		t.Fatal(err)
	}
	m["version"] = "3"
	m["fields"] = append(m["fields"].([]any), map[string]any{
		"name": "availability", "label": "When you are free to talk", "hint": "Optional.", "type": "text",
		"required": false, "maxLength": 120, "code": "FIELD_INVALID",
	})
	notice := m["notice"].(map[string]any)
	notice["textVersion"] = "introduction-notice/3-test"
	v3, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := formregistry.LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"1":"published","2":"published","3":"published"}}`)},
		"introduction/1.json":     {Data: v1},
		"introduction/2.json":     {Data: readEmbeddedForm(t, "introduction/2.json")},
		"introduction/3.json":     {Data: v3},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readEmbeddedForm reads a published version file as the registry embeds it.
func readEmbeddedForm(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "shared", "formregistry", "forms", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAddedFieldTravelsThroughTheRevision: a field a form version adds is
// kept with the draft, replaced by a revision (the answer and the stored
// draft say so), dropped by a revision that leaves it out, and a member the
// draft's version does not add is refused.
func TestAddedFieldTravelsThroughTheRevision(t *testing.T) {
	h := newHarnessWith(t, nil, dbparts.Overrides{Forms: formsWithAddedField(t)})
	created := h.postJSON("/api/introductions", h.draftBody(map[string]any{"formVersion": "3", "availability": "Mondays"}), fromAddress("198.51.100.31")...)
	if created.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", created.status, created.body)
	}
	d := created.json(t)
	id, token := d["id"].(string), d["token"].(string)
	if got := d["introduction"].(map[string]any)["added"]; !equalJSON(got, map[string]any{"availability": "Mondays"}) {
		t.Fatalf("the draft's answer: added = %v", got)
	}
	path := "/api/introductions/" + id + "/revision"

	r := h.postJSON(path, revision(token, map[string]any{"availability": "  Tuesdays after 3pm  "}))
	if r.status != http.StatusOK {
		t.Fatalf("revision: %d %s", r.status, r.body)
	}
	if got := r.json(t)["introduction"].(map[string]any)["added"]; !equalJSON(got, map[string]any{"availability": "Tuesdays after 3pm"}) {
		t.Fatalf("the revision's answer: added = %v (want the revised value, trimmed)", got)
	}
	if got := h.stored("introductions", id)["added"]; !equalJSON(got, map[string]any{"availability": "Tuesdays after 3pm"}) {
		t.Fatalf("stored added = %v", got)
	}

	// The content rules apply to it as to any field.
	long := make([]byte, 121)
	for i := range long {
		long[i] = 'x'
	}
	if r := h.postJSON(path, revision(token, map[string]any{"availability": string(long)})); r.status != http.StatusUnprocessableEntity || r.code(t) != "FIELD_INVALID" {
		t.Fatalf("too long: %d %s", r.status, r.body)
	}
	if r := h.postJSON(path, revision(token, map[string]any{"availability": 3})); r.status != http.StatusUnprocessableEntity || r.code(t) != "FIELD_INVALID" {
		t.Fatalf("not text: %d %s", r.status, r.body)
	}
	// A member version 3 does not add, and one a revision never carries.
	for _, member := range []string{"favouriteColour", "formVersion", "altcha"} {
		if r := h.postJSON(path, revision(token, map[string]any{member: "x"})); r.status != http.StatusBadRequest || r.code(t) != "UNREADABLE_BODY" {
			t.Fatalf("%s: %d %s", member, r.status, r.body)
		}
	}
	if got := h.stored("introductions", id)["added"]; !equalJSON(got, map[string]any{"availability": "Tuesdays after 3pm"}) {
		t.Fatalf("refused revisions changed added: %v", got)
	}

	// Left out, it is no longer kept.
	r = h.postJSON(path, revision(token, nil))
	if r.status != http.StatusOK {
		t.Fatalf("revision without it: %d %s", r.status, r.body)
	}
	if _, ok := r.json(t)["introduction"].(map[string]any)["added"]; ok {
		t.Fatalf("the answer still has added: %s", r.body)
	}
	if _, ok := h.stored("introductions", id)["added"]; ok {
		t.Fatal("the stored draft still has added")
	}

	// A version-1 draft's revision cannot carry it.
	v1 := h.postJSON("/api/introductions", h.draftBody(nil), fromAddress("198.51.100.32")...).json(t)
	if r := h.postJSON("/api/introductions/"+v1["id"].(string)+"/revision", revision(v1["token"].(string), map[string]any{"availability": "Mondays"})); r.status != http.StatusBadRequest || r.code(t) != "UNREADABLE_BODY" {
		t.Fatalf("version 1 revision with availability: %d %s", r.status, r.body)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
