package firestorestore

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// revisionOf makes the revision of a kept draft that says what, with a
// conversation or none.
func revisionOf(what string, conversation string) intake.Revision {
	r := intake.Revision{
		Fields:   intake.Fields{Name: "Revised " + what, Email: "revised@example.com", Message: "Message " + what},
		Consents: []intake.ConsentEvidence{},
		Purposes: []intake.PurposeRecord{{ID: "introduction", Basis: intake.BasisLegitimateInterests, Required: true, Granted: true}},
		Stored:   []string{"name", "email", "message", "consents", "tokenHash"},
	}
	if conversation != "" {
		r.Conversation = conversation
		r.Consents = []intake.ConsentEvidence{{Purpose: "attach-conversation", Basis: intake.BasisConsent,
			TextVersion: "1", TextSHA256: strings.Repeat("0f", 32), Control: "attachConversation",
			ActivelyChecked: true, GivenAt: t0, WithdrawalPath: "/api/introductions/x/withdrawal"}}
	}
	return r
}

func TestReviseDraftReplacesContentAndKeepsIdTokenExpiry(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	k := draft("rev1", t0)
	if _, err := ts.KeepDraft(ctx, k); err != nil {
		t.Fatal(err)
	}
	counters := ts.dump(t)
	now := t0.Add(5 * time.Minute)
	var seen intake.Introduction
	in, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev1", TokenHash: intake.HashToken(token("rev1"))}, now, func(current intake.Introduction) (intake.Revision, error) {
		seen = current
		return revisionOf("one", ""), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.FormVersion != "v1" || seen.Fields.Name != canary("name", "rev1") {
		t.Errorf("revise saw %+v, want the kept draft", seen)
	}
	if in.ID != "rev1" || !in.ExpireAt.Equal(k.Introduction.ExpireAt) || in.Revisions != 1 || in.HasConversation || in.Fields.Name != "Revised one" {
		t.Errorf("revised %+v", in)
	}
	after := ts.dump(t)
	for path, doc := range counters {
		if strings.Contains(path, "/"+RateCounters+"/") || strings.Contains(path, "/"+SpentChallenges+"/") {
			if after[path] != doc {
				t.Errorf("%s changed: %s -> %s", path, doc, after[path])
			}
		}
	}
	if ts.exists(t, Transcripts, "rev1") {
		t.Error("the transcript the revision no longer carries is still kept")
	}
	for path, doc := range after {
		if strings.Contains(path, "/"+Ledger+"/") && (strings.Contains(doc, "Revised") || !strings.Contains(doc, `"revisions":1`)) {
			t.Errorf("ledger entry %s: %s", path, doc)
		}
	}
	// The confirmation finds the revised content under the same token.
	got, err := ts.Confirm(ctx, intake.Claim{ID: "rev1", TokenHash: intake.HashToken(token("rev1"))}, now, keepFor, nil)
	if err != nil || got.Fields.Message != "Message one" || got.Revisions != 1 {
		t.Fatalf("confirm after revising: %+v %v", got, err)
	}
}

func TestReviseDraftRefusesWhatCannotBeStoredAndWritesNothing(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("rev2", t0)); err != nil {
		t.Fatal(err)
	}
	before := ts.dump(t)
	for name, r := range map[string]intake.Revision{
		"name over the stored cap": func() intake.Revision {
			r := revisionOf("x", "")
			r.Fields.Name = strings.Repeat("n", intake.MaxStoredShortField+1)
			return r
		}(),
		"control character in a name": func() intake.Revision { r := revisionOf("x", ""); r.Fields.Name = "a\x00b"; return r }(),
		"email without @":             func() intake.Revision { r := revisionOf("x", ""); r.Fields.Email = "nobody"; return r }(),
		"transcript over the cap":     revisionOf("x", strings.Repeat("t", intake.MaxStoredConversation+1)),
		"four links in a message": func() intake.Revision {
			r := revisionOf("x", "")
			r.Fields.Message = "https://a.example https://b.example https://c.example https://d.example"
			return r
		}(),
		"an isolate in a transcript":  revisionOf("x", "Guide: \u2067hi\u2069"),
		"stacked selectors in a name": func() intake.Revision { r := revisionOf("x", ""); r.Fields.Name = "Ada\ufe0f\ufe0f"; return r }(),
	} {
		_, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev2", TokenHash: intake.HashToken(token("rev2"))}, t0.Add(time.Minute), func(intake.Introduction) (intake.Revision, error) { return r, nil })
		if codeOf(t, err) != intake.CodeInternal {
			t.Errorf("%s: %v, want INTERNAL", name, err)
		}
	}
	if after := ts.dump(t); !maps.Equal(before, after) {
		t.Error("a refused revision wrote something")
	}
}

