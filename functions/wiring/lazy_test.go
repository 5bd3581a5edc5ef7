package wiring

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// TestColdStartSweeps: the request that builds a deployed function's
// service starts a sweep in the background (recorded as the cold start's);
// later requests start none; the Sweep function's cold start leaves the
// run to its own request, so its two requests record two runs by hand.
func TestColdStartSweeps(t *testing.T) {
	host := emulatortest.Host(t)
	for _, tt := range []struct {
		function     string
		method, path string
		status       int
		want         []intake.SweepTrigger
	}{
		{"Challenge", http.MethodGet, "/api/introductions/challenge", http.StatusOK, []intake.SweepTrigger{intake.SweepByColdStart}},
		{"Sweep", http.MethodPost, "/internal/sweep", http.StatusOK, []intake.SweepTrigger{intake.SweepByOwner, intake.SweepByOwner}},
	} {
		t.Run(tt.function, func(t *testing.T) {
			project := emulatortest.Project(t)
			emulatortest.Reset(t, host, project)
			t.Cleanup(func() { emulatortest.Reset(t, host, project) })
			env := map[string]string{"FIRESTORE_PROJECT": project, "LOG_LEVEL": "error"}
			l := NewLazy(func(k string) string { return env[k] })
			serve := l.Function(tt.function)
			for range 2 {
				w := httptest.NewRecorder()
				serve(w, httptest.NewRequest(tt.method, tt.path, nil))
				if w.Code != tt.status {
					t.Fatalf("%s %s: %d %s", tt.method, tt.path, w.Code, w.Body)
				}
			}
			l.svc.Sweeps.Wait()
			defer l.svc.Close()
			runs, err := l.svc.Store.LastRuns(context.Background(), 10)
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
