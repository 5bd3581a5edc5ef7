package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// keepConfirmed keeps and confirms draft id at at.
func (ts *testStore) keepConfirmed(t *testing.T, id string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft(id, at)); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, at, keepFor, nil); err != nil {
		t.Fatal(err)
	}
}

// TestTheOwnersViewTreatsExpiredAndDraftsAsAbsent: the list, the record
// and the handle move skip what has expired (whether or not the TTL policy
// has deleted it) and never show a draft; the ledger records the
// confirmation time the daily figures count by.
func TestTheOwnersViewTreatsExpiredAndDraftsAsAbsent(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	ts.keepConfirmed(t, "old", t0.Add(-keepFor-time.Hour)) // expired by t0
	ts.keepConfirmed(t, "new", t0.Add(-time.Hour))
	if _, err := ts.KeepDraft(ctx, draft("draft", t0)); err != nil {
		t.Fatal(err)
	}
	recs, next, err := ts.ListIntroductions(ctx, "", nil, 10, t0)
	if err != nil || next != nil || len(recs) != 1 || recs[0].Introduction.ID != "new" || recs[0].Ledger.Decision != intake.DecisionHandoffPending {
		t.Fatalf("list = %+v, %v, %v", recs, next, err)
	}
	if !recs[0].Ledger.ConfirmedAt.Equal(t0.Add(-time.Hour)) {
		t.Errorf("ledger confirmedAt %v", recs[0].Ledger.ConfirmedAt)
	}
	for _, id := range []string{"old", "draft", "none"} {
		if _, err := ts.Record(ctx, id, t0); intake.CodeOf(err) != intake.CodeNotFound {
			t.Errorf("Record(%s) = %v, want NOT_FOUND", id, err)
		}
		if _, err := ts.MarkHandled(ctx, id, "owner", t0); intake.CodeOf(err) != intake.CodeNotFound {
			t.Errorf("MarkHandled(%s) = %v, want NOT_FOUND", id, err)
		}
	}
	rec, err := ts.Record(ctx, "new", t0)
	if err != nil || rec.Conversation != canary("transcript", "new") || len(rec.Envelopes) != 0 {
		t.Fatalf("Record(new) = %+v, %v", rec, err)
	}
	// A data subject's records include their live draft, never what expired.
	subject, err := ts.SubjectRecords(ctx, intake.SubjectQuery{Keys: []string{""}}, t0)
	if err != nil || len(subject) != 0 {
		t.Fatalf("records without a subject key: %+v, %v", subject, err)
	}
}

// TestAdminActionsAreBounded: the ledger keeps the newest MaxStoredList
// admin actions, so a much-retried delivery never makes an entry the store
// refuses.
func TestAdminActionsAreBounded(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	ts.keepConfirmed(t, "busy", t0)
	for i := 0; i < intake.MaxStoredList+3; i++ {
		if err := ts.RecordAdminAction(ctx, "busy", intake.AdminAction{At: t0.Add(time.Duration(i) * time.Second), Actor: "owner", Action: intake.ActionRetry, Target: "env"}); err != nil {
			t.Fatalf("action %d: %v", i, err)
		}
	}
	rec, err := ts.Record(ctx, "busy", t0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Ledger.AdminActions); n != intake.MaxStoredList || !rec.Ledger.AdminActions[n-1].At.Equal(t0.Add(time.Duration(intake.MaxStoredList+2)*time.Second)) {
		t.Errorf("%d actions, last at %v", n, rec.Ledger.AdminActions[n-1].At)
	}
	if err := ts.RecordAdminAction(ctx, "nobody", intake.AdminAction{At: t0, Actor: "owner", Action: intake.ActionRetry}); intake.CodeOf(err) != intake.CodeNotFound {
		t.Errorf("an action on no entry: %v", err)
	}
}

