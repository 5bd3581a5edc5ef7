package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/firestorestore"
)

// TestSeedBesideMakeRun: with FIRESTORE_EMULATOR_HOST unset, the seed takes
// the emulator and project from make run's file, and the chart's figures
// show what it wrote although a sweep before it (make run's first) had
// counted every day of the chart empty.
func TestSeedBesideMakeRun(t *testing.T) {
	client, project := emulatortest.Client(t)
	host := emulatortest.Host(t)
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	db, err := firestorestore.New(client, firestorestore.Config{Project: project, Database: emulatortest.Database, OpTimeout: 30 * time.Second}, logger)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	figures, err := admin.NewDailyFiguresTask(db.Owner(), adminseed.PowMaxNumber, logger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := figures.Run(ctx, now); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "introductions-run.env")
	if err := os.WriteFile(path, []byte("FIRESTORE_EMULATOR_HOST="+host+"\nFIRESTORE_PROJECT="+project+"\nFIRESTORE_DATABASE="+emulatortest.Database+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	shell := map[string]string{"LOG_LEVEL": "error"} // as a second terminal has it: no emulator named
	getenv, err := withRunEnv(func(k string) string { return shell[k] }, path)
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(ctx, getenv, &out, &errs); err != nil {
		t.Fatalf("seed: %v\n%s", err, errs.String())
	}
	var ids []string
	if err := json.Unmarshal(out.Bytes(), &ids); err != nil || len(ids) == 0 {
		t.Fatalf("seed printed %q: %v", out.String(), err)
	}
	if !strings.Contains(errs.String(), project) {
		t.Errorf("the seed does not say where it wrote: %q", errs.String())
	}

	today := now.UTC().Truncate(24 * time.Hour)
	var days []string
	for d := 1; d <= admin.ChartDays; d++ {
		days = append(days, today.AddDate(0, 0, -d).Format(time.DateOnly))
	}
	kept, err := db.Owner().DailyFigures(ctx, days)
	if err != nil {
		t.Fatal(err)
	}
	confirmed, refused := 0, 0
	for _, f := range kept {
		confirmed += f.Confirmed
		for _, n := range f.Refused {
			refused += n
		}
	}
	if len(kept) != admin.ChartDays || confirmed == 0 || refused == 0 {
		t.Fatalf("the chart shows %d days, %d confirmed and %d refused: the seeded month is not counted", len(kept), confirmed, refused)
	}
}

// TestSeedWithoutMakeRun: neither the variable nor make run's file: one
// sentence that says what to start.
func TestSeedWithoutMakeRun(t *testing.T) {
	_, err := withRunEnv(func(string) string { return "" }, filepath.Join(t.TempDir(), "absent.env"))
	if err == nil || !strings.Contains(err.Error(), "start make run") {
		t.Fatalf("err = %v, want one that says to start make run", err)
	}
}
