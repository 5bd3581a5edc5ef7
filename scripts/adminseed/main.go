// Command adminseed fills the Firestore emulator with a month of realistic
// sample introductions, deliveries, refused attempts, sweep runs and daily
// figures (recounted), so the owner's admin can be seen with data: `go run
// ./scripts/adminseed` beside `make run`. It seeds the emulator and project
// that make run names in ${TMPDIR:-/tmp}/introductions-run.env, unless
// FIRESTORE_EMULATOR_HOST (with FIRESTORE_PROJECT, FIRESTORE_DATABASE) names
// another; it refuses to run without the emulator. It prints the ids it kept
// as a JSON array.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/firestorestore"
)

// runEnvFile is where make run names its emulator and project while it runs.
func runEnvFile() string { return filepath.Join(os.TempDir(), "introductions-run.env") }

// runEnvKeys are what the seed takes from make run's file.
var runEnvKeys = []string{"FIRESTORE_EMULATOR_HOST", "FIRESTORE_PROJECT", "FIRESTORE_DATABASE"}

func main() {
	getenv, err := withRunEnv(os.Getenv, runEnvFile())
	if err == nil {
		err = os.Setenv("FIRESTORE_EMULATOR_HOST", getenv("FIRESTORE_EMULATOR_HOST")) // the client reads it there
	}
	if err == nil {
		err = run(context.Background(), getenv, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adminseed:", err)
		os.Exit(1)
	}
}

// withRunEnv returns getenv when it names FIRESTORE_EMULATOR_HOST, else getenv
// with runEnvKeys from make run's file at path; with neither, an error says what to start.
func withRunEnv(getenv func(string) string, path string) (func(string) string, error) {
	if getenv("FIRESTORE_EMULATOR_HOST") != "" {
		return getenv, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no make run is running (%s is absent) and FIRESTORE_EMULATOR_HOST is unset: start make run in another terminal first, or set FIRESTORE_EMULATOR_HOST", path)
	}
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && slices.Contains(runEnvKeys, k) {
			vals[k] = v
		}
	}
	if vals["FIRESTORE_EMULATOR_HOST"] == "" {
		return nil, fmt.Errorf("%s names no FIRESTORE_EMULATOR_HOST", path)
	}
	return func(k string) string {
		if v, ok := vals[k]; ok && getenv(k) == "" {
			return v
		}
		return getenv(k)
	}, nil
}

func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	if getenv("FIRESTORE_EMULATOR_HOST") == "" {
		return errors.New("FIRESTORE_EMULATOR_HOST is unset: sample data goes into the emulator only")
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	logger := cloudlog.New(stderr, cfg.LogLevel)
	client, err := firestore.NewClientWithDatabase(ctx, cfg.Project, cfg.Database)
	if err != nil {
		return err
	}
	defer client.Close()
	db, err := firestorestore.New(client, firestorestore.Config{Project: cfg.Project, Database: cfg.Database, OpTimeout: cfg.FirestoreTimeout}, logger)
	if err != nil {
		return err
	}
	now := time.Now()
	ids, err := adminseed.SeedRealistic(ctx, db, client, now)
	if err != nil {
		return err
	}
	// The figures task counts each day once: drop those of the seeded days so the sweep counts
	// them again.
	if err := dropFigures(ctx, client, now); err != nil {
		return err
	}
	figures, err := admin.NewDailyFiguresTask(db.Owner(), adminseed.PowMaxNumber, logger)
	if err != nil {
		return err
	}
	if _, err := figures.Run(ctx, now); err != nil {
		return err
	}
	if err := json.NewEncoder(stdout).Encode(ids); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "adminseed: %d introductions and a month of figures written to project %s at %s; reload the admin\n", len(ids), cfg.Project, getenv("FIRESTORE_EMULATOR_HOST"))
	return nil
}

// dropFigures deletes the kept figures of the chart's days before now.
func dropFigures(ctx context.Context, client *firestore.Client, now time.Time) error {
	today := now.UTC().Truncate(24 * time.Hour)
	bw := client.BulkWriter(ctx)
	for d := 1; d <= admin.ChartDays; d++ {
		ref := client.Collection(firestorestore.DailyFigures).Doc(today.AddDate(0, 0, -d).Format(time.DateOnly))
		if _, err := bw.Delete(ref); err != nil {
			return err
		}
	}
	bw.End()
	return nil
}
