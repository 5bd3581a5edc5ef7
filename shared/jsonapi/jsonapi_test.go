package jsonapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, c := range Codes() {
		if Status(c) == 0 || titleOf[Status(c)] == "" {
			t.Errorf("%s has no status or title", c)
		}
	}
	if Status("NO_SUCH_CODE") != 500 {
		t.Fatal("unknown codes are 500")
	}
}

func TestEdgeAllowsOnlyListedOrigins(t *testing.T) {
	h := Edge([]string{"https://site.example", "*", "null"}, "POST", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	cases := []struct{ name, method, origin, wantACAO string }{
		{"listed origin", "POST", "https://site.example", "https://site.example"},
		{"other origin", "POST", "https://evil.example", ""},
		{"null origin", "POST", "null", ""},
		{"preflight from listed origin", "OPTIONS", "https://site.example", "https://site.example"},
		{"preflight from other origin", "OPTIONS", "https://evil.example", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/x", nil)
			r.Header.Set("Origin", tc.origin)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.wantACAO {
				t.Fatalf("ACAO %q, want %q", got, tc.wantACAO)
			}
			if w.Header().Get("Access-Control-Allow-Credentials") != "" || w.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("headers %v", w.Header())
			}
		})
	}
}

func TestClientAddrTrustsOnlyTheConfiguredPosition(t *testing.T) {
	cases := []struct {
		name, xff, remote string
		position          int
		want              string
	}{
		{"rightmost entry", "1.1.1.1, 203.0.113.9", "10.0.0.1:5", 1, "203.0.113.9"},
		{"second from the right", "1.1.1.1, 203.0.113.9, 10.1.1.1", "10.0.0.1:5", 2, "203.0.113.9"},
		{"no header", "", "192.0.2.4:1234", 1, "192.0.2.4"},
		{"header shorter than the position", "203.0.113.9", "192.0.2.4:1234", 2, "192.0.2.4"},
		{"garbage entry", "1.1.1.1, not-an-ip", "192.0.2.4:1234", 1, "192.0.2.4"},
		{"mapped IPv4", "::ffff:203.0.113.9", "192.0.2.4:1234", 1, "203.0.113.9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := ClientAddr(r, tc.position); got != netip.MustParseAddr(tc.want) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInternalCausesNeverReachTheClient(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("GET", "/", nil), nil, intake.Internal(errSecret{}))
	if strings.Contains(w.Body.String(), "secret") || w.Code != 500 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("GET", "/", nil), nil, intake.Unavailable(errSecret{}, 0))
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || strings.Contains(w.Body.String(), "secret") {
		t.Fatalf("%d %s %v", w.Code, w.Body, w.Header())
	}
}

type errSecret struct{}

func (errSecret) Error() string { return "secret database detail" }
