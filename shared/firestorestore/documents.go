package firestorestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
)

// introductionDoc is introductions/{id}.
type introductionDoc struct {
	State           intake.State             `firestore:"state"`
	FormID          string                   `firestore:"formId"`
	FormVersion     string                   `firestore:"formVersion"`
	Lang            string                   `firestore:"lang,omitempty"`
	Name            string                   `firestore:"name"`
	Company         string                   `firestore:"company"`
	Role            string                   `firestore:"role"`
	Email           string                   `firestore:"email"`
	Message         string                   `firestore:"message"`
	Added           map[string]string        `firestore:"added,omitempty"`
	HasConversation bool                     `firestore:"hasConversation"`
	Attachment      *intake.Attachment       `firestore:"attachment,omitempty"`
	Consents        []intake.ConsentEvidence `firestore:"consents"`
	TokenHash       []byte                   `firestore:"tokenHash"`
	CreatedAt       time.Time                `firestore:"createdAt"`
	ConfirmedAt     time.Time                `firestore:"confirmedAt,omitempty"`
	HandledAt       time.Time                `firestore:"handledAt,omitempty"`
	OpenedAt        time.Time                `firestore:"openedAt,omitempty"`
	SubjectKey      string                   `firestore:"subjectKey,omitempty"`
	ExpireAt        time.Time                `firestore:"expireAt"`
	Revisions       int                      `firestore:"revisions"`
	// LikelySpam is the signals' verdict, Spam the owner's word, Folder what they make.
	LikelySpam bool   `firestore:"likelySpam"`
	Spam       *bool  `firestore:"spam"`
	Folder     string `firestore:"folder"`
}

// recentMessageDoc is recentMessages/{message hash}: its last sender's keyed hash.
type recentMessageDoc struct {
	Sender   string    `firestore:"sender"`
	ExpireAt time.Time `firestore:"expireAt"`
}

// decoyAttachmentDoc is decoyAttachments/{decoy id}: the file a decoy was last sent, as its
// answers show it.
type decoyAttachmentDoc struct {
	Name     string    `firestore:"name"`
	Type     string    `firestore:"type"`
	Size     int64     `firestore:"size"`
	SHA256   string    `firestore:"sha256"`
	ExpireAt time.Time `firestore:"expireAt"`
}

func toIntroductionDoc(in intake.Introduction) introductionDoc {
	return introductionDoc{
		State: in.State, FormID: in.FormID, FormVersion: in.FormVersion, Lang: in.Lang,
		Name: in.Fields.Name, Company: in.Fields.Company, Role: in.Fields.Role,
		Email: in.Fields.Email, Message: in.Fields.Message, Added: in.Added,
		HasConversation: in.HasConversation, Attachment: in.Attachment, Consents: in.Consents, TokenHash: in.TokenHash,
		CreatedAt: in.CreatedAt, ConfirmedAt: in.ConfirmedAt, HandledAt: in.HandledAt, SubjectKey: in.SubjectKey, ExpireAt: in.ExpireAt, Revisions: in.Revisions,
		LikelySpam: in.LikelySpam, Spam: in.Spam, Folder: in.Folder(),
	}
}

func (d introductionDoc) introduction(id string) intake.Introduction {
	return intake.Introduction{
		ID: id, State: d.State, FormID: d.FormID, FormVersion: d.FormVersion, Lang: d.Lang,
		Fields:          intake.Fields{Name: d.Name, Company: d.Company, Role: d.Role, Email: d.Email, Message: d.Message},
		Added:           d.Added,
		HasConversation: d.HasConversation, Attachment: d.Attachment, Consents: d.Consents, TokenHash: d.TokenHash,
		CreatedAt: d.CreatedAt, ConfirmedAt: d.ConfirmedAt, HandledAt: d.HandledAt, OpenedAt: d.OpenedAt, SubjectKey: d.SubjectKey, ExpireAt: d.ExpireAt, Revisions: d.Revisions,
		LikelySpam: d.LikelySpam, Spam: d.Spam,
	}
}

// transcriptDoc is transcripts/{introduction id}.
type transcriptDoc struct {
	Text     string    `firestore:"text"`
	ExpireAt time.Time `firestore:"expireAt"`
}

// spentChallengeDoc is spentChallenges/{key}.
type spentChallengeDoc struct {
	ExpireAt time.Time `firestore:"expireAt"`
}

