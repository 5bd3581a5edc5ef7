package jsonapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

func TestEveryCodeHasAStatus(t *testing.T) {
	for c := range statusOf {
		if p := ProblemFor(&intake.Error{Code: c}); p.Status == 0 || p.Title == "" {
			t.Errorf("%s has no status or title", c)
		}
	}
	if ProblemFor(&intake.Error{Code: "NO_SUCH_CODE"}).Status != 500 {
		t.Fatal("unknown codes are 500")
	}
}

// testRoutes serves two routes on one path and one on another.
func testRoutes(t *testing.T) http.Handler {
	t.Helper()
	ok := func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(http.StatusOK); return nil }
	h, err := NewRoutes([]Route{
		{"GET /things/{id}", ok},
		{"DELETE /things/{id}", ok},
		{"POST /things", func(w http.ResponseWriter, r *http.Request) error { return intake.ErrNotFound }},
		{"POST /panics", func(w http.ResponseWriter, r *http.Request) error { panic("secret detail") }},
	}, []string{"https://site.example", "*", "null"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRoutes(t *testing.T) {
	h := testRoutes(t)
	cases := []struct {
		name, method, path string
		status             int
		code, allow        string
	}{
		{"a route", "GET", "/things/1", 200, "", ""},
		{"HEAD with GET", "HEAD", "/things/1", 200, "", ""},
		{"another method of the path", "DELETE", "/things/1", 200, "", ""},
		{"a refusal the handler returns", "POST", "/things", 404, "NOT_FOUND", ""},
		{"a method no route has", "PUT", "/things/1", 405, "METHOD_NOT_ALLOWED", "GET, HEAD, DELETE, OPTIONS"},
		{"a method of another path", "GET", "/things", 405, "METHOD_NOT_ALLOWED", "POST, OPTIONS"},
		{"no such path", "GET", "/nothing", 404, "NOT_FOUND", ""},
		{"a longer path", "GET", "/things/1/more", 404, "NOT_FOUND", ""},
		{"an empty segment", "GET", "/things//1", 404, "NOT_FOUND", ""},
		{"a dot-dot segment", "GET", "/other/../things/1", 404, "NOT_FOUND", ""},
		{"preflight", "OPTIONS", "/things/1", 204, "", "GET, HEAD, DELETE, OPTIONS"},
		{"preflight to no such path", "OPTIONS", "/nothing", 404, "NOT_FOUND", ""},
		{"a panic", "POST", "/panics", 500, "INTERNAL", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.status || w.Header().Get("Allow") != tc.allow {
				t.Fatalf("%d Allow %q, want %d Allow %q", w.Code, w.Header().Get("Allow"), tc.status, tc.allow)
			}
			if tc.code != "" {
				var p Problem
				if w.Header().Get("Content-Type") != "application/problem+json" || json.Unmarshal(w.Body.Bytes(), &p) != nil || string(p.Code) != tc.code {
					t.Fatalf("%s %s, want problem+json %s", w.Header().Get("Content-Type"), w.Body, tc.code)
				}
			}
			if strings.Contains(w.Body.String(), "secret") || w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("headers %v body %s", w.Header(), w.Body)
			}
		})
	}
}

func TestRoutesAllowOnlyListedOrigins(t *testing.T) {
	h := testRoutes(t)
	cases := []struct{ name, method, path, origin, wantACAO, wantMethods string }{
		{"listed origin", "GET", "/things/1", "https://site.example", "https://site.example", ""},
		{"listed origin on a refusal", "GET", "/nothing", "https://site.example", "https://site.example", ""},
		{"other origin", "GET", "/things/1", "https://evil.example", "", ""},
		{"null origin", "GET", "/things/1", "null", "", ""},
		{"preflight from listed origin", "OPTIONS", "/things", "https://site.example", "https://site.example", "POST"},
		{"preflight from other origin", "OPTIONS", "/things", "https://evil.example", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, nil)
			r.Header.Set("Origin", tc.origin)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.wantACAO {
				t.Fatalf("ACAO %q, want %q", got, tc.wantACAO)
			}
			if got := w.Header().Get("Access-Control-Allow-Methods"); got != tc.wantMethods {
				t.Fatalf("Allow-Methods %q, want %q", got, tc.wantMethods)
			}
			if w.Header().Get("Access-Control-Allow-Credentials") != "" {
				t.Fatalf("headers %v", w.Header())
			}
		})
	}
}

func TestNewRoutesRefusesBadTables(t *testing.T) {
	ok := func(w http.ResponseWriter, r *http.Request) error { return nil }
	logger := slog.New(slog.DiscardHandler)
	for name, routes := range map[string][]Route{
		"no method":         {{"/things", ok}},
		"OPTIONS":           {{"OPTIONS /things", ok}},
		"no handler":        {{"GET /things", nil}},
		"the same twice":    {{"GET /things", ok}, {"GET /things", ok}},
		"conflicting names": {{"GET /things/{a}", ok}, {"GET /things/{b}", ok}},
	} {
		if _, err := NewRoutes(routes, nil, logger); err == nil {
			t.Errorf("%s: NewRoutes succeeded", name)
		}
	}
	if _, err := NewRoutes(nil, nil, nil); err == nil {
		t.Error("NewRoutes without a logger succeeded")
	}
}

