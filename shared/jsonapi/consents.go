package jsonapi

import (
	"encoding/json"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// ReadConsents reads the "consents" member: absent or null is none, otherwise a list of
// claims of exactly "purpose", "textVersion" and "given". Anything else is CONSENT_REQUIRED
// on "consents".
func ReadConsents(raw json.RawMessage) ([]intake.ConsentClaim, *intake.FieldError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	unreadable := &intake.FieldError{Field: "consents", Code: intake.CodeConsentRequired, Detail: `Must be a list of {"purpose", "textVersion", "given"}.`}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, unreadable
	}
	claims := make([]intake.ConsentClaim, 0, len(items))
	for _, item := range items {
		var c intake.ConsentClaim
		if err := strictjson.Decode(item, &c, strictjson.RefuseUnknown); err != nil {
			return nil, unreadable
		}
		claims = append(claims, c)
	}
	return claims, nil
}
