// Command adminseed fills the Firestore database the environment names
// (FIRESTORE_EMULATOR_HOST, FIRESTORE_PROJECT, FIRESTORE_DATABASE, as the
// dev server reads them) with a month of realistic sample introductions,
// deliveries, refused attempts, sweep runs and daily figures, so the
// owner's admin can be seen with data: `go run ./scripts/adminseed` beside
// `make run`. It refuses to run without the emulator. It prints the ids of
// the introductions it kept, newest first, as a JSON array.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/firestorestore"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "adminseed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	if getenv("FIRESTORE_EMULATOR_HOST") == "" {
		return errors.New("FIRESTORE_EMULATOR_HOST is unset: sample data goes into the emulator only")
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	logger := cloudlog.New(os.Stderr, cfg.LogLevel)
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
	// The daily figures, counted as the sweep counts them.
	figures, err := admin.NewDailyFiguresTask(db.Owner(), logger)
	if err != nil {
		return err
	}
	if _, err := figures.Run(ctx, now); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(ids)
}
