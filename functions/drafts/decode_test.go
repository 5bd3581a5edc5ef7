package drafts

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

func honeypotWebsite(formID, version string) string {
	if formID == "introduction" && version == "1" {
		return "website"
	}
	return ""
}

// decode reads body as the handler does (one JSON object) and decodes it.
func decode(body []byte) (intake.Submission, error) {
	var members map[string]json.RawMessage
	if err := strictjson.Decode(body, &members, strictjson.RefuseUnknown); err != nil {
		return intake.Submission{}, intake.Errorf(intake.CodeUnreadableBody, "not one JSON object")
	}
	return decodeDraft(members, honeypotWebsite, nil)
}

func TestDecodeDraft(t *testing.T) {
	cases := []struct {
		name string
		body string
		code intake.Code
		want intake.Submission
	}{
		{"all members", `{"formId":"introduction","formVersion":"1","name":"Ada","company":"AE","role":"CTO","email":"a@b.example","message":"Hi","conversation":"c","consents":[{"purpose":"p","textVersion":"p/1","given":true}],"website":"","altcha":"x"}`, "",
			intake.Submission{FormID: "introduction", FormVersion: "1", Fields: intake.Fields{Name: "Ada", Company: "AE", Role: "CTO", Email: "a@b.example", Message: "Hi"}, Conversation: "c", Consents: []intake.ConsentClaim{{Purpose: "p", TextVersion: "p/1", Given: true}}, Altcha: "x"}},
		{"absent and null members are empty", `{"formId":"introduction","formVersion":"1","name":null}`, "", intake.Submission{FormID: "introduction", FormVersion: "1"}},
		{"honeypot filled", `{"formId":"introduction","formVersion":"1","website":"http://spam"}`, "", intake.Submission{FormID: "introduction", FormVersion: "1", Honeypot: "http://spam"}},
		{"honeypot filled with a non-string", `{"formId":"introduction","formVersion":"1","website":42}`, "", intake.Submission{FormID: "introduction", FormVersion: "1", Honeypot: "42"}},
		{"name not text", `{"formId":"introduction","formVersion":"1","name":7}`, intake.CodeNameInvalid, intake.Submission{}},
		{"email not text", `{"formId":"introduction","formVersion":"1","email":["a"]}`, intake.CodeEmailInvalid, intake.Submission{}},
		{"consents not a list", `{"formId":"introduction","formVersion":"1","consents":"yes"}`, intake.CodeConsentRequired, intake.Submission{}},
		{"consent member in another case", `{"formId":"introduction","formVersion":"1","consents":[{"purpose":"p","textVersion":"p/1","GIVEN":true}]}`, intake.CodeConsentRequired, intake.Submission{}},
		{"consent with an unknown member", `{"formId":"introduction","formVersion":"1","consents":[{"purpose":"p","textVersion":"p/1","given":true,"scope":"all"}]}`, intake.CodeConsentRequired, intake.Submission{}},
		{"unknown member", `{"formId":"introduction","formVersion":"1","admin":true}`, intake.CodeUnreadableBody, intake.Submission{}},
		{"unknown member with an unknown version", `{"formId":"introduction","formVersion":"9","website":""}`, "", intake.Submission{FormID: "introduction", FormVersion: "9"}},
		{"not an object", `[1,2]`, intake.CodeUnreadableBody, intake.Submission{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode([]byte(tc.body))
			if intake.CodeOf(err) != tc.code {
				t.Fatalf("error %v, want code %q", err, tc.code)
			}
			if tc.code != "" {
				return
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(tc.want)
			if string(a) != string(b) {
				t.Fatalf("got %s\nwant %s", a, b)
			}
		})
	}
}

// FuzzDecodeDraft: the decoder never panics, refuses with a documented code
// only, and what it accepts round-trips its text members unchanged.
func FuzzDecodeDraft(f *testing.F) {
	for _, seed := range []string{
		`{"formId":"introduction","formVersion":"1","name":"Ada","email":"a@b.example","message":"Hi","website":"","altcha":"x"}`,
		`{"formId":"introduction","formVersion":"1","consents":[{"purpose":"attach-conversation","textVersion":"attach-conversation/1","given":true}]}`,
		`{"name":"\u0000\ud800"}`, `{}`, `{"formId":1}`, `{"website":{"a":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return // ReadBody refuses these before the decoder
		}
		sub, err := decode(body)
		if err != nil {
			if intake.CodeOf(err) == intake.CodeInternal {
				t.Fatalf("an internal error for input %q: %v", body, err)
			}
			return
		}
		for _, s := range []string{sub.FormID, sub.FormVersion, sub.Fields.Name, sub.Fields.Email, sub.Fields.Message, sub.Conversation, sub.Altcha} {
			if !utf8.ValidString(s) {
				t.Fatalf("decoded invalid UTF-8 from %q", body)
			}
		}
	})
}

// TestDecodeAddedFields: a member a form version adds is decoded into
// Added; a non-string is FIELD_INVALID; for a version that does not add it,
// it is a member the form does not know.
func TestDecodeAddedFields(t *testing.T) {
	added := func(formID, version string) []string {
		if version == "3" {
			return []string{"availability"}
		}
		return nil
	}
	members := func(body string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	sub, err := decodeDraft(members(`{"formId":"introduction","formVersion":"3","availability":"Tuesdays"}`), honeypotWebsite, added)
	if err != nil || sub.Added["availability"] != "Tuesdays" {
		t.Fatalf("added field: %+v, %v", sub, err)
	}
	if _, err := decodeDraft(members(`{"formId":"introduction","formVersion":"3","availability":3}`), honeypotWebsite, added); intake.CodeOf(err) != intake.CodeFieldInvalid {
		t.Fatalf("added field not text: %v", err)
	}
	if _, err := decodeDraft(members(`{"formId":"introduction","formVersion":"1","availability":"Tuesdays"}`), honeypotWebsite, added); intake.CodeOf(err) != intake.CodeUnreadableBody {
		t.Fatalf("a field version 1 does not add: %v", err)
	}
}
