package wiring

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ownersite/introductions/shared/intakeflow"
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
	if len(Functions()) != 4 || len(Patterns("Confirmation")) != 2 || Patterns("NoSuchFunction") != nil {
		t.Errorf("Functions() = %q, Patterns(Confirmation) = %q", Functions(), Patterns("Confirmation"))
	}
}
