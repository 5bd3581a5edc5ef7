package intake

import "time"

// Fields are the visitor's words, as kept.
type Fields struct {
	Name    string `json:"name" firestore:"name"`
	Company string `json:"company" firestore:"company"`
	Role    string `json:"role" firestore:"role"`
	Email   string `json:"email" firestore:"email"`
	Message string `json:"message" firestore:"message"`
}

// ConsentClaim is what the page sends for one purpose.
type ConsentClaim struct {
	Purpose     string `json:"purpose"`
	TextVersion string `json:"textVersion"`
	Given       bool   `json:"given"`
}

// ConsentEvidence records one consent as given: the text seen, how and when, and how to
// withdraw it.
type ConsentEvidence struct {
	Purpose string `json:"purpose" firestore:"purpose"`
	Basis   Basis  `json:"basis" firestore:"basis"`
	// Lang is the language the text was shown in; empty when unknown.
	Lang        string `json:"lang,omitempty" firestore:"lang,omitempty"`
	TextVersion string `json:"textVersion" firestore:"textVersion"`
	// TextSHA256 is the SHA-256 of the exact text shown, in Lang.
	TextSHA256      string    `json:"textSha256" firestore:"textSha256"`
	Control         string    `json:"control" firestore:"control"`
	ActivelyChecked bool      `json:"activelyChecked" firestore:"activelyChecked"`
	GivenAt         time.Time `json:"givenAt" firestore:"givenAt"`
	// ConfirmedAt is when the consent became final; zero for a draft.
	ConfirmedAt    time.Time `json:"confirmedAt,omitzero" firestore:"confirmedAt,omitempty"`
	WithdrawalPath string    `json:"withdrawalPath" firestore:"withdrawalPath"`
}

// Basis is a purpose's declared legal basis, recorded, never decided.
type Basis string

// The legal bases a purpose may declare (GDPR Art. 6(1)).
const (
	BasisConsent             Basis = "consent"
	BasisContract            Basis = "contract"
	BasisLegitimateInterests Basis = "legitimate_interests"
	BasisLegalObligation     Basis = "legal_obligation"
)

// Introduction is a visitor's introduction as stored, without its transcript.
type Introduction struct {
	ID          string `json:"id" firestore:"-"`
	State       State  `json:"state" firestore:"state"`
	FormID      string `json:"formId" firestore:"formId"`
	FormVersion string `json:"formVersion" firestore:"formVersion"`
	// Lang is the language the form was shown in at the last writing.
	Lang string `json:"lang,omitempty" firestore:"lang,omitempty"`
	// Fields are stored flat, beside the other fields.
	Fields Fields `json:"introduction" firestore:"-"`
	// Added holds the fields the form version adds, by name; nil when none.
	Added           map[string]string `json:"added,omitempty" firestore:"added,omitempty"`
	HasConversation bool              `json:"hasConversation" firestore:"hasConversation"`
	// Attachment is the file the visitor attached; nil when none.
	Attachment  *Attachment       `json:"attachment" firestore:"attachment,omitempty"`
	Consents    []ConsentEvidence `json:"consents" firestore:"consents"`
	TokenHash   []byte            `json:"-" firestore:"tokenHash"`
	CreatedAt   time.Time         `json:"createdAt" firestore:"createdAt"`
	ExpireAt    time.Time         `json:"expiresAt" firestore:"expireAt"`
	ConfirmedAt time.Time         `json:"confirmedAt,omitzero" firestore:"confirmedAt,omitempty"`
	// Revisions counts the draft's revisions, refused ones included, toward MaxRevisions.
	Revisions int `json:"revisions" firestore:"revisions"`
	// HandledAt is when the owner marked it handled; zero until then.
	HandledAt time.Time `json:"handledAt,omitzero" firestore:"handledAt,omitempty"`
	// OpenedAt is when the owner first opened it in the admin; zero until then.
	OpenedAt time.Time `json:"openedAt,omitzero" firestore:"openedAt,omitempty"`
	// LikelySpam is the signals' verdict at intake; Spam the owner's word (nil until said).
	LikelySpam bool  `json:"likelySpam" firestore:"likelySpam"`
	Spam       *bool `json:"spam" firestore:"spam"`
	// SubjectKey names the data subject (contentrules.SubjectKey of the email).
	SubjectKey string `json:"-" firestore:"subjectKey,omitempty"`
}

// The admin's folders: the owner's word decides, then the signals.
const (
	FolderInbox      = "inbox"
	FolderLikelySpam = "likely-spam"
	FolderSpam       = "spam"
	// FolderWaiting lists the confirmed ones neither handled nor marked spam.
	FolderWaiting = "waiting"
)

// Folder is where the owner's list files the introduction: the owner's word first, then the
// signals'.
func (in *Introduction) Folder() string {
	switch {
	case in.Spam != nil && *in.Spam:
		return FolderSpam
	case in.Spam == nil && in.LikelySpam:
		return FolderLikelySpam
	}
	return FolderInbox
}

// SubjectQuery names one data subject: the subject keys their introductions may be stored
// under, current first, and Owns, which says whether one found is theirs.
type SubjectQuery struct {
	Keys []string
	Owns func(email string) bool
}

// Live reports whether the introduction has not expired at now, TTL-deleted or not.
func (in *Introduction) Live(now time.Time) bool {
	return now.Before(in.ExpireAt)
}

// Transcript is the guide conversation a visitor attached, as they sent it.
type Transcript struct {
	IntroductionID string
	Text           string
	ExpireAt       time.Time
}

// Attachment is the one file attached to an introduction; its bytes are at Object, under
// AttachmentPrefix.
type Attachment struct {
	// Name is the cleaned display name, never a path; "" when none was sent.
	Name string `json:"name" firestore:"name"`
	// Type is the media type, sniffed and equal to the declared one.
	Type   string `json:"type" firestore:"type"`
	Size   int64  `json:"size" firestore:"size"`
	SHA256 string `json:"sha256" firestore:"sha256"`
	Object string `json:"-" firestore:"object"`
}

// Evidence is what the ledger keeps of the attachment: no name, no bytes.
func (a *Attachment) Evidence() *AttachmentEvidence {
	if a == nil {
		return nil
	}
	return &AttachmentEvidence{Type: a.Type, Size: a.Size, SHA256: a.SHA256}
}

// AttachmentEvidence is an attachment in the ledger: type, size and SHA-256.
type AttachmentEvidence struct {
	Type   string `json:"type" firestore:"type"`
	Size   int64  `json:"size" firestore:"size"`
	SHA256 string `json:"sha256,omitempty" firestore:"sha256,omitempty"`
}

// Tombstone is what a withdrawn or erased entry keeps: type and size, no hash. Nil stays nil.
func (e *AttachmentEvidence) Tombstone() *AttachmentEvidence {
	if e == nil {
		return nil
	}
	return &AttachmentEvidence{Type: e.Type, Size: e.Size}
}

// AttachmentTypes are the media types an attachment may have.
var AttachmentTypes = []string{"application/pdf", "image/png", "image/jpeg", "text/plain"}

// MaxAttachmentNameLength caps an attachment's display name, in characters.
const MaxAttachmentNameLength = 120

// AttachmentPrefix starts every object name of introduction id's attachments.
func AttachmentPrefix(id string) string { return id + "/" }