// rateCounterDoc is rateCounters/{layer}:{key hash}: the hits inside the window.
type rateCounterDoc struct {
	Layer    string      `firestore:"layer"`
	Hits     []time.Time `firestore:"hits"`
	ExpireAt time.Time   `firestore:"expireAt"`
}

// idempotencyDoc is idempotencyKeys/{key hash}.
type idempotencyDoc struct {
	Fingerprint    string    `firestore:"fingerprint"`
	IntroductionID string    `firestore:"introductionId"`
	SealedToken    []byte    `firestore:"sealedToken"`
	ExpireAt       time.Time `firestore:"expireAt"`
	Decoy          bool      `firestore:"decoy,omitempty"`
}

func (d idempotencyDoc) record(keyHash string) intake.IdempotencyRecord {
	return intake.IdempotencyRecord{KeyHash: keyHash, Fingerprint: d.Fingerprint,
		IntroductionID: d.IntroductionID, SealedToken: d.SealedToken, ExpireAt: d.ExpireAt, Decoy: d.Decoy}
}

// escapeKey makes key a safe document id, keeping distinct keys distinct.
func escapeKey(key string) string {
	e := url.PathEscape(key)
	switch {
	case len(e) > maxEscapedKey:
		sum := sha256.Sum256([]byte(key))
		return "%H" + hex.EncodeToString(sum[:])
	case strings.HasPrefix(e, "."):
		return "%2E" + e[1:]
	case strings.HasPrefix(e, "__"):
		return "%5F" + e[1:]
	}
	return e
}

// maxEscapedKey keeps an escaped key within Firestore's document id limit.
const maxEscapedKey = 1024

func (s *DB) doc(collection, id string) *firestore.DocumentRef {
	return s.client.Collection(collection).Doc(id)
}
func (s *DB) introductionRef(id string) *firestore.DocumentRef    { return s.doc(Introductions, id) }
func (s *DB) transcriptRef(id string) *firestore.DocumentRef      { return s.doc(Transcripts, id) }
func (s *DB) ledgerRef(id string) *firestore.DocumentRef          { return s.doc(Ledger, id) }
func (s *DB) decoyAttachmentRef(id string) *firestore.DocumentRef { return s.doc(DecoyAttachments, id) }
func (s *DB) challengeRef(key string) *firestore.DocumentRef {
	return s.doc(SpentChallenges, escapeKey(key))
}
func (s *DB) idempotencyRef(keyHash string) *firestore.DocumentRef {
	return s.doc(IdempotencyKeys, escapeKey(keyHash))
}
func (s *DB) rateCounterRef(k intake.RateKey) *firestore.DocumentRef {
	return s.doc(RateCounters, k.Layer+":"+escapeKey(k.KeyHash))
}
func (s *DB) recentMessageRef(messageHash string) *firestore.DocumentRef {
	return s.doc(RecentMessages, escapeKey(messageHash))
}

// live reports whether snap holds a document not expired at now, TTL-deleted or not.
func live(snap *firestore.DocumentSnapshot, now time.Time) bool {
	if snap == nil || !snap.Exists() {
		return false
	}
	v, _ := snap.DataAt(ExpireAtField)
	t, ok := v.(time.Time)
	return ok && now.Before(t)
}

// liveOrNotFound is NOT_FOUND for an absent or expired document, the read's error otherwise.
func liveOrNotFound(snap *firestore.DocumentSnapshot, err error, now time.Time) error {
	if status.Code(err) == codes.NotFound || err == nil && !live(snap, now) {
		return intake.ErrNotFound
	}
	return err
}

// liveIntroduction decodes introduction id, which must be live at now.
func liveIntroduction(snap *firestore.DocumentSnapshot, err error, id string, now time.Time) (intake.Introduction, error) {
	if err := liveOrNotFound(snap, err, now); err != nil {
		return intake.Introduction{}, err
	}
	var d introductionDoc
	if err := snap.DataTo(&d); err != nil {
		return intake.Introduction{}, err
	}
	return d.introduction(id), nil
}

// eachLive calls visit with each document of q live at now, stopping at the first error.
func eachLive(ctx context.Context, q firestore.Query, now time.Time, visit func(*firestore.DocumentSnapshot) error) error {
	it := q.Documents(ctx)
	defer it.Stop()
	for {
		snap, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return err
		}
		if !live(snap, now) {
			continue
		}
		if err := visit(snap); err != nil {
			return err
		}
	}
}

// lockKey is the in-process lock key of a document.
func lockKey(ref *firestore.DocumentRef) string { return ref.Path }
