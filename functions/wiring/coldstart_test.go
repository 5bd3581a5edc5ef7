package wiring

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/wiring/light"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// TestColdStartSweeps: the request that builds a deployed function starts
// a sweep in the background (recorded as the cold start's) where the
// function holds the store; later requests start none; the Sweep
// function's cold start leaves the run to its own request, so its two
// requests record two runs by hand; Challenge, built as its entry package
// builds it (light.Deployed), holds no store and sweeps nothing.
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
			var built *light.Service
			var db *Service
			build := func(ctx context.Context, cfg config.Config, logger *slog.Logger, name string) (*light.Service, error) {
				if tt.want == nil {
					svc, err := light.Deployed(ctx, cfg, logger, name)
					built = svc
					return svc, err
				}
				svc, err := BuildFunction(ctx, cfg, logger, Overrides{}, name)
				if err != nil {
					return nil, err
				}
				built, db = svc.Service, svc
				return built, nil
			}
			l := light.NewLazy(tt.function, func(k string) string { return env[k] }, build)
			for range 2 {
				w := httptest.NewRecorder()
				l.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
				if w.Code != http.StatusOK {
					t.Fatalf("%s %s: %d %s", tt.method, tt.path, w.Code, w.Body)
				}
			}
			defer built.Close()
			if tt.want == nil {
				if built.Sweeps != nil {
					t.Fatalf("%s sweeps", tt.function)
				}
				return
			}
			built.Sweeps.Wait()
			runs, err := db.DB.Owner().LastRuns(context.Background(), 10)
			if err != nil {
				t.Fatal(err)
			}
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
