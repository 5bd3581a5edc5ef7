package admin_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/intake"
)

// TestDailyFiguresTask: each finished UTC day is counted from the ledger
// once (introductions confirmed, refusals by reason, an entry that sums
// refusals as its count), today is not, and a later run leaves counted days
// as they were.
func TestDailyFiguresTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	today := now.UTC().Truncate(24 * time.Hour)
	yesterday, before := today.AddDate(0, 0, -1), today.AddDate(0, 0, -3)
	for i, at := range []time.Time{yesterday.Add(time.Hour), yesterday.Add(23*time.Hour + 59*time.Minute), before.Add(time.Minute), today.Add(time.Minute)} {
		s := sample(fmt.Sprint("Person ", i), fmt.Sprintf("p%d@example.com", i), at)
		// Solves count on the day the draft arrived (4 minutes before its
		// confirmation): the last one's, confirmed today, counts yesterday.
		s.SolveMillis = []int64{800, 1600, 0, 300}[i]
		if i == 0 {
			s.Signals, s.LikelySpam = []string{"automation"}, true
		}
		f.keep(s)
	}
	refusals := []struct {
		state intake.AbuseState
		at    time.Time
	}{
		{intake.AbuseRateLimited, yesterday.Add(time.Hour)}, {intake.AbuseRateLimited, yesterday.Add(2 * time.Hour)},
		{intake.AbuseHoneypot, yesterday}, {intake.AbusePowFailed, before.Add(time.Hour)},
		{intake.AbuseContentRejected, today.Add(time.Minute)}, {intake.AbuseClean, yesterday.Add(time.Hour)},
	}
	for i, r := range refusals {
		if err := adminseed.Refused(ctx, f.db, fmt.Sprint(i), r.state, r.at); err != nil {
			t.Fatal(err)
		}
	}
	// The flood layer's refusals of one source in one window: one entry
	// standing for 5 requests.
	aggregated := intake.LedgerEntry{ID: "refusals-yesterday", Version: intake.LedgerVersion,
		Validation: intake.ValidationRecord{Result: intake.ValidationUnknown, Codes: []intake.Code{}},
		Purposes:   []intake.PurposeRecord{}, Consents: []intake.ConsentEvidence{}, RateLimits: []intake.RateDecision{},
		Retention: intake.RetentionRecord{Class: intake.RetentionRejectedEntry, DeleteAfter: now.Add(30 * 24 * time.Hour)},
		Abuse:     intake.AbuseRecord{State: intake.AbuseRateLimited, Signals: []string{}},
		Redaction: intake.RedactionRecord{Stored: []string{}, RedactedFromLogs: intake.RedactedFromLogs},
		Refusals: &intake.RefusalCount{KeyHash: "k", Sources: 1, WindowStart: yesterday.Add(5 * time.Hour), WindowSeconds: 600, Count: 5,
			Codes: []intake.Code{intake.CodeRateLimited}, Moves: []string{"draft"}},
		Decision: intake.DecisionRejected, Reason: "refused 5 requests before the checks in this window",
		Provenance: intake.Provenance{Function: "drafts", Time: yesterday.Add(5 * time.Hour)},
		UpdatedAt:  yesterday.Add(5 * time.Hour), ExpireAt: now.Add(30 * 24 * time.Hour)}
	if err := f.db.Intake(nil).RecordAttempt(ctx, aggregated); err != nil {
		t.Fatal(err)
	}
	task, err := admin.NewDailyFiguresTask(f.db.Owner(), adminseed.PowMaxNumber, f.logger)
	if err != nil {
		t.Fatal(err)
	}
	if task.Name() != "daily-figures" {
		t.Errorf("name %q", task.Name())
	}
	if _, err := task.Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	days := []string{yesterday.Format(time.DateOnly), before.Format(time.DateOnly), today.Format(time.DateOnly), today.AddDate(0, 0, -admin.ChartDays).Format(time.DateOnly), today.AddDate(0, 0, -admin.ChartDays-1).Format(time.DateOnly)}
	kept, err := f.db.Owner().DailyFigures(ctx, days)
	if err != nil {
		t.Fatal(err)
	}
	y := kept[days[0]]
	if y.Confirmed != 2 || y.Refused["RATE_LIMITED"] != 2+5 || y.Refused["HONEYPOT"] != 1 || y.Refused["POW_FAILED"] != 0 || y.Refused["CONTENT_REJECTED"] != 0 {
		t.Errorf("yesterday %+v", y)
	}
	if y.LikelySpam != 1 || fmt.Sprint(y.Solves) != "map[1500:1 300:1 750:1]" || y.SolveMaxNumber != adminseed.PowMaxNumber {
		t.Errorf("yesterday's likely spam and solves: %d %v at %d", y.LikelySpam, y.Solves, y.SolveMaxNumber)
	}
	if b := kept[days[1]]; b.Confirmed != 1 || b.Refused["POW_FAILED"] != 1 || b.LikelySpam != 0 || len(b.Solves) != 0 {
		t.Errorf("three days ago %+v", b)
	}
	if _, ok := kept[days[2]]; ok {
		t.Error("today, not finished, was counted")
	}
	if _, ok := kept[days[3]]; !ok {
		t.Error("the oldest day of the chart was not counted")
	}
	if _, ok := kept[days[4]]; ok {
		t.Error("a day before the chart's window was counted")
	}
	// Counted once: a late ledger entry for yesterday does not change it.
	if err := adminseed.Refused(ctx, f.db, "late", intake.AbuseHoneypot, yesterday.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Run(ctx, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	again, _ := f.db.Owner().DailyFigures(ctx, days[:1])
	if again[days[0]].Refused["HONEYPOT"] != 1 {
		t.Errorf("yesterday was counted again: %+v", again[days[0]])
	}
	// The next day, today becomes countable.
	if _, err := task.Run(ctx, now.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	next, _ := f.db.Owner().DailyFigures(ctx, days[2:3])
	if d := next[days[2]]; d.Confirmed != 1 || d.Refused["CONTENT_REJECTED"] != 1 {
		t.Errorf("today, counted tomorrow: %+v", d)
	}
}

// TestSuggestMaxNumber: the max number scales by the target over the
// middle of the 90th percentile's bucket, two significant digits, within
// POW_MAX_NUMBER's range.
func TestSuggestMaxNumber(t *testing.T) {
	for name, c := range map[string]struct {
		base, p90 int64
		target    time.Duration
		want      int64
	}{
		"at the target already":  {100_000, 750, time.Second, 110_000},  // middle of 750..1000 is 875
		"twice too slow":         {100_000, 2000, time.Second, 40_000},  // middle 2500
		"much too fast":          {100_000, 100, time.Second, 670_000},  // middle 150
		"the fastest bucket":     {100_000, 0, time.Second, 4_000_000},  // middle 25
		"the slowest bucket":     {100_000, 60_000, time.Second, 1_700}, // no next bucket: 60 s itself
		"never above the range":  {100_000_000, 0, time.Minute, 100_000_000},
		"never below one":        {1, 60_000, 100 * time.Millisecond, 1},
		"a small base, rounded":  {20_000, 300, 2 * time.Second, 100_000}, // middle 400
		"under a hundred, exact": {10, 500, time.Second, 16},              // 10 × 1000 / 625
	} {
		if got := admin.SuggestMaxNumber(c.base, c.p90, c.target); got != c.want {
			t.Errorf("%s: SuggestMaxNumber(%d, %d, %s) = %d, want %d", name, c.base, c.p90, c.target, got, c.want)
		}
	}
}