func TestReadJSON(t *testing.T) {
	type body struct {
		Token string `json:"token"`
	}
	cases := []struct {
		name, contentType, body string
		code                    intake.Code
	}{
		{"one object", "application/json", `{"token":"t"}`, ""},
		{"charset utf-8", "application/json; charset=utf-8", `{"token":"t"}`, ""},
		{"other charset", "application/json; charset=latin1", `{"token":"t"}`, intake.CodeUnsupportedMediaType},
		{"not JSON", "text/plain", `{"token":"t"}`, intake.CodeUnsupportedMediaType},
		{"unknown member", "application/json", `{"token":"t","x":1}`, intake.CodeUnreadableBody},
		{"two objects", "application/json", `{"token":"t"}{}`, intake.CodeUnreadableBody},
		{"an array", "application/json", `[]`, intake.CodeUnreadableBody},
		{"cut short", "application/json", `{"token":`, intake.CodeUnreadableBody},
		{"too large", "application/json", `{"token":"` + strings.Repeat("x", MaxBody) + `"}`, intake.CodeBodyTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			var b body
			err := ReadJSON(httptest.NewRecorder(), r, &b)
			if intake.CodeOf(err) != tc.code {
				t.Fatalf("error %v, want code %q", err, tc.code)
			}
			if tc.code == "" && b.Token != "t" {
				t.Fatalf("decoded %+v", b)
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
		{"no proxy: the header is the client's own and ignored", "198.51.100.77", "192.0.2.4:1234", 0, "192.0.2.4"},
		{"no proxy: a list is ignored too", "198.51.100.77, 198.51.100.78", "192.0.2.4:1234", 0, "192.0.2.4"},
		{"no proxy: IPv6 connection", "198.51.100.77", "[2001:db8:1:2::99]:443", 0, "2001:db8:1:2::99"},
		{"Cloud Run: a forged entry on the left is ignored", "198.51.100.77, 2001:db8:1:2::5", "10.0.0.1:5", 1, "2001:db8:1:2::5"},
		{"Firebase Hosting: visitor, then Hosting's edge", "198.51.100.77, 203.0.113.9, 35.190.0.1", "10.0.0.1:5", 2, "203.0.113.9"},
		{"load balancer: client, then the balancer", "203.0.113.9, 34.120.0.1", "10.0.0.1:5", 2, "203.0.113.9"},
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

func TestReadJSONRefusesAmbiguousOrInvalidText(t *testing.T) {
	cases := []struct {
		name, body string
		ok         bool
	}{
		{"plain object", `{"a":1,"b":{"c":[{"d":1},{"d":2}]}}`, true},
		{"the same name in sibling objects", `{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":1}]}`, true},
		{"a string value equal to a key", `{"a":"a","b":"a"}`, true},
		{"invalid UTF-8 in a string", "{\"name\":\"Ada \xff\"}", false},
		{"invalid UTF-8 outside strings", "{\"name\":\"Ada\"}\xc0", false},
		{"a member twice", `{"given":false,"given":true}`, false},
		{"a member twice in different case", `{"given":false,"GIVEN":true}`, false},
		{"a member twice in a nested object", `{"consents":[{"given":false,"Given":true}]}`, false},
		{"case folding beyond ASCII", `{"straße":1,"STRASSE":2}`, false},
		{"the Kelvin sign folds to k", "{\"k\":1,\"\u212a\":2}", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			var v map[string]any
			err := ReadJSON(httptest.NewRecorder(), r, &v)
			if tc.ok != (err == nil) || (err != nil && intake.CodeOf(err) != intake.CodeUnreadableBody) {
				t.Fatalf("ReadJSON(%q) = %v, want ok=%v or UNREADABLE_BODY", tc.body, err, tc.ok)
			}
		})
	}
}

// TestBearerToken: the scheme in any case (RFC 9110 §11.1) and one or more
// spaces before the token (RFC 6750 §2.1).
func TestBearerToken(t *testing.T) {
	cases := map[string]string{
		"Bearer tok":   "tok",
		"bearer tok":   "tok",
		"BEARER  tok ": "tok",
		"Bearer":       "",
		"Bearertok":    "",
		"Basic tok":    "",
		"Bearer\ttok":  "",
		"":             "",
	}
	for header, want := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", header)
		if got := BearerToken(r); got != want {
			t.Errorf("BearerToken(%q) = %q, want %q", header, got, want)
		}
	}
}
