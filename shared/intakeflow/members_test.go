package intakeflow_test

import (
	"encoding/json"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

// TestReadMembers: the members a form version names beyond the ones every
// draft carries are read from the version itself: a field it adds into
// Added (FIELD_INVALID when it is no text), its honeypot (any value but ""
// fills it); a member it does not name, or a field another version adds,
// is UNREADABLE_BODY.
func TestReadMembers(t *testing.T) {
	forms := formsWithRetiredVersion(t)
	v1, _ := forms.Find("introduction", "1")
	v3, _ := forms.Find("introduction", "3")
	cases := []struct {
		name, body string
		v3         bool
		code       intake.Code
		added      string
		honeypot   string
	}{
		{"none", `{}`, false, "", "", ""},
		{"an empty honeypot", `{"website":""}`, false, "", "", ""},
		{"a filled honeypot", `{"website":"http://spam"}`, false, "", "", "http://spam"},
		{"a honeypot filled with a number", `{"website":42}`, false, "", "", "42"},
		{"an added field", `{"availability":"Tuesdays"}`, true, "", "Tuesdays", ""},
		{"an added field left null", `{"availability":null}`, true, "", "", ""},
		{"an added field that is no text", `{"availability":3}`, true, intake.CodeFieldInvalid, "", ""},
		{"a field another version adds", `{"availability":"Tuesdays"}`, false, intake.CodeUnreadableBody, "", ""},
		{"a member no version names", `{"admin":true}`, false, intake.CodeUnreadableBody, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var members map[string]json.RawMessage
			if err := json.Unmarshal([]byte(c.body), &members); err != nil {
				t.Fatal(err)
			}
			v := v1
			if c.v3 {
				v = v3
			}
			sub, err := v.ReadMembers(intake.Submission{FormID: "introduction"}, members)
			if intake.CodeOf(err) != c.code {
				t.Fatalf("error %v, want code %q", err, c.code)
			}
			if sub.Added["availability"] != c.added || sub.Honeypot != c.honeypot {
				t.Fatalf("added %v, honeypot %q", sub.Added, sub.Honeypot)
			}
		})
	}
}
