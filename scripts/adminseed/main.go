// Command adminseed fills the Firestore emulator with a month of realistic
// sample introductions, deliveries, refused attempts, sweep runs and daily
// figures, so the owner's admin can be seen with data: `go run
// ./scripts/adminseed` in another terminal beside `make run`. It seeds the
// emulator and project that make run names in
// ${TMPDIR:-/tmp}/introductions-run.env while it runs; FIRESTORE_EMULATOR_HOST,
// FIRESTORE_PROJECT and FIRESTORE_DATABASE, when set, name another (as the
// dev server reads them). It refuses to run without the emulator. Its
// figures are recounted for the days it wrote, so the chart shows them even
// after make run's first sweep counted those days empty. It prints the ids
// of the introductions it kept, newest first, as a JSON array.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/firestorestore"
)

// runEnvFile is where make run (scripts/run.sh) names its emulator and
// project while it runs.
func runEnvFile() string { return filepath.Join(os.TempDir(), "introductions-run.env") }

// runEnvKeys are what the seed takes from make run's file.
var runEnvKeys = []string{"FIRESTORE_EMULATOR_HOST", "FIRESTORE_PROJECT", "FIRESTORE_DATABASE"}

func main() {
	getenv, err := withRunEnv(os.Getenv, runEnvFile())
	if err == nil {
		// The Firestore client reads the emulator's address from the
		// process environment itself.
		err = os.Setenv("FIRESTORE_EMULATOR_HOST", getenv("FIRESTORE_EMULATOR_HOST"))
	}
	if err == nil {
		err = run(context.Background(), getenv, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adminseed:", err)
		os.Exit(1)
	}
}

// withRunEnv returns getenv as it is when FIRESTORE_EMULATOR_HOST is set;
// otherwise getenv with the emulator, project and database that make run
// wrote to path. With neither, its error says what to start.
func withRunEnv(getenv func(string) string, path string) (func(string) string, error) {
	if getenv("FIRESTORE_EMULATOR_HOST") != "" {
		return getenv, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no make run is running (%s is absent) and FIRESTORE_EMULATOR_HOST is unset: start make run in another terminal first, or set FIRESTORE_EMULATOR_HOST", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vals, err := readRunEnv(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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

// readRunEnv reads KEY=value lines and keeps runEnvKeys.
func readRunEnv(r io.Reader) (map[string]string, error) {
	vals := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		for _, want := range runEnvKeys {
			if k == want {
				vals[k] = v
			}
		}
	}
	return vals, sc.Err()
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
