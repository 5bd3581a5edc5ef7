package firestorestore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// TestADecoysWithdrawalAnswersAndErasesAsADraftsDoes withdraws a real
// draft and a decoy side by side: a wrong token is NOT_FOUND and an
// unconfirmed one STATE_CONFLICT for both; once confirmed, both are
// withdrawn, the decoy's entry records the time and its file is erased;
// after that every move on either is NOT_FOUND.
func TestADecoysWithdrawalAnswersAndErasesAsADraftsDoes(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for _, k := range []intake.DraftKeeping{draft("realw", t0), decoyDraft("decoyw", t0)} {
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	real := intake.Claim{ID: "realw", TokenHash: intake.HashToken(token("realw"))}
	decoy := decoyClaim("decoyw")
	both := func(what string, at time.Duration, move func(intake.Claim, time.Time) error, want intake.Code) {
		t.Helper()
		for _, c := range []intake.Claim{real, decoy} {
			if got := codeOf(t, move(c, t0.Add(at))); got != want {
				t.Fatalf("%s of %s: %q, want %q", what, c.ID, got, want)
			}
		}
	}
	withdraw := func(c intake.Claim, at time.Time) error { return ts.Withdraw(ctx, c, at, nil) }
	confirm := func(c intake.Claim, at time.Time) error { _, err := ts.Confirm(ctx, c, at, keepFor, nil); return err }
	wrong := func(move func(intake.Claim, time.Time) error) func(intake.Claim, time.Time) error {
		return func(c intake.Claim, at time.Time) error { c.TokenHash = intake.HashToken("wrong"); return move(c, at) }
	}

	both("a withdrawal with a wrong token", time.Minute, wrong(withdraw), intake.CodeNotFound)
	both("an unconfirmed withdrawal", time.Minute, withdraw, intake.CodeStateConflict)
	file := intake.Attachment{Name: "cv.pdf", Type: "application/pdf", Size: 10, SHA256: strings.Repeat("ab", 32)}
	if _, err := ts.SetAttachment(ctx, decoy, t0.Add(time.Minute), &file, noPurpose); err != nil {
		t.Fatalf("the decoy's file: %v", err)
	}
	both("the confirmation", 2*time.Minute, confirm, "")
	both("a confirmed withdrawal with a wrong token", 3*time.Minute, wrong(withdraw), intake.CodeNotFound)
	both("the withdrawal", 3*time.Minute, withdraw, "")

	snap, err := ts.client.Collection(Ledger).Doc("decoyw").Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var e intake.LedgerEntry
	if err := snap.DataTo(&e); err != nil {
		t.Fatal(err)
	}
	if e.Decoy == nil || !e.Decoy.WithdrawnAt.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("the decoy's entry after its withdrawal: %+v", e.Decoy)
	}
	if ts.exists(t, DecoyAttachments, "decoyw") {
		t.Fatal("the decoy's file outlived its withdrawal")
	}
	both("a second withdrawal", 4*time.Minute, withdraw, intake.CodeNotFound)
	both("a confirmation after the withdrawal", 4*time.Minute, confirm, intake.CodeNotFound)
	both("an attachment after the withdrawal", 4*time.Minute, func(c intake.Claim, at time.Time) error {
		_, err := ts.AttachableDraft(ctx, c, at)
		return err
	}, intake.CodeNotFound)
}