// TestOwnersSideUnreachable: with Firestore down every admin method answers
// UNAVAILABLE with a RetryAfter (its OpTimeout bounds the wait), never a
// vendor error.
func TestOwnersSideUnreachable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Config{Project: "unreachable", Database: "introductions", OpTimeout: 300 * time.Millisecond}, discard, unreachable(t)...)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.Owner()
	calls := map[string]func() error{
		"ListIntroductions": func() error { _, _, err := s.ListIntroductions(ctx, "", nil, 50, t0); return err },
		"Record":            func() error { _, err := s.Record(ctx, "x", t0); return err },
		"MarkHandled":       func() error { _, err := s.MarkHandled(ctx, "x", "owner", t0); return err },
		"RecordAdminAction": func() error {
			return s.RecordAdminAction(ctx, "x", intake.AdminAction{At: t0, Actor: "owner", Action: intake.ActionRetry})
		},
		"SubjectRecords": func() error {
			_, err := s.SubjectRecords(ctx, intake.SubjectQuery{Keys: []string{"k"}}, t0)
			return err
		},
		"EraseSubject": func() error {
			_, _, err := s.EraseSubject(ctx, intake.SubjectQuery{Keys: []string{"k"}}, intake.ErasureRecord{At: t0, RequestedBy: "owner"}, nil)
			return err
		},
		"MarkSpam":  func() error { _, err := s.MarkSpam(ctx, "x", "owner", true, t0); return err },
		"CountSpam": func() error { _, err := s.CountSpam(ctx); return err },
		"EraseSpam": func() error {
			_, _, err := s.EraseSpam(ctx, intake.ErasureRecord{At: t0, RequestedBy: "owner"}, nil)
			return err
		},
		"DailyFigures":    func() error { _, err := s.DailyFigures(ctx, []string{"2026-11-29"}); return err },
		"CountDay":        func() error { _, err := s.CountDay(ctx, t0, 1000); return err },
		"PutDailyFigures": func() error { return s.PutDailyFigures(ctx, intake.DailyFigures{Day: "2026-11-29", ExpireAt: t0}) },
	}
	for name, call := range calls {
		err := call()
		var ie *intake.Error
		if !errors.As(err, &ie) || ie.Code != intake.CodeUnavailable || ie.RetryAfter <= 0 {
			t.Errorf("%s = %v, want UNAVAILABLE with RetryAfter", name, err)
		}
	}
}

// TestARevisedEmailMovesTheDraftToItsNewSubject: a draft whose email the
// visitor revised is found under the new address only.
func TestARevisedEmailMovesTheDraftToItsNewSubject(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	k := draft("moved", t0)
	k.Introduction.SubjectKey = "subject-old"
	if _, err := ts.KeepDraft(ctx, k); err != nil {
		t.Fatal(err)
	}
	r := revisionOf("moved", "")
	r.SubjectKey = "subject-new"
	if _, err := ts.ReviseDraft(ctx, intake.Claim{ID: "moved", TokenHash: intake.HashToken(token("moved"))}, t0.Add(time.Minute), func(intake.Introduction) (intake.Revision, error) { return r, nil }); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"subject-old": 0, "subject-new": 1} {
		recs, err := ts.SubjectRecords(ctx, intake.SubjectQuery{Keys: []string{key}}, t0.Add(2*time.Minute))
		if err != nil || len(recs) != want {
			t.Errorf("SubjectRecords(%s) = %d records, %v; want %d", key, len(recs), err, want)
		}
	}
}

// TestSubjectLookUpsAskEveryKeyAndKeepWhatTheSubjectOwns: SubjectRecords
// and EraseSubject find the introductions stored under any of the query's
// keys, and keep (and erase) only those whose stored address it owns.
func TestSubjectLookUpsAskEveryKeyAndKeepWhatTheSubjectOwns(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for id, key := range map[string]string{"current": "key-v2", "legacy": "key-v1", "merged": "key-v1", "stranger": "key-other"} {
		k := draft(id, t0)
		k.Introduction.SubjectKey = key
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	owned := map[string]bool{canary("email", "current") + "@example.com": true, canary("email", "legacy") + "@example.com": true}
	q := intake.SubjectQuery{Keys: []string{"key-v2", "key-v1"}, Owns: func(email string) bool { return owned[email] }}
	recs, err := ts.SubjectRecords(ctx, q, t0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Introduction.ID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"current", "legacy"}) {
		t.Errorf("SubjectRecords found %v, want [current legacy]", got)
	}
	erased, _, err := ts.EraseSubject(ctx, q, intake.ErasureRecord{At: t0, RequestedBy: "owner", Reason: "request"}, nil)
	n := len(erased)
	if err != nil || n != 2 {
		t.Fatalf("EraseSubject = %d, %v; want 2", n, err)
	}
	for id, gone := range map[string]bool{"current": true, "legacy": true, "merged": false, "stranger": false} {
		snap, err := ts.client.Collection(Introductions).Doc(id).Get(ctx)
		if exists := err == nil && snap.Exists(); exists == gone {
			t.Errorf("%s: exists %v after the erasure, want %v", id, exists, !gone)
		}
	}
}

