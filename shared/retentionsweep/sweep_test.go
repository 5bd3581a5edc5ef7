package retentionsweep

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// fakeStore is a Store at this package's own interface: it returns what
// the test sets and records what the run asked.
type fakeStore struct {
	collections []string
	deleted     map[string]Deleted
	failOn      string // DeleteExpired fails on this collection
	failErr     error
	// cancel, when set, is called by DeleteExpired: the run's deadline
	// passes midway.
	cancel      context.CancelFunc
	finishedCtx error
	lastRuns    []intake.SweepRun
	records     []ConsentRecord
	marked      []string
	// consentErr fails ConsentRecords after its records; markErr fails
	// MarkRepairNeeded.
	consentErr error
	markErr    error

	visited  []string
	scanned  bool
	begun    []intake.SweepRun
	finished []intake.SweepRun
	order    []string
}

func (f *fakeStore) Collections(context.Context) ([]string, error) { return f.collections, nil }

func (f *fakeStore) DeleteExpired(_ context.Context, coll string, cutoff time.Time) (Deleted, error) {
	f.visited = append(f.visited, coll)
	f.order = append(f.order, "delete "+coll)
	if f.cancel != nil {
		f.cancel()
		return Deleted{}, intake.Unavailable(context.Canceled, time.Second)
	}
	if coll == f.failOn {
		return f.deleted[coll], f.failErr
	}
	return f.deleted[coll], nil
}

func (f *fakeStore) ConsentRecords(_ context.Context, _ time.Time, visit func(ConsentRecord) error) error {
	f.scanned = true
	f.order = append(f.order, "consents")
	for _, r := range f.records {
		if err := visit(r); err != nil {
			return err
		}
	}
	return f.consentErr
}

func (f *fakeStore) MarkRepairNeeded(_ context.Context, id, reason string, _ time.Time) (bool, error) {
	if f.markErr != nil {
		return false, f.markErr
	}
	f.marked = append(f.marked, id+": "+reason)
	return true, nil
}

func (f *fakeStore) BeginRun(_ context.Context, run intake.SweepRun) error {
	f.begun = append(f.begun, run)
	return nil
}

func (f *fakeStore) FinishRun(ctx context.Context, run intake.SweepRun) error {
	f.finishedCtx = ctx.Err()
	f.finished = append(f.finished, run)
	return nil
}

func (f *fakeStore) LastRuns(context.Context, int) ([]intake.SweepRun, error) { return f.lastRuns, nil }

// task reports a fixed result or error and notes that it ran.
type task struct {
	name  string
	res   intake.SweepTaskResult
	err   error
	store *fakeStore
}

func (t task) Name() string { return t.name }
func (t task) Run(context.Context, time.Time) (intake.SweepTaskResult, error) {
	t.store.order = append(t.store.order, "task "+t.name)
	return t.res, t.err
}

var start = time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)

