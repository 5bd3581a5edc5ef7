package firestorestore

import (
	"context"
	"crypto/rand"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/retentionsweep"
	"github.com/ownersite/introductions/shared/testsupport"
)

// runRecordsFor keeps the test sweeps' own records past every boundary the
// tests sweep at, so that the runs count only what the tests seeded.
const runRecordsFor = 10 * 365 * 24 * time.Hour

// newSweeper returns a sweeper over store with the embedded registry.
func newSweeper(t testing.TB, store retentionsweep.Store, clock intake.Clock, tasks ...intake.SweepTask) *retentionsweep.Sweeper {
	t.Helper()
	s, err := retentionsweep.New(retentionsweep.Config{Store: store, Registry: testsupport.Forms(t), Tasks: tasks,
		Clock: clock, Entropy: rand.Reader, Logger: discard, RunRetention: runRecordsFor})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawDoc is a document the store's collections hold besides those the
// intake writes (envelopes, provider events, figures, runs), reduced to
// what the sweep looks at.
type rawDoc struct {
	Kind     string    `firestore:"kind"`
	ExpireAt time.Time `firestore:"expireAt"`
}

func (ts *testStore) put(t testing.TB, coll, id string, expireAt time.Time) {
	t.Helper()
	if _, err := ts.client.Collection(coll).Doc(id).Set(context.Background(), rawDoc{Kind: coll, ExpireAt: expireAt}); err != nil {
		t.Fatal(err)
	}
}

// everyDocument lists every document of every collection the emulator
// holds for the test's database, by path, with its expireAt (zero when it
// has none).
func (ts *testStore) everyDocument(t testing.TB) map[string]time.Time {
	t.Helper()
	ctx := context.Background()
	out := map[string]time.Time{}
	colls, err := ts.client.Collections(ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range colls {
		names = append(names, c.ID)
	}
	ts.forEach(t, names, func(coll string, snap *firestore.DocumentSnapshot) {
		exp, _ := snap.DataAt(ExpireAtField)
		e, _ := exp.(time.Time)
		out[coll+"/"+snap.Ref.ID] = e
	})
	return out
}

// assertNothingExpired fails for every document, in any collection, whose
// expireAt is at or before cutoff or missing.
func (ts *testStore) assertNothingExpired(t testing.TB, cutoff time.Time) {
	t.Helper()
	for path, exp := range ts.everyDocument(t) {
		if exp.IsZero() {
			t.Errorf("%s has no expireAt", path)
		} else if !exp.After(cutoff) {
			t.Errorf("%s expired at %v, at or before the sweep's start %v, and is still there", path, exp, cutoff)
		}
	}
}

func (ts *testStore) ledgerEntry(t testing.TB, id string) intake.LedgerEntry {
	t.Helper()
	var e intake.LedgerEntry
	snap, err := ts.client.Collection(Ledger).Doc(id).Get(context.Background())
	if err != nil || snap.DataTo(&e) != nil {
		t.Fatalf("reading ledger/%s: %v", id, err)
	}
	return e
}

// boundary is one retention class's expiry in the seeded data.
type boundary struct {
	name string
	at   time.Time
	docs []string // coll/id
}

// TestSweepDeletesEachClassAtItsBoundary seeds every class through the
// store as the service writes it, then sweeps with the clock a microsecond
// before each class's expiry (nothing of it goes) and exactly at it (all of
// it goes), and checks the run's counts and the expired draft's ledger
// entry.
func TestSweepDeletesEachClassAtItsBoundary(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	clock := testsupport.NewClock(t0)
	sweeper := newSweeper(t, ts.SweepStore, clock)

	// draft "waits" is never confirmed; "sent" is confirmed a minute in.
	waits := withIdempotency(draft("waits", t0), "idem-waits")
	if _, err := ts.KeepDraft(ctx, waits); err != nil {
		t.Fatal(err)
	}
	sent := draft("sent", t0)
	sent.Challenge.ExpireAt = t0.Add(15 * time.Minute)
	sent.RateKeys = []intake.RateKey{{RateRule: intake.RateRule{Layer: "email", Limit: 5, Window: 2 * time.Hour}, KeyHash: "mail-sent"}}
	if _, err := ts.KeepDraft(ctx, sent); err != nil {
		t.Fatal(err)
	}
	confirmedAt := t0.Add(time.Minute)
	if _, err := ts.Confirm(ctx, intake.Claim{ID: "sent", TokenHash: intake.HashToken(token("sent"))}, confirmedAt, keepFor, nil); err != nil {
		t.Fatal(err)
	}
	refused := intake.LedgerEntry{ID: "refused", Version: intake.LedgerVersion,
		Validation: intake.ValidationRecord{Result: intake.ValidationFail, Codes: []intake.Code{intake.CodeMessageTooManyLinks}},
		Retention:  intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: t0.Add(rejectedFor - time.Hour)},
		Abuse:      intake.AbuseRecord{State: intake.AbuseContentRejected},
		Decision:   intake.DecisionRejected, Reason: "refused: MESSAGE_TOO_MANY_LINKS", UpdatedAt: t0, ExpireAt: t0.Add(rejectedFor - time.Hour)}
	if err := ts.RecordAttempt(ctx, refused); err != nil {
		t.Fatal(err)
	}
	ts.put(t, Envelopes, "env-1", t0.Add(3*time.Hour))
	ts.put(t, ProviderEvents, "mailgun:tok", t0.Add(4*time.Hour))
	ts.put(t, DailyFigures, "2026-11-30", t0.Add(5*time.Hour))
	ts.put(t, SweepRuns, "old-run", t0.Add(6*time.Hour))
	ts.put(t, "strayCollection", "stray", t0.Add(7*time.Hour))

	challengeWaits := SpentChallenges + "/" + escapeKey(waits.Challenge.Key)
	challengeSent := SpentChallenges + "/" + escapeKey(sent.Challenge.Key)
	bounds := []boundary{
		{"spent challenge", t0.Add(10 * time.Minute), []string{challengeWaits}},
		{"spent challenge, later", t0.Add(15 * time.Minute), []string{challengeSent}},
		{"draft, its transcript and idempotency record", t0.Add(draftLife), []string{Introductions + "/waits", Transcripts + "/waits", IdempotencyKeys + "/idem-waits"}},
		{"ip rate window", t0.Add(time.Hour), []string{RateCounters + "/ip:ip-waits"}},
		{"email rate window", t0.Add(2 * time.Hour), []string{RateCounters + "/email:mail-sent"}},
		{"envelope", t0.Add(3 * time.Hour), []string{Envelopes + "/env-1"}},
		{"provider event", t0.Add(4 * time.Hour), []string{ProviderEvents + "/mailgun:tok"}},
		{"daily figures", t0.Add(5 * time.Hour), []string{DailyFigures + "/2026-11-30"}},
		{"sweep run", t0.Add(6 * time.Hour), []string{SweepRuns + "/old-run"}},
		{"a collection the store does not know", t0.Add(7 * time.Hour), []string{"strayCollection/stray"}},
		{"refused attempt's ledger entry", t0.Add(rejectedFor - time.Hour), []string{Ledger + "/refused"}},
		{"unconfirmed draft's ledger entry", t0.Add(draftLife + rejectedFor), []string{Ledger + "/waits"}},
		{"introduction, transcript and ledger entry", confirmedAt.Add(keepFor), []string{Introductions + "/sent", Transcripts + "/sent", Ledger + "/sent"}},
	}
	wantDeleted := map[string]map[string]int{
		"draft, its transcript and idempotency record": {retentionsweep.ClassDrafts: 1, retentionsweep.ClassTranscripts: 1, retentionsweep.ClassIdempotencyKeys: 1},
		"introduction, transcript and ledger entry":    {retentionsweep.ClassIntroductions: 1, retentionsweep.ClassTranscripts: 1, retentionsweep.ClassLedger: 1},
	}

	exists := func(path string) bool {
		coll, id, _ := strings.Cut(path, "/")
		return ts.exists(t, coll, id)
	}
	for i, b := range bounds {
		clock.Set(b.at.Add(-time.Microsecond))
		if _, err := sweeper.Run(ctx, intake.SweepByScheduler); err != nil {
			t.Fatalf("%s: sweep before: %v", b.name, err)
		}
		for _, d := range b.docs {
			if !exists(d) {
				t.Errorf("%s: %s deleted a microsecond before its expiry", b.name, d)
			}
		}
		clock.Set(b.at)
		run, err := sweeper.Run(ctx, intake.SweepByScheduler)
		if err != nil {
			t.Fatalf("%s: sweep at: %v", b.name, err)
		}
		for _, d := range b.docs {
			if exists(d) {
				t.Errorf("%s: %s still there at its expiry", b.name, d)
			}
		}
		for _, later := range bounds[i+1:] {
			for _, d := range later.docs {
				if !exists(d) {
					t.Errorf("%s: sweeping at %v deleted %s, which expires at %v", b.name, b.at, d, later.at)
				}
			}
		}
		want := wantDeleted[b.name]
		if want == nil {
			want = map[string]int{}
			for _, d := range b.docs {
				coll, _, _ := strings.Cut(d, "/")
				want[coll]++
			}
		}
		for class, n := range run.Deleted {
			if n != want[class] {
				t.Errorf("%s: run deleted %d %s, want %d (run %+v)", b.name, n, class, want[class], run.Deleted)
			}
		}
		ts.assertNothingExpired(t, b.at)

		if b.name == "draft, its transcript and idempotency record" {
			e := ts.ledgerEntry(t, "waits")
			if e.Decision != intake.DecisionExpired || e.Reason != ReasonExpired || !e.UpdatedAt.Equal(b.at) {
				t.Errorf("expired draft's ledger entry: decision %s, reason %q, updated %v", e.Decision, e.Reason, e.UpdatedAt)
			}
			if e.Retention.Class != intake.RetentionDraft || !e.Retention.DeleteAfter.Equal(e.ExpireAt) || !e.ExpireAt.Equal(t0.Add(draftLife+rejectedFor)) {
				t.Errorf("expired draft's ledger retention %+v, expireAt %v", e.Retention, e.ExpireAt)
			}
			snap, _ := ts.client.Collection(Ledger).Doc("waits").Get(ctx)
			for _, s := range allStrings(snap.Data()) {
				if strings.Contains(s, "canary") {
					t.Errorf("expired draft's ledger entry holds content: %q", s)
				}
			}
		}
	}
}

// TestSweepLeavesNothingExpiredAnywhere seeds expired and live documents in
// every collection the store writes and one it does not, sweeps, and lists
// the emulator's collections: nothing expired is left, everything live is,
// and the run's counts add up to what had expired.
func TestSweepLeavesNothingExpiredAnywhere(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	start := t0.Add(time.Hour)
	expired := 0
	for _, coll := range append(slices.Clone(SweptCollections), "strayCollection") {
		for i := range 3 {
			ts.put(t, coll, fmt.Sprintf("gone-%d", i), start.Add(-time.Duration(i)*time.Minute))
			expired++
		}
		ts.put(t, coll, "kept", start.Add(time.Microsecond))
	}
	sweeper := newSweeper(t, ts.SweepStore, testsupport.NewClock(start))
	run, err := sweeper.Run(ctx, intake.SweepByOwner)
	if err != nil {
		t.Fatal(err)
	}
	ts.assertNothingExpired(t, start)
	docs := ts.everyDocument(t)
	total := 0
	for _, n := range run.Deleted {
		total += n
	}
	if total != expired {
		t.Errorf("run counted %d deletions, %d had expired: %+v", total, expired, run.Deleted)
	}
	for _, coll := range SweptCollections {
		if _, ok := docs[coll+"/kept"]; !ok {
			t.Errorf("%s/kept (live) was deleted", coll)
		}
	}
	if run.Deleted["strayCollection"] != 3 {
		t.Errorf("stray collection: deleted %d, want 3", run.Deleted["strayCollection"])
	}
}

// TestSweepCostIsOneQueryPerCollectionWhenNothingExpired counts RPCs: with
// nothing expired each collection costs one query, and a page of expired
// documents costs its query and one commit.
func TestSweepCostIsOneQueryPerCollectionWhenNothingExpired(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for _, coll := range SweptCollections {
		ts.put(t, coll, "live", t0.Add(time.Hour))
	}
	for _, coll := range SweptCollections {
		ts.rpcs.Reset()
		d, err := ts.DeleteExpired(ctx, coll, t0)
		if err != nil || d.Documents != 0 {
			t.Fatalf("%s: %+v, %v", coll, d, err)
		}
		if n := ts.rpcs.Count(); n != 1 {
			t.Errorf("%s with nothing expired cost %d RPCs, want 1", coll, n)
		}
	}
	for i := range 10 {
		ts.put(t, RateCounters, fmt.Sprintf("gone-%d", i), t0)
	}
	ts.rpcs.Reset()
	if d, err := ts.DeleteExpired(ctx, RateCounters, t0); err != nil || d.Documents != 10 {
		t.Fatalf("DeleteExpired = %+v, %v", d, err)
	}
	if n := ts.rpcs.Count(); n != 2 {
		t.Errorf("a short page of expired documents cost %d RPCs, want 2 (query, commit)", n)
	}
}

// TestConcurrentSweepsDeleteEachDocumentOnce runs two sweeps, each with a
// store of its own ("instances"), at once over the same expired documents:
// each document is deleted and counted once, the two runs' counts add up to
// what existed, and every expired draft's ledger entry says EXPIRED.
func TestConcurrentSweepsDeleteEachDocumentOnce(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	const counters, drafts = 2500, 40
	bw := ts.client.BulkWriter(ctx)
	for i := range counters {
		if _, err := bw.Set(ts.client.Collection(RateCounters).Doc(fmt.Sprintf("ip:c%d", i)), rawDoc{ExpireAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	bw.End()
	for i := range drafts {
		k := draft(fmt.Sprintf("d%d", i), t0.Add(-time.Hour))
		k.Transcript, k.RateKeys, k.Introduction.HasConversation = nil, nil, false
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	clock := testsupport.NewClock(t0)
	sweepers := []*retentionsweep.Sweeper{newSweeper(t, ts.SweepStore, clock), newSweeper(t, ts.sibling(t).SweepStore, clock)}
	runs := make([]intake.SweepRun, len(sweepers))
	var wg sync.WaitGroup
	for i, s := range sweepers {
		wg.Go(func() {
			var err error
			if runs[i], err = s.Run(ctx, intake.SweepByScheduler); err != nil {
				t.Errorf("instance %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var gotDrafts, gotIntros, gotCounters int
	for _, r := range runs {
		gotDrafts += r.Deleted[retentionsweep.ClassDrafts]
		gotIntros += r.Deleted[retentionsweep.ClassIntroductions]
		gotCounters += r.Deleted[retentionsweep.ClassRateCounters]
	}
	if gotIntros != 0 || gotDrafts != drafts || gotCounters != counters {
		t.Fatalf("two sweeps counted %d drafts, %d introductions and %d counters, want %d drafts and %d counters (runs %+v, %+v)",
			gotDrafts, gotIntros, gotCounters, drafts, counters, runs[0].Deleted, runs[1].Deleted)
	}
	if n := ts.count(t, RateCounters) + ts.count(t, Introductions); n != 0 {
		t.Fatalf("%d expired documents left", n)
	}
	for i := range drafts {
		if e := ts.ledgerEntry(t, fmt.Sprintf("d%d", i)); e.Decision != intake.DecisionExpired {
			t.Errorf("d%d: ledger decision %s, want EXPIRED", i, e.Decision)
		}
	}
}

// cutStore returns a Store on the test's database whose client c counts
// and, after c.FailAfter, cuts off.
func (ts *testStore) cutStore(t testing.TB, c *emulatortest.RPCCounter) *allStores {
	t.Helper()
	project := strings.Split(ts.client.Collection("x").Path, "/")[1]
	s, _ := countedStore(t, project, c, 2*time.Second)
	return s
}

// TestSweepCutMidRunLeavesTheRestForTheNextRun cuts Firestore off while a
// run deletes: the run fails, its record says so (unfinished when even the
// record could not be written, the failing step when Firestore came back
// before the end), nothing is half deleted, and the next run deletes the
// rest, the two runs' counts adding up to what had expired.
func TestSweepCutMidRunLeavesTheRestForTheNextRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		heal bool // Firestore comes back before the run records its outcome
	}{
		{"cut for good", false},
		{"cut, then back", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestStore(t)
			ctx := context.Background()
			const n = sweepPage + 50
			bw := ts.client.BulkWriter(ctx)
			for i := range n {
				if _, err := bw.Set(ts.client.Collection(SpentChallenges).Doc(fmt.Sprintf("c%04d", i)), rawDoc{ExpireAt: t0}); err != nil {
					t.Fatal(err)
				}
			}
			bw.End()
			for i := range 5 {
				k := draft(fmt.Sprintf("d%d", i), t0.Add(-time.Hour))
				k.Challenge.Key = fmt.Sprintf("draft-challenge-%d", i)
				k.Challenge.ExpireAt = t0.Add(time.Hour)
				if _, err := ts.KeepDraft(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			// Calls: last runs, begin, list collections, then each
			// collection: introductions (query, commit), transcripts (query,
			// commit), spent challenges (query, commit, commit, ...): cut
			// after the first commit of spent challenges.
			c := &emulatortest.RPCCounter{}
			c.FailAfter(9)
			clock := testsupport.NewClock(t0)
			var sweeper *retentionsweep.Sweeper
			if tt.heal {
				sweeper = newSweeper(t, ts.cutStore(t, c).SweepStore, clock, healTask{c})
			} else {
				sweeper = newSweeper(t, ts.cutStore(t, c).SweepStore, clock)
			}
			first, err := sweeper.Run(ctx, intake.SweepByScheduler)
			if intake.CodeOf(err) != intake.CodeUnavailable {
				t.Fatalf("cut run: error %v, want UNAVAILABLE", err)
			}
			if first.Deleted[retentionsweep.ClassDrafts] != 5 || first.Deleted[retentionsweep.ClassSpentChallenges] != maxBatchWrites {
				t.Fatalf("cut run deleted %+v, want 5 drafts and one commit of challenges", first.Deleted)
			}
			if left := ts.count(t, SpentChallenges) - 5; left != n-maxBatchWrites {
				t.Fatalf("%d expired challenges left, want %d", left, n-maxBatchWrites)
			}
			runs, err := ts.OwnerStore.LastRuns(ctx, 5)
			if err != nil || len(runs) != 1 || runs[0].ID != first.ID {
				t.Fatalf("LastRuns = %+v, %v", runs, err)
			}
			want := retentionsweep.Unfinished
			if tt.heal {
				want = "deleting expired spentChallenges: UNAVAILABLE"
			}
			if !strings.HasPrefix(runs[0].Error, want) {
				t.Fatalf("the cut run's record says error %q, want %q", runs[0].Error, want)
			}

			second, err := newSweeper(t, ts.SweepStore, clock).Run(ctx, intake.SweepByScheduler)
			if err != nil {
				t.Fatal(err)
			}
			if got := first.Deleted[retentionsweep.ClassSpentChallenges] + second.Deleted[retentionsweep.ClassSpentChallenges]; got != n {
				t.Fatalf("the two runs deleted %d challenges, %d had expired", got, n)
			}
			ts.assertNothingExpired(t, t0)
		})
	}
}

// healTask brings Firestore back before the run records its outcome.
type healTask struct{ c *emulatortest.RPCCounter }

func (healTask) Name() string { return "heal" }
func (h healTask) Run(context.Context, time.Time) (intake.SweepTaskResult, error) {
	h.c.Heal()
	return intake.SweepTaskResult{}, nil
}

// TestConsentRecheck: evidence whose text the registry no longer has marks
// the ledger entry REPAIR_NEEDED with a content-free reason; a run under
// unchanged texts does not read the evidence again.
func TestConsentRecheck(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	v, _ := testsupport.Forms(t).Find("introduction", "1")
	p, _ := v.Purpose("attach-conversation")
	for _, id := range []string{"kept-a", "kept-b"} {
		k := draft(id, t0)
		k.Introduction.FormVersion, k.Ledger.FormVersion = "1", "1"
		k.Introduction.Consents[0] = intake.ConsentEvidence{Purpose: p.ID, Basis: p.Basis, TextVersion: p.Consent.TextVersion,
			TextSHA256: p.Consent.SHA256, Control: p.Consent.Control, ActivelyChecked: true, GivenAt: t0,
			WithdrawalPath: "/api/introductions/" + id + "/withdrawal"}
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Minute), keepFor, nil); err != nil {
			t.Fatal(err)
		}
	}
	clock := testsupport.NewClock(t0.Add(time.Hour))

	run, err := newSweeper(t, ts.SweepStore, clock).Run(ctx, intake.SweepByScheduler)
	if err != nil || run.RepairNeeded != 0 || run.ConsentDigest != testsupport.Forms(t).ConsentDigest() {
		t.Fatalf("first run under the same texts: %+v, %v", run, err)
	}

	reworded := rewordedRegistry(t)
	s, err := retentionsweep.New(retentionsweep.Config{Store: ts.SweepStore, Registry: reworded, Clock: clock, Entropy: rand.Reader, Logger: discard, RunRetention: runRecordsFor})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(t0.Add(2 * time.Hour))
	run, err = s.Run(ctx, intake.SweepByScheduler)
	if err != nil || run.RepairNeeded != 2 || run.ConsentDigest != reworded.ConsentDigest() {
		t.Fatalf("run after the text changed: %+v, %v", run, err)
	}
	for _, id := range []string{"kept-a", "kept-b"} {
		e := ts.ledgerEntry(t, id)
		if e.Decision != intake.DecisionRepairNeeded || !strings.Contains(e.Reason, "attach-conversation") || strings.Contains(e.Reason, "canary") {
			t.Errorf("%s: decision %s, reason %q", id, e.Decision, e.Reason)
		}
	}

	ts.rpcs.Reset()
	clock.Set(t0.Add(3 * time.Hour))
	run, err = s.Run(ctx, intake.SweepByScheduler)
	if err != nil || run.RepairNeeded != 0 {
		t.Fatalf("run under unchanged texts: %+v, %v", run, err)
	}
	// last runs, begin, list, one query per collection, finish: no scan.
	if n, want := ts.rpcs.Count(), int64(4+len(SweptCollections)); n != want {
		t.Errorf("a run under unchanged texts cost %d RPCs, want %d (no consent scan)", n, want)
	}
}

// rewordedRegistry is the embedded registry with the conversation consent
// text edited in place, as a bad deployment would.
func rewordedRegistry(t testing.TB) *formregistry.Registry {
	t.Helper()
	return editedRegistry(t, "Attach my conversation with the site's guide to this introduction.", "Attach my conversation to this introduction.")
}

// editedRegistry is the embedded registry with old replaced by new in every
// version and language file, in place.
func editedRegistry(t testing.TB, old, new string) *formregistry.Registry {
	t.Helper()
	dir := t.TempDir()
	src := "../formregistry/forms/introduction/"
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range files {
		f := e.Name()
		raw, err := os.ReadFile(src + f)
		if err != nil {
			t.Fatal(err)
		}
		if f != "index.json" {
			raw = []byte(strings.Replace(string(raw), old, new, 1))
		}
		if err := os.MkdirAll(dir+"/introduction", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/introduction/"+f, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := formregistry.LoadFS(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if r.ConsentDigest() == testsupport.Forms(t).ConsentDigest() {
		t.Fatal("the edit did not change a consent text")
	}
	return r
}

// TestConsentRecheckCoversEveryLanguage: the re-check compares each
// consent's evidence with the text of the language it was shown in: a
// Persian text edited in place marks the Persian consent's entry
// REPAIR_NEEDED, naming fa, and leaves the English one alone.
func TestConsentRecheckCoversEveryLanguage(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	base, _ := testsupport.Forms(t).Find("introduction", "2")
	for id, lang := range map[string]string{"kept-en": "en", "kept-fa": "fa"} {
		v, _ := base.In(lang)
		p, _ := v.Purpose("future-roles")
		k := draft(id, t0)
		k.Introduction.FormVersion, k.Ledger.FormVersion = "2", "2"
		k.Introduction.Lang, k.Ledger.Lang = lang, lang
		k.Introduction.Consents[0] = intake.ConsentEvidence{Purpose: p.ID, Basis: p.Basis, Lang: lang, TextVersion: p.Consent.TextVersion,
			TextSHA256: p.Consent.SHA256, Control: p.Consent.Control, ActivelyChecked: true, GivenAt: t0,
			WithdrawalPath: "/api/introductions/" + id + "/withdrawal"}
		if _, err := ts.KeepDraft(ctx, k); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.Confirm(ctx, intake.Claim{ID: id, TokenHash: intake.HashToken(token(id))}, t0.Add(time.Minute), keepFor, nil); err != nil {
			t.Fatal(err)
		}
	}
	clock := testsupport.NewClock(t0.Add(time.Hour))
	if run, err := newSweeper(t, ts.SweepStore, clock).Run(ctx, intake.SweepByScheduler); err != nil || run.RepairNeeded != 0 {
		t.Fatalf("first run under the same texts: %+v, %v", run, err)
	}

	fa, _ := base.In("fa")
	p, _ := fa.Purpose("future-roles")
	reworded := editedRegistry(t, p.Consent.Text, "مرا برای موقعیت‌های آینده در نظر داشته باشید.")
	s, err := retentionsweep.New(retentionsweep.Config{Store: ts.SweepStore, Registry: reworded, Clock: clock, Entropy: rand.Reader, Logger: discard, RunRetention: runRecordsFor})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(t0.Add(2 * time.Hour))
	run, err := s.Run(ctx, intake.SweepByScheduler)
	if err != nil || run.RepairNeeded != 1 {
		t.Fatalf("run after the Persian text changed: %+v, %v", run, err)
	}
	if e := ts.ledgerEntry(t, "kept-fa"); e.Decision != intake.DecisionRepairNeeded || !strings.Contains(e.Reason, "future-roles/1, fa") {
		t.Errorf("kept-fa: decision %s, reason %q", e.Decision, e.Reason)
	}
	if e := ts.ledgerEntry(t, "kept-en"); e.Decision == intake.DecisionRepairNeeded {
		t.Errorf("kept-en was marked for a Persian text: %q", e.Reason)
	}
}

func TestLastRunsNewestFirst(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for i := range 4 {
		start := t0.Add(time.Duration(i) * time.Hour)
		run := intake.SweepRun{ID: "run-" + strconv.Itoa(i), Trigger: intake.SweepByColdStart, StartedAt: start,
			Deleted: map[string]int{"drafts": i}, ExpireAt: start.Add(time.Hour * 24)}
		if err := ts.BeginRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := ts.OwnerStore.LastRuns(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "run-3,run-2,run-1" || runs[0].Deleted["drafts"] != 3 {
		t.Fatalf("LastRuns(3) = %s (%+v)", got, runs)
	}
}

// TestEveryCollectionIsSweptByAnIndexedQuery reads the collection names
// declared in store.go: each is swept, and each sweep query's shape is in
// Queries.
func TestEveryCollectionIsSweptByAnIndexedQuery(t *testing.T) {
	f, err := parser.ParseFile(gotoken.NewFileSet(), "store.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GenDecl)
		if !ok || g.Tok != gotoken.CONST {
			return true
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == gotoken.STRING && strings.Contains(vs.Doc.Text(), " holds ") {
					v, _ := strconv.Unquote(lit.Value)
					declared = append(declared, v)
					_ = name
				}
			}
		}
		return false
	})
	if len(declared) < 10 {
		t.Fatalf("found only %d collections in store.go: %v", len(declared), declared)
	}
	for _, c := range declared {
		if !slices.Contains(SweptCollections, c) {
			t.Errorf("collection %s is not swept", c)
		}
		if !slices.ContainsFunc(Queries, func(q IndexedQuery) bool {
			return q.Collection == c && len(q.Fields) == 1 && q.Fields[0].Path == ExpireAtField
		}) {
			t.Errorf("the sweep query on %s.%s is not in Queries", c, ExpireAtField)
		}
	}
}

// TestExpiredDraftWithoutLedgerEntryIsStillDeleted: a draft whose ledger
// entry is gone (a commit marking it EXPIRED can never succeed) is deleted
// on its own instead of holding the sweep back, and counted once.
func TestExpiredDraftWithoutLedgerEntryIsStillDeleted(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	for _, id := range []string{"orphan", "normal"} {
		if _, err := ts.KeepDraft(ctx, draft(id, t0)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ts.client.Collection(Ledger).Doc("orphan").Delete(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := ts.DeleteExpired(ctx, Introductions, t0.Add(draftLife))
	if err != nil || d.Documents != 2 || d.Drafts != 2 {
		t.Fatalf("DeleteExpired = %+v, %v; want both drafts", d, err)
	}
	if ts.count(t, Introductions) != 0 || ts.exists(t, Ledger, "orphan") {
		t.Fatal("a draft is left, or the missing ledger entry was made up")
	}
	if e := ts.ledgerEntry(t, "normal"); e.Decision != intake.DecisionExpired {
		t.Fatalf("the other draft's entry says %s", e.Decision)
	}
}

// TestSweepThatLosesARaceCountsOnlyWhatItDeleted makes the race certain:
// between instance A's read of the expired drafts and its commit, instance
// B sweeps them all. A's commit then writes nothing (its deletes were
// conditional on what it read), A reads again, finds nothing, and counts
// nothing; B counts every draft and marks each ledger entry once.
func TestSweepThatLosesARaceCountsOnlyWhatItDeleted(t *testing.T) {
	ts := newTestStore(t)
	ctx := context.Background()
	const drafts = 12
	for i := range drafts {
		if _, err := ts.KeepDraft(ctx, draft(fmt.Sprintf("d%d", i), t0.Add(-time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	a, b := ts.sibling(t), ts.sibling(t)
	var bDeleted retentionsweep.Deleted
	var once sync.Once
	a.beforeCommit = func(string) {
		once.Do(func() {
			var err error
			if bDeleted, err = b.DeleteExpired(ctx, Introductions, t0); err != nil {
				t.Error(err)
			}
		})
	}
	aDeleted, err := a.DeleteExpired(ctx, Introductions, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if aDeleted.Documents != 0 || bDeleted.Documents != drafts || bDeleted.Drafts != drafts {
		t.Fatalf("A counted %+v, B %+v; want A nothing and B all %d drafts", aDeleted, bDeleted, drafts)
	}
	for i := range drafts {
		if e := ts.ledgerEntry(t, fmt.Sprintf("d%d", i)); e.Decision != intake.DecisionExpired || !e.UpdatedAt.Equal(t0) {
			t.Errorf("d%d: %s at %v; want EXPIRED by B's run (at %v)", i, e.Decision, e.UpdatedAt, t0)
		}
	}
}