// TestListIntroductionsPagesHoldEachRowOnce: walking the list a page at a
// time from each page's next position yields every confirmed introduction
// exactly once, newest confirmation first with ties by id descending, and
// no next position after the last page.
func TestListIntroductionsPagesHoldEachRowOnce(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	var want []string
	for i := range 8 {
		id := fmt.Sprintf("row-%d", i)
		// Pairs share a confirmation time, so pages end inside ties.
		ts.keepConfirmed(t, id, t0.Add(-time.Duration(i/2)*time.Minute))
		want = append(want, id)
	}
	slices.SortFunc(want, func(a, b string) int {
		ai, bi := a[len(a)-1]-'0', b[len(b)-1]-'0'
		if ai/2 != bi/2 {
			return int(ai/2) - int(bi/2) // newer (smaller i/2) first
		}
		return strings.Compare(b, a) // ties by id, descending
	})
	var got []string
	var after *intake.ListPosition
	for page := 0; ; page++ {
		if page > len(want) {
			t.Fatalf("still paging after %d pages: the next position does not advance", page)
		}
		recs, next, err := ts.ListIntroductions(ctx, "", after, 3, t0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got = append(got, r.Introduction.ID)
		}
		if next == nil {
			break
		}
		after = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the pages hold %v, want %v", got, want)
	}
}

// TestMarkHandledRecordsItsLedgerAction: the handle move and the admin
// action that records who made it and when are written together.
func TestMarkHandledRecordsItsLedgerAction(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	ts.keepConfirmed(t, "handle-me", t0.Add(-time.Hour))
	in, err := ts.MarkHandled(ctx, "handle-me", "owner@site.example", t0)
	if err != nil || in.State != intake.StateHandled || !in.HandledAt.Equal(t0) {
		t.Fatalf("MarkHandled = %+v, %v", in, err)
	}
	rec, err := ts.Record(ctx, "handle-me", t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []intake.AdminAction{{At: t0, Actor: "owner@site.example", Action: intake.ActionHandled}}
	if rec.Introduction.State != intake.StateHandled || !reflect.DeepEqual(rec.Ledger.AdminActions, want) {
		t.Fatalf("after the handle move: state %s, admin actions %+v; want HANDLED and %+v", rec.Introduction.State, rec.Ledger.AdminActions, want)
	}
	if _, err := ts.MarkHandled(ctx, "handle-me", "owner@site.example", t0.Add(time.Minute)); intake.CodeOf(err) != intake.CodeStateConflict {
		t.Fatalf("handled twice: %v, want STATE_CONFLICT", err)
	}
	if rec, _ := ts.Record(ctx, "handle-me", t0); len(rec.Ledger.AdminActions) != 1 {
		t.Fatalf("a refused handle move recorded an action: %+v", rec.Ledger.AdminActions)
	}
}

// TestErasureRemovesTheTranscriptAndEnvelopes: erasing a data subject's
// introduction deletes the introduction, its transcript and every envelope
// of it, and leaves a tombstone (the erasure record, its admin action, the
// reason) in its ledger entry; another introduction keeps all of its own.
func TestErasureRemovesTheTranscriptAndEnvelopes(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	at := t0.Add(-time.Hour)
	for _, id := range []string{"erase-me", "keep-me"} {
		k := draft(id, at)
		k.Introduction.SubjectKey = "key-" + id
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, at, keepFor, fullOutbox(id, at)); err != nil {
			t.Fatal(err)
		}
	}
	e := intake.ErasureRecord{At: t0, RequestedBy: "owner@site.example", Reason: "the data subject's erasure request"}
	if erased, _, err := ts.EraseSubject(ctx, intake.SubjectQuery{Keys: []string{"key-erase-me"}}, e, nil); err != nil || len(erased) != 1 {
		t.Fatalf("EraseSubject = %v, %v", erased, err)
	}
	exists := func(coll, id string) bool {
		snap, err := ts.client.Collection(coll).Doc(id).Get(ctx)
		return err == nil && snap.Exists()
	}
	for id, kept := range map[string]bool{"erase-me": false, "keep-me": true} {
		if exists(Introductions, id) != kept || exists(Transcripts, id) != kept {
			t.Errorf("%s: introduction kept %v, transcript kept %v; want both %v", id, exists(Introductions, id), exists(Transcripts, id), kept)
		}
		for _, d := range []intake.Destination{intake.DestinationInbox, intake.DestinationEmail, intake.DestinationWebhook} {
			if env := intake.EnvelopeID(id, d, intake.EventConfirmed); exists(Envelopes, env) != kept {
				t.Errorf("%s: envelope %s kept %v, want %v", id, env, !kept, kept)
			}
		}
	}
	snap, err := ts.client.Collection(Ledger).Doc("erase-me").Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := ledgerOf(snap)
	if err != nil {
		t.Fatal(err)
	}
	n := len(entry.AdminActions)
	if entry.Erasure == nil || *entry.Erasure != e || n == 0 || entry.AdminActions[n-1] != (intake.AdminAction{At: t0, Actor: e.RequestedBy, Action: intake.ActionErased}) || entry.Reason != intake.ReasonErased {
		t.Fatalf("the tombstone: erasure %+v, actions %+v, reason %q", entry.Erasure, entry.AdminActions, entry.Reason)
	}
}

