package jsonapi

import (
	"encoding/json"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// KeptDraft is the answer showing a draft as kept, with its one-time token.
type KeptDraft struct {
	ID          string                   `json:"id"`
	State       intake.State             `json:"state"`
	ExpiresAt   time.Time                `json:"expiresAt"`
	Token       string                   `json:"token"`
	FormID      string                   `json:"formId"`
	FormVersion string                   `json:"formVersion"`
	Lang        string                   `json:"lang"` // the language the draft was (last) written in
	Kept        KeptFields               `json:"introduction"`
	Consents    []intake.ConsentEvidence `json:"consents"`
	Attachment  *intake.Attachment       `json:"attachment"` // null for none
}

// KeptFields are the introduction's fields as kept.
type KeptFields struct {
	Name         string            `json:"name"`
	Company      string            `json:"company"`
	Role         string            `json:"role"`
	Email        string            `json:"email"`
	Message      string            `json:"message"`
	Conversation string            `json:"conversation,omitempty"`
	Added        map[string]string `json:"added,omitempty"` // the form version's added fields by name
}

// KeptDraftOf is the answer for in as kept, with its token and transcript ("" when none).
func KeptDraftOf(in intake.Introduction, token, conversation string) KeptDraft {
	f := in.Fields
	return KeptDraft{
		ID: in.ID, State: in.State, ExpiresAt: in.ExpireAt.UTC(), Token: token,
		FormID: in.FormID, FormVersion: in.FormVersion, Lang: in.Lang,
		Kept:       KeptFields{Name: f.Name, Company: f.Company, Role: f.Role, Email: f.Email, Message: f.Message, Conversation: conversation, Added: in.Added},
		Consents:   in.Consents,
		Attachment: in.Attachment,
	}
}

// AttachmentAnswer is the answer to an upload: the attachment as kept.
type AttachmentAnswer struct {
	Attachment *intake.Attachment `json:"attachment"`
}

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
