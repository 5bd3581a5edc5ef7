package intake

import (
	"fmt"
	"time"
)

// MaxRevisions is how many times one draft may be revised, counting the
// revisions the content rules refused; the next revision is refused
// RATE_LIMITED until the draft expires.
const MaxRevisions = 20

// Revision is a draft's new content as the content rules keep it, with the
// evidence that goes with it. Revising keeps the draft's id, token, form
// version and expiry.
type Revision struct {
	// Lang is the language the revision was written in (see
	// Introduction.Lang).
	Lang   string
	Fields Fields
	// Added replaces the fields the form version adds; nil for none.
	Added map[string]string
	// Conversation is the transcript as kept, "" for none (a transcript
	// kept before is then deleted).
	Conversation string
	Consents     []ConsentEvidence
	// Purposes and Stored update the ledger entry (content-free).
	Purposes []PurposeRecord
	Stored   []string
	// SubjectKey names the data subject of the revised email (see
	// Introduction.SubjectKey).
	SubjectKey string
	// Refusal, when set, is the content rules' refusal of the revision
	// (and every other field is unset): the draft keeps its content, and
	// the refused revision counts toward MaxRevisions all the same, so that
	// refusals cannot be had without end (see RefuseRevisionBy).
	Refusal *Error
}

// RevisableBy reports whether the holder of tokenHash may revise the
// introduction at now. Errors: ErrNotFound for a wrong token or a draft that
// is gone (exactly as a confirmation answers them); STATE_CONFLICT for an
// introduction already confirmed; RATE_LIMITED (with RetryAfter until the
// draft expires) once it was revised MaxRevisions times.
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

// ReviseBy replaces the content of the introduction with r for the holder
// of tokenHash at now (its language, fields, added fields, consents and
// whether it has a conversation) and counts the revision; id, token hash, form version
// and expiry stay. Errors: those of RevisableBy.
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

// RefuseRevisionBy counts a revision the content rules refused for the
// holder of tokenHash at now: the content stays as it was, and the refusal
// counts toward MaxRevisions as a revision does. Errors: those of
// RevisableBy.
func (in *Introduction) RefuseRevisionBy(tokenHash []byte, now time.Time) error {
	if err := in.RevisableBy(tokenHash, now); err != nil {
		return err
	}
	in.Revisions++
	return nil
}

// AttachableBy reports whether the holder of tokenHash may attach a file
// to the introduction, replace or remove it, at now: only while it is a
// live draft. Errors: ErrNotFound (as RevisableBy), STATE_CONFLICT once it
// is confirmed.
func (in *Introduction) AttachableBy(tokenHash []byte, now time.Time) error {
	if !in.heldBy(tokenHash, now) {
		return ErrNotFound
	}
	if in.State != StateDraft {
		return &Error{Code: CodeStateConflict, Detail: "This introduction was already confirmed; its attachment can no longer change."}
	}
	return nil
}
