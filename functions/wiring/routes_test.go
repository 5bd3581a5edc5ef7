package wiring

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/ownersite/introductions/functions/wiring/light"
	"github.com/ownersite/introductions/shared/intakeflow"
)

// TestRouteTable checks the paths that are written outside the table
// against it: the withdrawal path the ledger and the page are told, and the
// challenge path the form definition publishes; and that package light's
// rows are the table's rows of the functions light builds, and only those.
func TestRouteTable(t *testing.T) {
	mux := http.NewServeMux()
	for _, rt := range routes {
		rt := rt
		mux.HandleFunc(rt.Pattern, func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Function", rt.Function) })
	}
	served := func(method, path string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Header().Get("Function")
	}
	if got := served("POST", intakeflow.WithdrawalPath("abc")); got != "Confirmation" {
		t.Errorf("POST %s is served by %q, want Confirmation", intakeflow.WithdrawalPath("abc"), got)
	}
	if got := served("GET", "/api/introductions/challenge"); got != "Challenge" {
		t.Errorf("GET /api/introductions/challenge is served by %q, want Challenge", got)
	}
	if len(Functions()) != 7 || len(Patterns("Confirmation")) != 3 || len(Patterns("DeliveryEvents")) != 1 || Patterns("NoSuchFunction") != nil {
		t.Errorf("Functions() = %q, Patterns(Confirmation) = %q", Functions(), Patterns("Confirmation"))
	}
	for _, rt := range routes {
		_, isLight := light.Builders[rt.Function]
		inLight := slices.ContainsFunc(light.Routes(), func(l light.Route) bool { return l.Pattern == rt.Pattern })
		if isLight != inLight {
			t.Errorf("%s %s: built by package light %v, a row of light's table %v", rt.Function, rt.Pattern, isLight, inLight)
		}
	}
}
