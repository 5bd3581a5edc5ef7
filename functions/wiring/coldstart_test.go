package wiring_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// TestColdStartSweeps: the request that builds a deployed function starts
// a sweep in the background (recorded as the cold start's) where the
// function holds the store; later requests start none; the Sweep
// function's cold start leaves the run to its own request, so its two
// requests record two runs by hand; Challenge, built as its entry package
// builds it, holds no store and sweeps nothing.
func TestColdStartSweeps(t *testing.T) {
	host := emulatortest.Host(t)
	for _, tt := range []struct {
		function     string
		method, path string
		want         []intake.SweepTrigger
	}{
		{"Challenge", http.MethodGet, "/api/introductions/challenge", nil},
		{"Admin", http.MethodGet, "/admin/api/health", []intake.SweepTrigger{intake.SweepByColdStart}},
		{"Sweep", http.MethodPost, "/internal/sweep", []intake.SweepTrigger{intake.SweepByOwner, intake.SweepByOwner}},
	} {
		t.Run(tt.function, func(t *testing.T) {
			project := emulatortest.Project(t)
			emulatortest.Reset(t, host, project)
			t.Cleanup(func() { emulatortest.Reset(t, host, project) })
			env := map[string]string{"FIRESTORE_PROJECT": project, "LOG_LEVEL": "error"}
			l := wiring.NewLazy(function(t, tt.function), func(k string) string { return env[k] })
			for range 2 {
				w := httptest.NewRecorder()
				l.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
				if w.Code != http.StatusOK {
					t.Fatalf("%s %s: %d %s", tt.method, tt.path, w.Code, w.Body)
				}
			}
			// The lazy function's instance is its own: the test reads the
			// project's runs through another.
			cfg, err := config.Load(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			svc, err := dbparts.Build(context.Background(), cfg, slog.New(slog.DiscardHandler), dbparts.Overrides{}, function(t, "Admin"))
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			runs := finishedRuns(t, svc, len(tt.want))
			var got []intake.SweepTrigger
			for _, r := range runs {
				got = append(got, r.Trigger)
				if r.Error != "" || r.FinishedAt.Before(r.StartedAt) || time.Since(r.StartedAt) > time.Minute {
					t.Errorf("run %+v", r)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("recorded runs %q, want %q", got, tt.want)
			}
		})
	}
}

// finishedRuns waits (up to a minute) until the project holds n finished
// sweep runs, and returns every run it holds, newest first.
func finishedRuns(t *testing.T, svc *dbparts.Service, n int) []intake.SweepRun {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		runs, err := svc.DB.Owner().LastRuns(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		finished := 0
		for _, r := range runs {
			if !r.FinishedAt.IsZero() {
				finished++
			}
		}
		if finished >= n || time.Now().After(deadline) {
			return runs
		}
	}
}
