package wiring

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/jsonapi"
)

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
	l := NewLazy(Function{Name: "Forms", Build: func(*Parts) ([]jsonapi.Route, error) { return nil, nil }}, getenv)
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

	// Each wait is the one before doubled, up to LastRetry: a request a
	// millisecond before it ends starts nothing, one at its end does.
	for wait, i := FirstRetry, 0; i < 7; wait, i = min(2*wait, LastRetry), i+1 {
		before := attempts.Load()
		now = now.Add(wait - time.Millisecond)
		if w := serve(); w.Code != http.StatusServiceUnavailable || attempts.Load() != before {
			t.Fatalf("%s into a wait of %s: %d and %d attempts, want 503 and none", wait-time.Millisecond, wait, w.Code, attempts.Load()-before)
		}
		now = now.Add(time.Millisecond)
		if serve(); attempts.Load() != before+1 {
			t.Fatalf("after %s: %d attempts, want 1", wait, attempts.Load()-before)
		}
	}
}
