package jsonapi

import (
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// KeptDraft is the answer showing a draft as kept, with its one-time token.
type KeptDraft struct {
	ID          string       `json:"id"`
	State       intake.State `json:"state"`
	ExpiresAt   time.Time    `json:"expiresAt"`
	Token       string       `json:"token"`
	FormID      string       `json:"formId"`
	FormVersion string       `json:"formVersion"`
	// Lang is the language the draft was (last) written in.
	Lang     string                   `json:"lang"`
	Kept     KeptFields               `json:"introduction"`
	Consents []intake.ConsentEvidence `json:"consents"`
	// Attachment is the file attached to the draft, null for none.
	Attachment *intake.Attachment `json:"attachment"`
}

// KeptFields are the introduction's fields as kept.
type KeptFields struct {
	Name         string `json:"name"`
	Company      string `json:"company"`
	Role         string `json:"role"`
	Email        string `json:"email"`
	Message      string `json:"message"`
	Conversation string `json:"conversation,omitempty"`
	// Added are the fields the form version adds, by name, as kept.
	Added map[string]string `json:"added,omitempty"`
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