// TestTheOwnersWordFilesAndErases: MarkSpam keeps the word with its folder
// and an admin action in one transaction; the folder filter, the waiting
// count and CountSpam follow it; a draft, and a withdrawn introduction
// (deleted), are NOT_FOUND; EraseSpam erases exactly what is still marked
// spam in each erasure's transaction (one marked not spam after EraseSpam
// found it is kept), leaving its tombstone.
func TestTheOwnersWordFilesAndErases(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for i, id := range []string{"keep", "junk", "gone"} {
		ts.keepConfirmed(t, id, t0.Add(-time.Duration(i+1)*time.Hour))
	}
	if _, err := ts.KeepDraft(ctx, draft("draft", t0)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Withdraw(ctx, intake.Claim{ID: "gone", TokenHash: intake.HashToken(token("gone"))}, t0, nil); err != nil {
		t.Fatal(err)
	}
	in, err := ts.MarkSpam(ctx, "junk", "owner", true, t0)
	if err != nil || in.Spam == nil || !*in.Spam || in.Folder() != intake.FolderSpam {
		t.Fatalf("MarkSpam = %+v, %v", in, err)
	}
	if _, err := ts.MarkSpam(ctx, "draft", "owner", true, t0); codeOf(t, err) != intake.CodeNotFound {
		t.Errorf("MarkSpam(draft) = %v, want NOT_FOUND", err)
	}
	if _, err := ts.MarkSpam(ctx, "gone", "owner", true, t0); codeOf(t, err) != intake.CodeNotFound {
		t.Errorf("MarkSpam(withdrawn: its content is gone) = %v, want NOT_FOUND", err)
	}
	ids := func(folder string) []string { return ts.listed(t, folder) }
	if got := ids(intake.FolderSpam); !slices.Equal(got, []string{"junk"}) {
		t.Errorf("spam folder %v", got)
	}
	if got := ids(intake.FolderInbox); !slices.Equal(got, []string{"keep"}) {
		t.Errorf("inbox %v", got)
	}
	if _, _, err := ts.ListIntroductions(ctx, "elsewhere", nil, 10, t0); codeOf(t, err) != intake.CodeInternal {
		t.Errorf("an unknown folder = %v, want INTERNAL", err)
	}
	if n, err := ts.CountWaiting(ctx); err != nil || n != 1 {
		t.Errorf("CountWaiting = %d, %v, want 1 (keep)", n, err)
	}
	if n, err := ts.CountSpam(ctx); err != nil || n != 1 {
		t.Errorf("CountSpam = %d, %v", n, err)
	}
	// One found marked spam but marked not spam before its erasure's
	// transaction is kept: the transaction reads the folder again.
	if _, err := ts.DB.erase(ctx, "keep", intake.ErasureRecord{At: t0, RequestedBy: "owner"}, intake.ActionErasedSpam, intake.ReasonErasedSpam,
		intake.FolderSpam, nil); !errors.Is(err, errNotInFolder) || !ts.exists(t, Introductions, "keep") {
		t.Fatalf("erasing an inbox introduction as spam = %v", err)
	}
	// EraseSpam itself: "keep", found marked spam, is marked not spam
	// between the query and its erasure (as its notices are asked for).
	if _, err := ts.MarkSpam(ctx, "keep", "owner", true, t0); err != nil {
		t.Fatal(err)
	}
	meanwhile := func(id string) []intake.Envelope {
		if id == "keep" {
			if _, err := ts.MarkSpam(ctx, "keep", "owner", false, t0); err != nil {
				t.Error(err)
			}
		}
		return nil
	}
	erased, sent, err := ts.EraseSpam(ctx, intake.ErasureRecord{At: t0, RequestedBy: "owner", Reason: intake.ErasureReasonSpam}, meanwhile)
	if err != nil || !slices.Equal(erased, []string{"junk"}) || len(sent) != 0 {
		t.Fatalf("EraseSpam = %v, %v, %v", erased, sent, err)
	}
	if ts.exists(t, Introductions, "junk") || ts.exists(t, Transcripts, "junk") || !ts.exists(t, Introductions, "keep") {
		t.Fatal("EraseSpam erased the wrong introductions")
	}
	tomb, err := ts.Tombstone(ctx, "junk")
	if err != nil || tomb.Reason != intake.ReasonErasedSpam || tomb.Erasure.Reason != intake.ErasureReasonSpam {
		t.Fatalf("the tombstone %+v, %v", tomb, err)
	}
	actions := tomb.AdminActions
	if len(actions) != 2 || actions[0].Action != intake.ActionMarkedSpam || actions[1].Action != intake.ActionErasedSpam || actions[1].Actor != "owner" {
		t.Errorf("the tombstone's admin actions %+v", actions)
	}
	for _, v := range allStrings(ts.dump(t)) {
		if strings.Contains(v, canary("name", "junk")) {
			t.Errorf("the erased introduction's name is still held: %q", v)
		}
	}
}
