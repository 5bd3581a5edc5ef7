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
		f.keep(sample(fmt.Sprint("Person ", i), fmt.Sprintf("p%d@example.com", i), at))
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
	task, err := admin.NewDailyFiguresTask(f.db.Owner(), f.logger)
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
	if b := kept[days[1]]; b.Confirmed != 1 || b.Refused["POW_FAILED"] != 1 {
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
