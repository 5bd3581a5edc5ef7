package attachment

import (
	"context"
	"log/slog"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

// deleteBound is how long DeleteIntroduction waits for the bucket.
const deleteBound = 10 * time.Second

// DeleteIntroduction deletes every object introduction id ever had and
// returns how many, on a context detached from ctx's cancellation and
// bounded to deleteBound. A failure is logged (id and code only), not
// returned: the sweep deletes what is left.
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
