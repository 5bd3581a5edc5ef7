package firestorestore

import (
	"context"
	"errors"
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
	if _, err := ts.Confirm(ctx, id, intake.HashToken(token(id)), at, keepFor, nil); err != nil {
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
	recs, next, err := ts.ListIntroductions(ctx, nil, 10, t0)
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
	subject, err := ts.SubjectRecords(ctx, "", t0)
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
		"ListIntroductions": func() error { _, _, err := s.ListIntroductions(ctx, nil, 50, t0); return err },
		"Record":            func() error { _, err := s.Record(ctx, "x", t0); return err },
		"MarkHandled":       func() error { _, err := s.MarkHandled(ctx, "x", "owner", t0); return err },
		"RecordAdminAction": func() error {
			return s.RecordAdminAction(ctx, "x", intake.AdminAction{At: t0, Actor: "owner", Action: intake.ActionRetry})
		},
		"SubjectRecords": func() error { _, err := s.SubjectRecords(ctx, "k", t0); return err },
		"EraseSubject": func() error {
			_, _, err := s.EraseSubject(ctx, "k", intake.ErasureRecord{At: t0, RequestedBy: "owner"}, nil)
			return err
		},
		"DailyFigures":    func() error { _, err := s.DailyFigures(ctx, []string{"2026-11-29"}); return err },
		"CountDay":        func() error { _, err := s.CountDay(ctx, t0); return err },
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
	if _, err := ts.ReviseDraft(ctx, "moved", intake.HashToken(token("moved")), t0.Add(time.Minute), func(intake.Introduction) (intake.Revision, error) { return r, nil }); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"subject-old": 0, "subject-new": 1} {
		recs, err := ts.SubjectRecords(ctx, key, t0.Add(2*time.Minute))
		if err != nil || len(recs) != want {
			t.Errorf("SubjectRecords(%s) = %d records, %v; want %d", key, len(recs), err, want)
		}
	}
}
