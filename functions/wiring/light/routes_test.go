package light

import (
	"log/slog"
	"net/http"
	"slices"
	"testing"

	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestTheRowsAreTheBuildersFunctions: the table here has rows of exactly
// the functions built here, and the Forms definition's challenge path is
// one of Challenge's rows.
func TestTheRowsAreTheBuildersFunctions(t *testing.T) {
	var built []string
	for name := range Builders {
		built = append(built, name)
	}
	if got := slices.Sorted(slices.Values(routes.Functions())); !slices.Equal(got, slices.Sorted(slices.Values(built))) {
		t.Errorf("rows of %q, builders of %q", got, built)
	}
	if got := routes.Patterns("Challenge"); !slices.Contains(got, "GET "+pathOf("Challenge")) {
		t.Errorf("Challenge serves %q, not GET %s", got, pathOf("Challenge"))
	}
}

// TestMuxServesEveryRowsPath serves a made-up table with a row outside
// /api/ (as the sweep's is) and checks that the dev server's mux serves it
// from the table, refuses another method there with 405, and leaves other
// paths to the page.
func TestMuxServesEveryRowsPath(t *testing.T) {
	table := Table{
		{"Probe", "POST /internal/probe", func(*Handlers) jsonapi.Handler {
			return func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(http.StatusAccepted); return nil }
		}},
		{"Probe", "GET /internal/probe", func(*Handlers) jsonapi.Handler {
			return func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(http.StatusOK); return nil }
		}},
	}
	api := testsupport.Must(table.Serve(&Handlers{}, []string{"Probe"}, nil, slog.New(slog.DiscardHandler)))(t)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mux := (&Service{api: api, table: table}).Mux(page)
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
