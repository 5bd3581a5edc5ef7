package wiring_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/shared/intakeflow"
)

// TestRouteTable checks the paths that are written outside the table
// against it: the withdrawal path the ledger and the page are told, and the
// challenge path the form definition publishes; and that every function's
// rows are its own.
func TestRouteTable(t *testing.T) {
	mux := http.NewServeMux()
	patterns := map[string][]string{}
	for _, fn := range introductions.Functions {
		for _, pattern := range fn.Patterns() {
			mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Function", fn.Name) })
		}
		patterns[fn.Name] = fn.Patterns()
	}
	served := func(method, path string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Header().Get("Function")
	}
	if got := served("POST", intakeflow.WithdrawalPath("abc")); got != "Confirmation" {
		t.Errorf("POST %s is served by %q, want Confirmation", intakeflow.WithdrawalPath("abc"), got)
	}
	if got := served("GET", forms.ChallengePath); got != "Challenge" {
		t.Errorf("GET %s is served by %q, want Challenge", forms.ChallengePath, got)
	}
	if len(patterns) != 7 || len(patterns["Confirmation"]) != 3 || len(patterns["DeliveryEvents"]) != 1 || !slices.Contains(patterns["Admin"], "GET /admin/{$}") {
		t.Errorf("patterns %q", patterns)
	}
}