func TestReviseDraftAnswersLikeConfirmAndStopsAtTheLimit(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("rev3", t0)); err != nil {
		t.Fatal(err)
	}
	called := false
	revise := func(intake.Introduction) (intake.Revision, error) {
		called = true
		return revisionOf("n", "a conversation"), nil
	}
	for name, tc := range map[string]struct {
		id  string
		tok string
		at  time.Time
	}{
		"unknown id":  {"nope", token("rev3"), t0},
		"wrong token": {"rev3", token("other"), t0},
		"expired":     {"rev3", token("rev3"), t0.Add(draftLife)},
		"bad id":      {"__x__", token("rev3"), t0},
	} {
		if _, err := ts.ReviseDraft(ctx, intake.Claim{ID: tc.id, TokenHash: intake.HashToken(tc.tok)}, tc.at, revise); err != intake.ErrNotFound {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
	if called {
		t.Error("revise ran for someone who does not hold the draft")
	}
	for n := 1; n <= intake.MaxRevisions; n++ {
		in, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev3", TokenHash: intake.HashToken(token("rev3"))}, t0.Add(time.Minute), revise)
		if err != nil || in.Revisions != n || !in.HasConversation {
			t.Fatalf("revision %d: %+v %v", n, in, err)
		}
	}
	_, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev3", TokenHash: intake.HashToken(token("rev3"))}, t0.Add(2*time.Minute), revise)
	if e := intake.AsError(err); e.Code != intake.CodeRateLimited || e.RetryAfter != draftLife-2*time.Minute {
		t.Fatalf("revision %d: %v (retry after %v)", intake.MaxRevisions+1, err, e.RetryAfter)
	}
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "rev3", TokenHash: intake.HashToken(token("rev3"))}, t0.Add(3*time.Minute), keepFor, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev3", TokenHash: intake.HashToken(token("rev3"))}, t0.Add(4*time.Minute), revise); codeOf(t, err) != intake.CodeStateConflict {
		t.Fatalf("revising a confirmed introduction: %v", err)
	}
}

func TestConcurrentRevisionsOnTwoInstancesApplyOneAfterTheOther(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("rev4", t0)); err != nil {
		t.Fatal(err)
	}
	stores := []*allStores{ts.allStores, ts.sibling(t)}
	var wg sync.WaitGroup
	results := make([]*intake.Introduction, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conversation := ""
			if i == 0 {
				conversation = "kept with the first"
			}
			results[i], errs[i] = stores[i].ReviseDraft(ctx, intake.Claim{ID: "rev4", TokenHash: intake.HashToken(token("rev4"))}, t0.Add(time.Minute),
				func(intake.Introduction) (intake.Revision, error) {
					return revisionOf(string(rune('A'+i)), conversation), nil
				})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("revision %d: %v", i, err)
		}
	}
	if results[0].Revisions+results[1].Revisions != 3 {
		t.Fatalf("revision counts %d and %d, want 1 and 2", results[0].Revisions, results[1].Revisions)
	}
	last := results[0]
	if results[1].Revisions == 2 {
		last = results[1]
	}
	got, err := ts.Confirm(ctx, intake.Claim{ID: "rev4", TokenHash: intake.HashToken(token("rev4"))}, t0.Add(2*time.Minute), keepFor, nil)
	if err != nil || got.Fields.Name != last.Fields.Name || got.Revisions != 2 {
		t.Fatalf("stored %+v %v, the later revision was %q", got, err, last.Fields.Name)
	}
	if ts.exists(t, Transcripts, "rev4") != last.HasConversation {
		t.Fatalf("the transcript does not match the later revision (hasConversation %v)", last.HasConversation)
	}
}

// TestReviseDraftCountsARefusedRevision: a revision the content rules
// refused leaves the content as it was, writes only the revision count (of
// the draft and of its ledger entry), returns the refusal, and counts
// toward intake.MaxRevisions as an applied one does.
func TestReviseDraftCountsARefusedRevision(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	if _, err := ts.KeepDraft(ctx, draft("rev5", t0)); err != nil {
		t.Fatal(err)
	}
	refusal := intake.Invalid(intake.FieldError{Field: "name", Code: intake.CodeNameInvalid, Detail: "Please fill this in."})
	refuse := func(intake.Introduction) (intake.Revision, error) { return intake.Revision{Refusal: refusal}, nil }
	apply := func(intake.Introduction) (intake.Revision, error) { return revisionOf("applied", ""), nil }
	read := func(coll string) map[string]any {
		snap, err := ts.client.Collection(coll).Doc("rev5").Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Data()
	}
	before := ts.dump(t)
	intro, entry := read(Introductions), read(Ledger)
	if _, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev5", TokenHash: intake.HashToken(token("rev5"))}, t0.Add(time.Minute), refuse); err != refusal {
		t.Fatalf("refused revision: %v, want the refusal", err)
	}
	for path, doc := range ts.dump(t) {
		if path != Introductions+"/rev5" && path != Ledger+"/rev5" && doc != before[path] {
			t.Errorf("a refused revision changed %s", path)
		}
	}
	intro["revisions"], entry["revisions"], entry["updatedAt"] = int64(1), int64(1), t0.Add(time.Minute)
	if got := read(Introductions); fmt.Sprint(got) != fmt.Sprint(intro) {
		t.Errorf("the draft after a refused revision: %v, want %v", got, intro)
	}
	if got := read(Ledger); fmt.Sprint(got) != fmt.Sprint(entry) {
		t.Errorf("the ledger entry after a refused revision: %v, want %v", got, entry)
	}
	for n := 2; n <= intake.MaxRevisions; n++ {
		revise := refuse
		if n%2 == 0 {
			revise = apply
		}
		in, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev5", TokenHash: intake.HashToken(token("rev5"))}, t0.Add(time.Minute), revise)
		if n%2 == 0 && (err != nil || in.Revisions != n) || n%2 == 1 && err != refusal {
			t.Fatalf("revision %d: %+v %v", n, in, err)
		}
	}
	for _, revise := range []func(intake.Introduction) (intake.Revision, error){refuse, apply} {
		if _, err := ts.ReviseDraft(ctx, intake.Claim{ID: "rev5", TokenHash: intake.HashToken(token("rev5"))}, t0.Add(2*time.Minute), revise); codeOf(t, err) != intake.CodeRateLimited {
			t.Fatalf("past the cap: %v, want RATE_LIMITED", err)
		}
	}
}