func sweeperOver(t *testing.T, store Store, tasks ...intake.SweepTask) *Sweeper {
	t.Helper()
	s, err := New(Config{Store: store, Registry: testsupport.Forms(t), Tasks: tasks,
		Clock: testsupport.NewClock(start), Entropy: rand.Reader, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunCountsDeletesThenRunsTasksAndRecords(t *testing.T) {
	f := &fakeStore{
		collections: []string{IntroductionsCollection, "transcripts", "ledger", "envelopes"},
		deleted: map[string]Deleted{IntroductionsCollection: {Documents: 5, Drafts: 3}, "transcripts": {Documents: 4},
			"ledger": {Documents: 2}, "envelopes": {Documents: 1}},
		lastRuns: []intake.SweepRun{{ConsentDigest: testsupport.Forms(t).ConsentDigest()}},
	}
	run, err := sweeperOver(t, f,
		task{name: "deliveries", res: intake.SweepTaskResult{DeliveriesAttempted: 4}, store: f},
		task{name: "figures", err: errors.New("figures: secret cause"), store: f},
		task{name: "more deliveries", res: intake.SweepTaskResult{DeliveriesAttempted: 1, RepairNeeded: 2}, store: f},
	).Run(context.Background(), intake.SweepByScheduler)
	if intake.CodeOf(err) != intake.CodeInternal {
		t.Fatalf("a failed task: error %v, want INTERNAL", err)
	}
	want := map[string]int{ClassDrafts: 3, ClassIntroductions: 2, ClassTranscripts: 4, ClassLedger: 2, "envelopes": 1,
		ClassSpentChallenges: 0, ClassRateCounters: 0, ClassIdempotencyKeys: 0}
	for c, n := range want {
		if got, ok := run.Deleted[c]; !ok || got != n {
			t.Errorf("deleted[%s] = %d (present %v), want %d", c, got, ok, n)
		}
	}
	if run.DeliveriesAttempted != 5 || run.RepairNeeded != 2 {
		t.Errorf("task sums: %d deliveries, %d repairs", run.DeliveriesAttempted, run.RepairNeeded)
	}
	if got := strings.Join(f.order, ", "); got != "delete introductions, delete transcripts, delete ledger, delete envelopes, task deliveries, task figures, task more deliveries" {
		t.Errorf("order: %s", got)
	}
	if f.scanned {
		t.Error("scanned consent evidence although the texts did not change")
	}
	if len(f.begun) != 1 || f.begun[0].Error != Unfinished || !f.begun[0].FinishedAt.IsZero() {
		t.Fatalf("start record %+v", f.begun)
	}
	if len(f.finished) != 1 || f.finished[0].Error != "task figures: INTERNAL" || f.finished[0].ID != f.begun[0].ID ||
		!f.finished[0].ExpireAt.Equal(start.Add(RunRetention)) {
		t.Fatalf("outcome record %+v", f.finished)
	}
	if strings.Contains(run.Error, "secret") {
		t.Errorf("the record carries a cause: %q", run.Error)
	}
}

func TestRunStopsDeletingAtTheFirstFailure(t *testing.T) {
	f := &fakeStore{
		collections: []string{IntroductionsCollection, "spentChallenges", "ledger"},
		deleted:     map[string]Deleted{IntroductionsCollection: {Documents: 1, Drafts: 1}, "spentChallenges": {Documents: 300}},
		failOn:      "spentChallenges", failErr: intake.Unavailable(errors.New("cut"), time.Second),
	}
	run, err := sweeperOver(t, f, task{name: "deliveries", store: f}).Run(context.Background(), intake.SweepByColdStart)
	if intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("error %v, want UNAVAILABLE", err)
	}
	if slices.Contains(f.visited, "ledger") {
		t.Error("went on deleting after Firestore failed")
	}
	if run.Deleted[ClassSpentChallenges] != 300 || run.Deleted[ClassDrafts] != 1 {
		t.Errorf("counts %+v: what was deleted before the failure must count", run.Deleted)
	}
	if !slices.Contains(f.order, "task deliveries") {
		t.Error("tasks did not run after the failed deletions")
	}
	if got := f.finished[0].Error; !strings.HasPrefix(got, "deleting expired spentChallenges: UNAVAILABLE") {
		t.Errorf("record error %q", got)
	}
}

func TestConsentRecheckRunsWhenTheTextsChanged(t *testing.T) {
	v, _ := testsupport.Forms(t).Find("introduction", "1")
	p, _ := v.Purpose("attach-conversation")
	good := intake.ConsentEvidence{Purpose: p.ID, Basis: p.Basis, TextVersion: p.Consent.TextVersion, TextSHA256: p.Consent.SHA256, Control: p.Consent.Control}
	bad := good
	bad.TextSHA256 = strings.Repeat("0", 64)
	records := []ConsentRecord{
		{ID: "matches", FormID: "introduction", FormVersion: "1", State: intake.StateConfirmed, Consents: []intake.ConsentEvidence{good}},
		{ID: "edited", FormID: "introduction", FormVersion: "1", State: intake.StateConfirmed, Consents: []intake.ConsentEvidence{bad}},
		{ID: "unknown-version", FormID: "introduction", FormVersion: "9", State: intake.StateHandled, Consents: []intake.ConsentEvidence{good}},
	}
	for _, tt := range []struct {
		name     string
		lastRuns []intake.SweepRun
		scan     bool
	}{
		{"no run recorded a digest", nil, true},
		{"the newest digest differs", []intake.SweepRun{{}, {ConsentDigest: "old"}, {ConsentDigest: testsupport.Forms(t).ConsentDigest()}}, true},
		{"the newest digest is the registry's", []intake.SweepRun{{}, {ConsentDigest: testsupport.Forms(t).ConsentDigest()}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeStore{records: records, lastRuns: tt.lastRuns}
			run, err := sweeperOver(t, f).Run(context.Background(), intake.SweepByScheduler)
			if err != nil {
				t.Fatal(err)
			}
			if f.scanned != tt.scan {
				t.Fatalf("scanned %v, want %v", f.scanned, tt.scan)
			}
			if run.ConsentDigest != testsupport.Forms(t).ConsentDigest() {
				t.Errorf("run recorded digest %q", run.ConsentDigest)
			}
			if !tt.scan {
				return
			}
			if run.RepairNeeded != 2 || len(f.marked) != 2 || !strings.HasPrefix(f.marked[0], "edited: ") || !strings.HasPrefix(f.marked[1], "unknown-version: ") {
				t.Fatalf("repairNeeded %d, marked %q", run.RepairNeeded, f.marked)
			}
		})
	}
}

func TestNewRefusesMissingParts(t *testing.T) {
	_, err := New(Config{Tasks: []intake.SweepTask{nil}})
	for _, part := range []string{"Store", "Registry", "Clock", "Entropy", "Logger", "task 0"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("New without %s: %v", part, err)
		}
	}
}

// TestRunRecordsItsOutcomeAfterItsDeadline: when the run's context ends
// midway (a request deadline), the outcome is still recorded, saying which
// step the deadline cut short.
func TestRunRecordsItsOutcomeAfterItsDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeStore{collections: []string{IntroductionsCollection, "ledger"}, cancel: cancel}
	_, err := sweeperOver(t, f).Run(ctx, intake.SweepByScheduler)
	if intake.CodeOf(err) != intake.CodeUnavailable {
		t.Fatalf("error %v, want UNAVAILABLE", err)
	}
	if len(f.finished) != 1 || f.finishedCtx != nil || !strings.HasPrefix(f.finished[0].Error, "deleting expired introductions: UNAVAILABLE") {
		t.Fatalf("outcome %+v recorded with a context whose error is %v", f.finished, f.finishedCtx)
	}
}

