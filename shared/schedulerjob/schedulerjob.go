// Package schedulerjob reads how the Cloud Scheduler job that calls the
// sweep stands (schedule, state, last attempt and its status), for the
// owner's retention view. It only reads: the service account needs
// roles/cloudscheduler.viewer on that one job.
package schedulerjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	scheduler "cloud.google.com/go/scheduler/apiv1"
	"cloud.google.com/go/scheduler/apiv1/schedulerpb"
	"google.golang.org/genproto/googleapis/rpc/code"

	"github.com/ownersite/introductions/shared/intake"
)

// Reader reads one job.
type Reader struct {
	client  *scheduler.CloudSchedulerClient
	job     string
	timeout time.Duration
}

// Open returns a Reader of job (projects/P/locations/L/jobs/J, as config checks) with the
// default credentials, each read bounded by timeout.
func Open(ctx context.Context, job string, timeout time.Duration) (*Reader, error) {
	if timeout <= 0 {
		return nil, errors.New("schedulerjob: timeout must be positive")
	}
	c, err := scheduler.NewCloudSchedulerClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("schedulerjob: %w", err)
	}
	return &Reader{client: c, job: job, timeout: timeout}, nil
}

// Close releases the client.
func (r *Reader) Close() error { return r.client.Close() }

// Status reads the job; its errors are the API's.
func (r *Reader) Status(ctx context.Context) (intake.SchedulerStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	job, err := r.client.GetJob(ctx, &schedulerpb.GetJobRequest{Name: r.job})
	if err != nil {
		return intake.SchedulerStatus{}, fmt.Errorf("schedulerjob: reading %s: %w", r.job, err)
	}
	return StatusOf(job), nil
}

// StatusOf translates the API's job into the domain's status ("" when never run).
func StatusOf(job *schedulerpb.Job) intake.SchedulerStatus {
	s := intake.SchedulerStatus{Job: job.GetName(), Schedule: job.GetSchedule(), TimeZone: job.GetTimeZone(), State: job.GetState().String()}
	if t := job.GetLastAttemptTime(); t != nil && t.IsValid() && (t.Seconds != 0 || t.Nanos != 0) {
		s.LastAttempt = t.AsTime().UTC()
		s.LastStatus = code.Code(job.GetStatus().GetCode()).String()
	}
	return s
}
