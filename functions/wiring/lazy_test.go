package wiring

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
)

// TestColdStartSweeps: the request that builds a deployed function starts
// a sweep in the background (recorded as the cold start's) where the
// function holds the store; later requests start none; the Sweep
// function's cold start leaves the run to its own request, so its two
// requests record two runs by hand; Challenge holds no store and sweeps
// nothing.
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
			l := NewLazy(tt.function, func(k string) string { return env[k] })
			for range 2 {
				w := httptest.NewRecorder()
				l.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
				if w.Code != http.StatusOK {
					t.Fatalf("%s %s: %d %s", tt.method, tt.path, w.Code, w.Body)
				}
			}
			defer l.svc.Close()
			if tt.want == nil {
				if l.svc.DB != nil || l.svc.Sweeps != nil {
					t.Fatalf("%s holds a store (%v) or sweeps (%v)", tt.function, l.svc.DB != nil, l.svc.Sweeps != nil)
				}
				return
			}
			l.svc.Sweeps.Wait()
			runs, err := l.svc.DB.Owner().LastRuns(context.Background(), 10)
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

// TestAFailedStartBacksOff: a start that fails is answered 503 with
// Retry-After, and the next attempt waits for the backoff (doubling up to
// LastRetry) instead of running on every request; requests arriving while
// one attempt runs wait for it rather than starting their own.
func TestAFailedStartBacksOff(t *testing.T) {
	saved := stderr
	stderr = io.Discard
	t.Cleanup(func() { stderr = saved })
	var attempts atomic.Int32
	release := make(chan struct{})
	getenv := func(k string) string {
		if k == "PORT" { // read once per attempt
			attempts.Add(1)
			<-release
		}
		if k == "POW_MAX_NUMBER" {
			return "not a number"
		}
		return ""
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := NewLazy("Forms", getenv)
	l.now = func() time.Time { return now }
	serve := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		l.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/forms/introduction", nil))
		return w
	}

	var wg sync.WaitGroup
	answers := make([]*httptest.ResponseRecorder, 8)
	for i := range answers {
		wg.Go(func() { answers[i] = serve() })
	}
	for attempts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if n := attempts.Load(); n != 1 {
		t.Fatalf("8 requests during one start made %d attempts, want 1", n)
	}
	for _, w := range answers {
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Fatalf("a failed start answered %d Retry-After %q, want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
		}
	}

	for _, wait := range []time.Duration{FirstRetry, 2 * FirstRetry, 4 * FirstRetry} {
		before := attempts.Load()
		if w := serve(); w.Code != http.StatusServiceUnavailable || attempts.Load() != before {
			t.Fatalf("within the backoff: %d and %d attempts, want 503 and none", w.Code, attempts.Load()-before)
		}
		now = now.Add(wait)
		if serve(); attempts.Load() != before+1 {
			t.Fatalf("after %s: %d attempts, want 1", wait, attempts.Load()-before)
		}
	}
}
