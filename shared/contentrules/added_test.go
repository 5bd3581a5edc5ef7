package contentrules

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
)

// withAddedField is introduction version 1 republished as version 3 with
// an optional field of its own, "availability".
func withAddedField(t *testing.T) *formregistry.Version {
	t.Helper()
	raw, err := os.ReadFile("../formregistry/forms/introduction/1.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["version"] = "3"
	m["fields"] = append(m["fields"].([]any), map[string]any{"name": "availability", "label": "When you are free to talk",
		"hint": "", "type": "text", "required": false, "maxLength": 20, "code": "FIELD_INVALID"})
	v3, _ := json.Marshal(m)
	r, err := formregistry.LoadFS(fstest.MapFS{
		"introduction/index.json": {Data: []byte(`{"formId":"introduction","versions":{"3":"published"}}`)},
		"introduction/3.json":     {Data: v3},
	})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := r.Find("introduction", "3")
	return v
}

// TestCheckAddedField: a field a version adds is normalised, checked and
// kept like any other; one the version does not add is dropped, never
// stored unchecked.
func TestCheckAddedField(t *testing.T) {
	v := withAddedField(t)
	s := good()
	s.FormVersion = "3"
	s.Added = map[string]string{"availability": "  Tuesdays  ", "shoeSize": "44"}
	kept, errs := Check(v, s)
	if errs != nil || len(kept.Added) != 1 || kept.Added["availability"] != "Tuesdays" {
		t.Fatalf("Check = %+v, %v", kept.Added, errs)
	}
	again, errs := Check(v, kept)
	if errs != nil || again.Added["availability"] != "Tuesdays" {
		t.Fatalf("Check is not stable on its own output: %+v %v", again.Added, errs)
	}
	s.Added = map[string]string{"availability": strings.Repeat("x", 21)}
	if _, errs := Check(v, s); len(errs) != 1 || errs[0].Field != "availability" || errs[0].Code != intake.CodeFieldInvalid {
		t.Fatalf("too long: %+v", errs)
	}
	s.Added = nil
	if kept, errs := Check(v, s); errs != nil || kept.Added != nil {
		t.Fatalf("left empty: %+v %v", kept.Added, errs)
	}
}