// decoyDraft is draft(id, now) as a honeypot's decoy keeps it: no content,
// and a REJECTED, HONEYPOT ledger entry holding the decoy's state.
func decoyDraft(id string, now time.Time) intake.DraftKeeping {
	k := draft(id, now)
	in := k.Introduction
	k.Decoy, k.Transcript = true, nil
	k.Introduction = intake.Introduction{ID: in.ID, State: in.State, FormID: in.FormID, FormVersion: in.FormVersion,
		TokenHash: in.TokenHash, CreatedAt: in.CreatedAt, ExpireAt: in.ExpireAt}
	k.Ledger.Decision, k.Ledger.Reason = intake.DecisionRejected, "honeypot filled: answered with a decoy"
	k.Ledger.Abuse = intake.AbuseRecord{State: intake.AbuseHoneypot, Signals: []string{"honeypot-filled"}}
	k.Ledger.Decoy = &intake.DecoyRecord{DraftExpireAt: in.ExpireAt}
	return k
}

// decoyClaim is the claim on decoyDraft(id) by the holder of its token.
func decoyClaim(id string) intake.Claim {
	h := intake.HashToken(token(id))
	return intake.Claim{ID: id, TokenHash: h, DecoyTokenHash: h}
}

// TestADecoysRevisionCountRisesAndStopsAsADraftsDoes revises a real draft
// and a decoy side by side, applied and refused revisions in turn: each
// answer's count rises by one, the decoy's entry stores it, and both are
// refused RATE_LIMITED at the same step.
func TestADecoysRevisionCountRisesAndStopsAsADraftsDoes(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for _, k := range []intake.DraftKeeping{draft("real6", t0), decoyDraft("decoy6", t0)} {
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	refusal := intake.Invalid(intake.FieldError{Field: "message", Code: intake.CodeMessageInvalid, Detail: "Please write a message."})
	reviseBoth := func(n int) (real, decoy *intake.Introduction, realErr, decoyErr error) {
		revise := func(intake.Introduction) (intake.Revision, error) {
			if n%3 == 0 {
				return intake.Revision{Refusal: refusal}, nil
			}
			return revisionOf(fmt.Sprint(n), ""), nil
		}
		at := t0.Add(time.Duration(n) * time.Second)
		real, realErr = ts.ReviseDraft(ctx, intake.Claim{ID: "real6", TokenHash: intake.HashToken(token("real6"))}, at, revise)
		decoy, decoyErr = ts.ReviseDraft(ctx, decoyClaim("decoy6"), at, revise)
		return real, decoy, realErr, decoyErr
	}
	stored := func() int64 {
		snap, err := ts.client.Collection(Ledger).Doc("decoy6").Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Data()["revisions"].(int64)
	}
	for n := 1; n <= intake.MaxRevisions; n++ {
		real, decoy, realErr, decoyErr := reviseBoth(n)
		if n%3 == 0 {
			if realErr != refusal || decoyErr != refusal {
				t.Fatalf("refused revision %d: real %v, decoy %v", n, realErr, decoyErr)
			}
		} else if realErr != nil || decoyErr != nil || real.Revisions != n || decoy.Revisions != n {
			t.Fatalf("revision %d: real %+v %v, decoy %+v %v", n, real, realErr, decoy, decoyErr)
		}
		if got := stored(); got != int64(n) {
			t.Fatalf("after revision %d the decoy's entry counts %d", n, got)
		}
	}
	_, _, realErr, decoyErr := reviseBoth(intake.MaxRevisions + 1)
	if codeOf(t, realErr) != intake.CodeRateLimited || codeOf(t, decoyErr) != intake.CodeRateLimited {
		t.Fatalf("revision %d: real %v, decoy %v; want RATE_LIMITED for both", intake.MaxRevisions+1, realErr, decoyErr)
	}
	if intake.AsError(realErr).RetryAfter != intake.AsError(decoyErr).RetryAfter {
		t.Errorf("retry after: real %v, decoy %v", intake.AsError(realErr).RetryAfter, intake.AsError(decoyErr).RetryAfter)
	}
}
