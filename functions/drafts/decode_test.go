package drafts

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// decode reads body as the handler does (one JSON object) and decodes it.
func decode(body []byte) (intake.Submission, map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := strictjson.Decode(body, &members, strictjson.RefuseUnknown); err != nil {
		return intake.Submission{}, nil, intake.Errorf(intake.CodeUnreadableBody, "not one JSON object")
	}
	return decodeDraft(members)
}

func TestDecodeDraft(t *testing.T) {
	cases := []struct {
		name string
		body string
		code intake.Code
		want intake.Submission
		rest string // the members left for the service, as JSON
	}{
		{"all members", `{"formId":"introduction","formVersion":"1","name":"Ada","company":"AE","role":"CTO","email":"a@b.example","message":"Hi","conversation":"c","consents":[{"purpose":"p","textVersion":"p/1","given":true}],"website":"","altcha":"x"}`, "",
			intake.Submission{FormID: "introduction", FormVersion: "1", Fields: intake.Fields{Name: "Ada", Company: "AE", Role: "CTO", Email: "a@b.example", Message: "Hi"}, Conversation: "c", Consents: []intake.ConsentClaim{{Purpose: "p", TextVersion: "p/1", Given: true}}, Altcha: "x"}, `{"website":""}`},
		{"absent and null members are empty", `{"formId":"introduction","formVersion":"1","name":null}`, "", intake.Submission{FormID: "introduction", FormVersion: "1"}, `{}`},
		{"other members left as they are", `{"formId":"introduction","formVersion":"1","website":42,"admin":true}`, "", intake.Submission{FormID: "introduction", FormVersion: "1"}, `{"admin":true,"website":42}`},
		{"name not text", `{"formId":"introduction","formVersion":"1","name":7}`, intake.CodeNameInvalid, intake.Submission{}, ""},
		{"email not text", `{"formId":"introduction","formVersion":"1","email":["a"]}`, intake.CodeEmailInvalid, intake.Submission{}, ""},
		{"consents not a list", `{"formId":"introduction","formVersion":"1","consents":"yes"}`, intake.CodeConsentRequired, intake.Submission{}, ""},
		{"consent member in another case", `{"formId":"introduction","formVersion":"1","consents":[{"purpose":"p","textVersion":"p/1","GIVEN":true}]}`, intake.CodeConsentRequired, intake.Submission{}, ""},
		{"consent with an unknown member", `{"formId":"introduction","formVersion":"1","consents":[{"purpose":"p","textVersion":"p/1","given":true,"scope":"all"}]}`, intake.CodeConsentRequired, intake.Submission{}, ""},
		{"not an object", `[1,2]`, intake.CodeUnreadableBody, intake.Submission{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, rest, err := decode([]byte(tc.body))
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
			if r, _ := json.Marshal(rest); string(r) != tc.rest {
				t.Fatalf("rest %s, want %s", r, tc.rest)
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
		sub, _, err := decode(body)
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
