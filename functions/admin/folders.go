package admin

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// FolderStore files the introductions an earlier version of the service
// kept without a folder. Errors: UNAVAILABLE.
type FolderStore interface {
	// FoldersFiled reports whether a record of RecordFoldersFiled is live
	// at now.
	FoldersFiled(ctx context.Context, now time.Time) (bool, error)
	// FileFolders gives every introduction live at now that has no folder
	// the one intake.Introduction.Folder makes of its spam and likely-spam
	// fields, and reports how many it found without one and how many of
	// those it filed: one that changed since it was read (the owner marked
	// it meanwhile) keeps what it has and is left for the next run.
	FileFolders(ctx context.Context, now time.Time) (found, filed int, err error)
	// RecordFoldersFiled records that a backfill at now left every live
	// introduction with a folder, until expireAt.
	RecordFoldersFiled(ctx context.Context, now, expireAt time.Time) error
}

// FoldersCheckedFor is how long a backfill's record that every live
// introduction has a folder stands. While it does, a run reads it and
// nothing else; once it expires, one run scans the introductions again and
// records anew, so one that still came without a folder (kept by an
// instance of an earlier version during a deployment) is filed within
// this time.
const FoldersCheckedFor = 30 * 24 * time.Hour

// FolderBackfillTask is the sweep task that gives each introduction kept
// before folders existed the folder the owner's list filters by (inbox,
// likely-spam or spam), so that it shows in its filter and in the waiting
// count. A run that leaves none without a folder records so, and until
// that record expires (FoldersCheckedFor) a run costs one document read.
type FolderBackfillTask struct {
	store  FolderStore
	logger *slog.Logger
}

// NewFolderBackfillTask returns the task; it refuses a nil store or logger.
func NewFolderBackfillTask(store FolderStore, logger *slog.Logger) (*FolderBackfillTask, error) {
	if store == nil || logger == nil {
		return nil, errors.New("admin: NewFolderBackfillTask needs a store and a logger")
	}
	return &FolderBackfillTask{store: store, logger: logger}, nil
}

var _ intake.SweepTask = (*FolderBackfillTask)(nil)

// Name names the task in a sweep run.
func (t *FolderBackfillTask) Name() string { return "folder-backfill" }

// Run files the live introductions without a folder, unless a record says
// none is left, and records that none is left once it filed every one it
// found.
func (t *FolderBackfillTask) Run(ctx context.Context, now time.Time) (intake.SweepTaskResult, error) {
	done, err := t.store.FoldersFiled(ctx, now)
	if err != nil || done {
		return intake.SweepTaskResult{}, err
	}
	found, filed, err := t.store.FileFolders(ctx, now)
	if found > 0 {
		t.logger.LogAttrs(ctx, slog.LevelInfo, "admin: introductions without a folder filed", slog.Int("found", found), slog.Int("filed", filed))
	}
	if err != nil || filed < found {
		return intake.SweepTaskResult{}, err
	}
	return intake.SweepTaskResult{}, t.store.RecordFoldersFiled(ctx, now, now.Add(FoldersCheckedFor))
}
