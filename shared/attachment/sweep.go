package attachment

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// ClassAttachments is the class a sweep run counts deleted attachments under.
const ClassAttachments = "attachments"

// Grace is how old an object its live introduction does not name must be before the sweep
// deletes it (an upload is named after it streams).
const Grace = 15 * time.Minute

// lookupBatch is how many introductions one lookup reads.
const lookupBatch = 100

// Kept tells which object each live introduction's attachment is kept under.
type Kept interface {
	// AttachmentObjects maps each of ids live at now to its attachment's object ("" for none).
	// Errors: UNAVAILABLE.
	AttachmentObjects(ctx context.Context, ids []string, now time.Time) (map[string]string, error)
}

// SweepTask deletes every object whose introduction is gone or, older than Grace, no longer
// names it. It reads the whole bucket, so it runs on the Scheduler's sweep only.
type SweepTask struct {
	files  Files
	kept   Kept
	logger *slog.Logger
}

// NewSweepTask returns the task, or an error naming a missing part.
func NewSweepTask(files Files, kept Kept, logger *slog.Logger) (*SweepTask, error) {
	if files == nil || kept == nil || logger == nil {
		return nil, errors.New("attachment.NewSweepTask: files, kept and logger are required")
	}
	return &SweepTask{files: files, kept: kept, logger: logger}, nil
}

// Name is the task's name in a run's record.
func (t *SweepTask) Name() string { return "attachments" }

type object struct {
	name    string
	created time.Time
}

// Run deletes what no live introduction names. Errors: UNAVAILABLE.
func (t *SweepTask) Run(ctx context.Context, now time.Time) (intake.SweepTaskResult, error) {
	res := intake.SweepTaskResult{Deleted: map[string]int{ClassAttachments: 0}}
	byID := map[string][]object{}
	var ids []string
	err := t.files.Objects(ctx, func(name string, created time.Time) error {
		id, _, _ := strings.Cut(name, "/")
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], object{name, created})
		return nil
	})
	if err != nil {
		return res, err
	}
	for len(ids) > 0 {
		batch := ids[:min(lookupBatch, len(ids))]
		ids = ids[len(batch):]
		kept, err := t.kept.AttachmentObjects(ctx, batch, now)
		if err != nil {
			return res, err
		}
		for _, id := range batch {
			named, live := kept[id]
			for _, o := range byID[id] {
				if live && (o.name == named || now.Sub(o.created) < Grace) {
					continue
				}
				if err := t.files.Delete(ctx, o.name); err != nil {
					return res, err
				}
				res.Deleted[ClassAttachments]++
			}
		}
	}
	if n := res.Deleted[ClassAttachments]; n > 0 {
		t.logger.InfoContext(ctx, "sweep deleted attachments", slog.Int("attachments", n))
	}
	return res, nil
}

// deleteBound is how long DeleteIntroduction waits for the bucket.
const deleteBound = 10 * time.Second

// DeleteIntroduction deletes every object introduction id ever had and returns how many,
// within deleteBound even when ctx ends. A failure is logged (id and code), not returned: the
// sweep deletes what is left.
func DeleteIntroduction(ctx context.Context, files Files, logger *slog.Logger, id string) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteBound)
	defer cancel()
	n, err := files.DeleteUnder(ctx, intake.AttachmentPrefix(id))
	if err != nil {
		logger.WarnContext(ctx, "attachment not deleted; the sweep deletes it", slog.String("submissionId", id),
			slog.String("code", string(intake.CodeOf(err))))
	}
	return n
}
