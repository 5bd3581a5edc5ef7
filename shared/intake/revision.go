package intake

import (
	"fmt"
	"time"
)

// MaxRevisions is how many times one draft may be revised, refused revisions included; the
// next is RATE_LIMITED.
const MaxRevisions = 20

// Revision is a draft's new content as the content rules keep it; id, token, form version and
// expiry stay.
type Revision struct {
	// Lang is the language the revision was written in.
	Lang   string
	Fields Fields
	// Added replaces the fields the form version adds; nil for none.
	Added map[string]string
	// Conversation is the transcript as kept, "" for none.
	Conversation string
	Consents     []ConsentEvidence
	// Purposes and Stored update the ledger entry (content-free).
	Purposes []PurposeRecord
	Stored   []string
	// SubjectKey names the revised email's data subject.
	SubjectKey string
	// Refusal, when set, is the content rules' refusal (every other field unset): the content
	// stays and the revision counts all the same.
	Refusal *Error
}

// RevisableBy reports whether the holder of tokenHash may revise the introduction at now.
// Errors: ErrNotFound; STATE_CONFLICT once confirmed; RATE_LIMITED after MaxRevisions.
func (in *Introduction) RevisableBy(tokenHash []byte, now time.Time) error {
	if !in.heldBy(tokenHash, now) {
		return ErrNotFound
	}
	if in.State != StateDraft {
		return &Error{Code: CodeStateConflict, Detail: "This introduction was already confirmed; it can no longer be edited."}
	}
	if in.Revisions >= MaxRevisions {
		return &Error{Code: CodeRateLimited, RetryAfter: in.ExpireAt.Sub(now),
			Detail: fmt.Sprintf("This draft was already revised %d times, the most allowed. Please send it as a new draft.", MaxRevisions)}
	}
	return nil
}

// ReviseBy replaces the content with r and counts the revision. Errors: those of RevisableBy.
func (in *Introduction) ReviseBy(tokenHash []byte, now time.Time, r Revision) error {
	if err := in.RevisableBy(tokenHash, now); err != nil {
		return err
	}
	in.Fields = r.Fields
	in.Lang = r.Lang
	in.Added = r.Added
	in.HasConversation = r.Conversation != ""
	in.Consents = r.Consents
	in.SubjectKey = r.SubjectKey
	in.Revisions++
	return nil
}

// RefuseRevisionBy counts a refused revision, the content unchanged. Errors: those of
// RevisableBy.
func (in *Introduction) RefuseRevisionBy(tokenHash []byte, now time.Time) error {
	if err := in.RevisableBy(tokenHash, now); err != nil {
		return err
	}
	in.Revisions++
	return nil
}

// AttachableBy reports whether the holder of tokenHash may change the attachment at now.
// Errors: ErrNotFound; STATE_CONFLICT once confirmed.
func (in *Introduction) AttachableBy(tokenHash []byte, now time.Time) error {
	if !in.heldBy(tokenHash, now) {
		return ErrNotFound
	}
	if in.State != StateDraft {
		return &Error{Code: CodeStateConflict, Detail: "This introduction was already confirmed; its attachment can no longer change."}
	}
	return nil
}