// TestAFailedConsentRecheckRecordsNoDigest: a run whose consent re-check
// failed (reading the evidence, or marking an entry) records no consent
// digest, so the next run, seeing an older digest or none, checks again;
// one whose re-check succeeds records the registry's.
func TestAFailedConsentRecheckRecordsNoDigest(t *testing.T) {
	down := intake.Unavailable(errors.New("firestore down"), time.Second)
	edited := intake.ConsentEvidence{Purpose: "attach-conversation", TextVersion: "1", TextSHA256: strings.Repeat("0", 64)}
	records := []ConsentRecord{{ID: "edited", FormID: "introduction", FormVersion: "1", State: intake.StateConfirmed, Consents: []intake.ConsentEvidence{edited}}}
	for name, f := range map[string]*fakeStore{
		"reading the evidence fails": {records: records, consentErr: down, lastRuns: []intake.SweepRun{{ConsentDigest: "old"}}},
		"marking an entry fails":     {records: records, markErr: down, lastRuns: []intake.SweepRun{{ConsentDigest: "old"}}},
	} {
		t.Run(name, func(t *testing.T) {
			run, err := sweeperOver(t, f).Run(context.Background(), intake.SweepByScheduler)
			if intake.CodeOf(err) != intake.CodeUnavailable || !strings.Contains(run.Error, "re-checking consent evidence") {
				t.Fatalf("the run: %v, error %q; want UNAVAILABLE naming the re-check", err, run.Error)
			}
			if len(f.finished) != 1 || f.finished[0].ConsentDigest != "" || run.ConsentDigest != "" {
				t.Fatalf("the failed re-check recorded digest %q (returned %q), want none", f.finished[0].ConsentDigest, run.ConsentDigest)
			}
			// The next run sees that record first, and checks again.
			next := &fakeStore{records: records, lastRuns: append([]intake.SweepRun{f.finished[0]}, f.lastRuns...)}
			again, err := sweeperOver(t, next).Run(context.Background(), intake.SweepByScheduler)
			if err != nil || !next.scanned || len(next.marked) != 1 {
				t.Fatalf("the next run: %v, scanned %v, marked %q; want it to check again", err, next.scanned, next.marked)
			}
			if again.ConsentDigest != testsupport.Forms(t).ConsentDigest() {
				t.Errorf("the next run's successful re-check recorded %q, want the registry's digest", again.ConsentDigest)
			}
		})
	}
}
