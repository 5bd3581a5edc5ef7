package schedulerjob

import (
	"testing"
	"time"

	"cloud.google.com/go/scheduler/apiv1/schedulerpb"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ownersite/introductions/shared/config"
)

func TestStatusOf(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		job        *schedulerpb.Job
		wantStatus string
		wantAt     time.Time
		wantState  string
	}{
		{"never run", &schedulerpb.Job{Name: "projects/p/locations/l/jobs/sweep", Schedule: "0 * * * *", TimeZone: "Etc/UTC", State: schedulerpb.Job_ENABLED},
			"", time.Time{}, "ENABLED"},
		{"last attempt ok", &schedulerpb.Job{Schedule: "0 * * * *", State: schedulerpb.Job_ENABLED, LastAttemptTime: timestamppb.New(at), Status: &status.Status{}},
			"OK", at, "ENABLED"},
		{"last attempt refused", &schedulerpb.Job{Schedule: "0 * * * *", State: schedulerpb.Job_PAUSED, LastAttemptTime: timestamppb.New(at), Status: &status.Status{Code: 7}},
			"PERMISSION_DENIED", at, "PAUSED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := StatusOf(tc.job)
			if s.LastStatus != tc.wantStatus || !s.LastAttempt.Equal(tc.wantAt) || s.State != tc.wantState || s.Schedule != tc.job.Schedule {
				t.Fatalf("StatusOf = %+v, want status %q at %v, state %s", s, tc.wantStatus, tc.wantAt, tc.wantState)
			}
		})
	}
}

// TestConfigChecksTheJobName: Open trusts config to refuse a SCHEDULER_JOB that is no job name.
func TestConfigChecksTheJobName(t *testing.T) {
	for name, ok := range map[string]bool{
		"projects/p/locations/europe-west1/jobs/sweep": true,
		"sweep":                           false,
		"projects/p/locations/l/jobs/":    false,
		"projects/p/locations/l/jobs/a/b": false,
	} {
		_, err := config.Load(func(v string) string { return map[string]string{"SCHEDULER_JOB": name}[v] })
		if got := err == nil; got != ok {
			t.Errorf("SCHEDULER_JOB=%q ok = %v, want %v (%v)", name, got, ok, err)
		}
	}
}
