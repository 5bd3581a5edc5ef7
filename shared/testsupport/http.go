package testsupport

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// SiteOrigin is the origin tests allow for CORS.
const SiteOrigin = "https://site.example"

// Request is one request a handler test sends.
type Request struct {
	Method, Path string
	// ContentType defaults to application/json when Body is set.
	ContentType string
	Body        string
	// Origin is sent as the Origin header when set.
	Origin string
	// Header holds further request headers.
	Header map[string]string
}

// Serve sends req to h and returns the recorded answer.
func Serve(h http.Handler, req Request) *httptest.ResponseRecorder {
	r := httptest.NewRequest(req.Method, req.Path, strings.NewReader(req.Body))
	switch {
	case req.ContentType != "":
		r.Header.Set("Content-Type", req.ContentType)
	case req.Body != "":
		r.Header.Set("Content-Type", "application/json")
	}
	if req.Origin != "" {
		r.Header.Set("Origin", req.Origin)
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// ProblemCode returns a problem+json answer's code, failing otherwise.
func ProblemCode(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	var p struct {
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d, Content-Type %q, want application/problem+json: %s", w.Code, ct, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != w.Code || p.Code == "" {
		t.Fatalf("status %d, body %s is not a problem of that status (%v)", w.Code, w.Body, err)
	}
	return p.Code
}

// CheckEdges checks path's preflight (204, allowing allow), PATCH (405),
// a path below it (404) and that only SiteOrigin may read the answers.
func CheckEdges(t *testing.T, h http.Handler, path, allow string) {
	t.Helper()
	t.Run("preflight", func(t *testing.T) {
		w := Serve(h, Request{Method: http.MethodOptions, Path: path, Origin: SiteOrigin})
		if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Methods") != allow ||
			w.Header().Get("Access-Control-Allow-Origin") != SiteOrigin || w.Header().Get("Allow") != allow+", OPTIONS" {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
	})
	t.Run("method not allowed", func(t *testing.T) {
		w := Serve(h, Request{Method: http.MethodPatch, Path: path, Origin: SiteOrigin})
		if code := ProblemCode(t, w); w.Code != http.StatusMethodNotAllowed || code != "METHOD_NOT_ALLOWED" || w.Header().Get("Allow") != allow+", OPTIONS" {
			t.Fatalf("%d %s Allow %q", w.Code, code, w.Header().Get("Allow"))
		}
		if w.Header().Get("Access-Control-Allow-Origin") != SiteOrigin {
			t.Fatalf("the site's origin may not read the refusal: %v", w.Header())
		}
	})
	t.Run("not found", func(t *testing.T) {
		w := Serve(h, Request{Method: http.MethodGet, Path: path + "/nothing-here"})
		if code := ProblemCode(t, w); w.Code != http.StatusNotFound || code != "NOT_FOUND" {
			t.Fatalf("%d %s", w.Code, code)
		}
	})
	t.Run("other origins", func(t *testing.T) {
		for _, origin := range []string{"https://evil.example", "null"} {
			w := Serve(h, Request{Method: http.MethodOptions, Path: path, Origin: origin})
			if w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("Access-Control-Allow-Methods") != "" {
				t.Fatalf("origin %s: %v", origin, w.Header())
			}
		}
	})
}
