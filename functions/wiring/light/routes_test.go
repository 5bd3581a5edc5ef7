package light

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/ownersite/introductions/shared/intakeflow"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestRouteTable checks the paths that are written outside the table
// against it: the withdrawal path the ledger and the page are told, and the
// challenge path the form definition publishes.
func TestRouteTable(t *testing.T) {
	mux := http.NewServeMux()
	for _, rt := range routes {
		rt := rt
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Function", rt.function) })
	}
	served := func(method, path string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Header().Get("Function")
	}
	if got := served("POST", intakeflow.WithdrawalPath("abc")); got != "Confirmation" {
		t.Errorf("POST %s is served by %q, want Confirmation", intakeflow.WithdrawalPath("abc"), got)
	}
	if got := served("GET", pathOf("Challenge")); got != "Challenge" {
		t.Errorf("GET %s is served by %q, want Challenge", pathOf("Challenge"), got)
	}
	if len(Functions()) != 7 || len(Patterns("Confirmation")) != 3 || len(Patterns("DeliveryEvents")) != 1 || Patterns("NoSuchFunction") != nil {
		t.Errorf("Functions() = %q, Patterns(Confirmation) = %q", Functions(), Patterns("Confirmation"))
	}
}

// TestMuxServesEveryRowsPath adds a made-up row outside /api/ (as the
// sweep's is) and checks that the dev server's mux serves it from the table,
// refuses another method there with 405, and leaves other paths to the page.
func TestMuxServesEveryRowsPath(t *testing.T) {
	saved := routes
	t.Cleanup(func() { routes = saved })
	routes = append(slices.Clip(routes),
		route{"Probe", "POST /internal/probe", func(*Handlers) jsonapi.Handler {
			return func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(http.StatusAccepted); return nil }
		}},
		route{"Probe", "GET /internal/probe", func(*Handlers) jsonapi.Handler {
			return func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(http.StatusOK); return nil }
		}})
	api := testsupport.Must(Serve(&Handlers{}, "Probe", nil, slog.New(slog.DiscardHandler)))(t)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mux := (&Service{api: api}).Mux(page)
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
