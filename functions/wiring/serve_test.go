package wiring

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// probe is a made-up function with a row outside /api/ (as the sweep's
// is), whose handlers are a status each.
type probe struct{ post, get int }

func (p *probe) status(code func(*probe) int) jsonapi.Handler {
	return func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(code(p)); return nil }
}

func probeRoutes(p *probe) []jsonapi.Route {
	return []jsonapi.Route{
		{Pattern: "POST /internal/probe", Handle: p.status(func(p *probe) int { return p.post })},
		{Pattern: "GET /internal/probe", Handle: p.status(func(p *probe) int { return p.get })},
	}
}

// TestMuxServesEveryRowsPath serves a made-up function and checks that
// its rows are listed without building it, that the dev server's mux
// serves them from the built handlers, refuses another method there with
// 405, and leaves other paths to the page.
func TestMuxServesEveryRowsPath(t *testing.T) {
	fn := NewFunction("Probe", probeRoutes, func(*Parts) (*probe, error) { return &probe{post: http.StatusAccepted, get: http.StatusOK}, nil })
	if got := fn.Patterns(); len(got) != 2 || got[0] != "POST /internal/probe" {
		t.Fatalf("patterns %q", got)
	}
	p := &Parts{Logger: slog.New(slog.DiscardHandler), made: map[string]any{}}
	svc := testsupport.Must(p.Serve(fn))(t)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mux := svc.Mux(page)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/internal/probe", http.StatusAccepted},
		{"GET", "/internal/probe", http.StatusOK},
		{"DELETE", "/internal/probe", http.StatusMethodNotAllowed},
		{"GET", "/api/nothing", http.StatusNotFound},
		{"GET", "/", http.StatusTeapot},
		{"GET", "/internal/other", http.StatusTeapot},
	} {
		if w := testsupport.Serve(mux, testsupport.Request{Method: tc.method, Path: tc.path}); w.Code != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, w.Code, tc.status)
		}
	}
}
