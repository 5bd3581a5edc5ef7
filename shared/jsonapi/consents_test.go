package jsonapi_test

import (
	"encoding/json"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
)

func TestReadConsents(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      []intake.ConsentClaim // nil with refused
		refused   bool
	}{
		{"absent", ``, nil, false},
		{"null", `null`, nil, false},
		{"empty", `[]`, []intake.ConsentClaim{}, false},
		{"one claim", `[{"purpose":"p","textVersion":"p/1","given":true}]`, []intake.ConsentClaim{{Purpose: "p", TextVersion: "p/1", Given: true}}, false},
		{"given in capitals", `[{"purpose":"p","textVersion":"p/1","GIVEN":true}]`, nil, true},
		{"textversion in lower case", `[{"purpose":"p","textversion":"p/1","given":true}]`, nil, true},
		{"an unknown member", `[{"purpose":"p","textVersion":"p/1","given":true,"scope":"all"}]`, nil, true},
		{"given as text", `[{"purpose":"p","textVersion":"p/1","given":"yes"}]`, nil, true},
		{"a claim that is no object", `["p"]`, nil, true},
		{"not a list", `{"purpose":"p"}`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, fe := jsonapi.ReadConsents(json.RawMessage(tc.raw))
			if tc.refused {
				if fe == nil || fe.Field != "consents" || fe.Code != intake.CodeConsentRequired || got != nil {
					t.Fatalf("ReadConsents(%s) = %+v, %+v; want CONSENT_REQUIRED on consents", tc.raw, got, fe)
				}
				return
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(tc.want)
			if fe != nil || string(a) != string(b) {
				t.Fatalf("ReadConsents(%s) = %s, %+v; want %s", tc.raw, a, fe, b)
			}
		})
	}
}
