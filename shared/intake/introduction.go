package intake

import "time"

// Fields are the visitor's words, as kept.
type Fields struct {
	Name    string `json:"name"`
	Company string `json:"company"`
	Role    string `json:"role"`
	Email   string `json:"email"`
	Message string `json:"message"`
}

// ConsentClaim is what the page sends for one purpose.
type ConsentClaim struct {
	Purpose     string `json:"purpose"`
	TextVersion string `json:"textVersion"`
	Given       bool   `json:"given"`
}

// ConsentEvidence records one consent as given: which text the
// visitor saw, how they agreed, when, and how to withdraw it.
type ConsentEvidence struct {
	Purpose string `json:"purpose" firestore:"purpose"`
	Basis   Basis  `json:"basis" firestore:"basis"`
	// Lang is the language the text was shown in; empty in evidence kept
	// before evidence named its language (the version file's language).
	Lang        string `json:"lang,omitempty" firestore:"lang,omitempty"`
	TextVersion string `json:"textVersion" firestore:"textVersion"`
	// TextSHA256 is the SHA-256 of the exact text shown, in Lang.
	TextSHA256      string    `json:"textSha256" firestore:"textSha256"`
	Control         string    `json:"control" firestore:"control"`
	ActivelyChecked bool      `json:"activelyChecked" firestore:"activelyChecked"`
	GivenAt         time.Time `json:"givenAt" firestore:"givenAt"`
	// ConfirmedAt is the confirm step that made the consent final; zero
	// while the introduction is a draft.
	ConfirmedAt    time.Time `json:"confirmedAt,omitzero" firestore:"confirmedAt,omitempty"`
	WithdrawalPath string    `json:"withdrawalPath" firestore:"withdrawalPath"`
}

// Basis is a purpose's declared legal basis. The code records it; it never
// decides it.
type Basis string

// The legal bases a purpose may declare (GDPR Art. 6(1)).
const (
	BasisConsent             Basis = "consent"
	BasisContract            Basis = "contract"
	BasisLegitimateInterests Basis = "legitimate_interests"
	BasisLegalObligation     Basis = "legal_obligation"
)

// Introduction is a visitor's introduction as stored. The transcript is kept
// beside it, not in it.
type Introduction struct {
	ID          string `json:"id"`
	State       State  `json:"state"`
	FormID      string `json:"formId"`
	FormVersion string `json:"formVersion"`
	// Lang is the language the visitor was shown the form in when they
	// last wrote it (the draft or its latest revision).
	Lang   string `json:"lang,omitempty"`
	Fields Fields `json:"introduction"`
	// Added holds the fields the form version adds beyond Fields, by name;
	// nil when it adds none or none was filled in.
	Added           map[string]string `json:"added,omitempty"`
	HasConversation bool              `json:"hasConversation"`
	// Attachment is the file the visitor attached; nil when none.
	Attachment  *Attachment       `json:"attachment"`
	Consents    []ConsentEvidence `json:"consents"`
	TokenHash   []byte            `json:"-"`
	CreatedAt   time.Time         `json:"createdAt"`
	ExpireAt    time.Time         `json:"expiresAt"`
	ConfirmedAt time.Time         `json:"confirmedAt,omitzero"`
	// Revisions counts how often the visitor revised the draft (Edit),
	// revisions the content rules refused included: all count toward
	// MaxRevisions.
	Revisions int `json:"revisions"`
	// HandledAt is when the owner marked it handled; zero until then.
	HandledAt time.Time `json:"handledAt,omitzero"`
	// LikelySpam is the spam signals' verdict at intake; Spam the owner's
	// word (nil until the owner says).
	LikelySpam bool  `json:"likelySpam"`
	Spam       *bool `json:"spam"`
	// SubjectKey names the data subject (contentrules.SubjectKey of the
	// email), so that every introduction of one address is found however
	// the visitor wrote it.
	SubjectKey string `json:"-"`
}

// The admin's folders: the owner's word decides, then the signals.
const (
	FolderInbox      = "inbox"
	FolderLikelySpam = "likely-spam"
	FolderSpam       = "spam"
)

// Folder is where the owner's list files the introduction: spam when the
// owner marked it so, inbox when the owner said it is not, otherwise
// likely-spam or inbox by the signals.
func (in *Introduction) Folder() string {
	switch {
	case in.Spam != nil && *in.Spam:
		return FolderSpam
	case in.Spam == nil && in.LikelySpam:
		return FolderLikelySpam
	}
	return FolderInbox
}

// SubjectQuery names one data subject for an access or erasure request:
// the subject keys their introductions may be stored under (the current
// one first, then any an earlier normal form wrote), and Owns, which says
// whether an introduction found under one of them, by its stored address,
// is theirs (an earlier form merged addresses the current one tells apart).
type SubjectQuery struct {
	Keys []string
	Owns func(email string) bool
}

// Live reports whether the introduction still exists at now: a stored
// document whose expiry has passed is treated as gone, whether or not a TTL
// policy has deleted it yet.
func (in *Introduction) Live(now time.Time) bool {
	return now.Before(in.ExpireAt)
}

// Transcript is the guide conversation a visitor attached, as they sent it.
type Transcript struct {
	IntroductionID string
	Text           string
	ExpireAt       time.Time
}

// Attachment is the one file a visitor attached to an introduction, as
// kept: its bytes are in the attachments' bucket under Object, which
// begins with the introduction's id and a slash (AttachmentPrefix).
type Attachment struct {
	// Name is the display name (the visitor's file name, cleaned), never a
	// path; "" when the visitor sent none.
	Name string `json:"name" firestore:"name"`
	// Type is the media type, sniffed from the bytes and equal to the
	// declared one.
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

// AttachmentEvidence is an attachment in the ledger: its type, size and
// SHA-256; once its introduction is withdrawn or erased, its type and size
// alone (see Tombstone).
type AttachmentEvidence struct {
	Type   string `json:"type" firestore:"type"`
	Size   int64  `json:"size" firestore:"size"`
	SHA256 string `json:"sha256,omitempty" firestore:"sha256,omitempty"`
}

// Tombstone is what a withdrawn or erased introduction's ledger entry
// keeps of its attachment: type and size, without the hash that would let
// whoever holds the file prove it was sent. Nil stays nil.
func (e *AttachmentEvidence) Tombstone() *AttachmentEvidence {
	if e == nil {
		return nil
	}
	return &AttachmentEvidence{Type: e.Type, Size: e.Size}
}

// AttachmentTypes are the media types an attachment may have, in the
// order the page names them.
var AttachmentTypes = []string{"application/pdf", "image/png", "image/jpeg", "text/plain"}

// MaxAttachmentNameLength is the most characters an attachment's display
// name keeps.
const MaxAttachmentNameLength = 120

// AttachmentPrefix is the start of the object name of every attachment
// introduction id has ever had.
func AttachmentPrefix(id string) string { return id + "/" }
