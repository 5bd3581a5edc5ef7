package sitepage

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

func get(t *testing.T, method, path string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec.Result()
}

func TestServesAssets(t *testing.T) {
	for name, tc := range map[string]struct {
		path, contentType, cache, contains string
	}{
		"page":        {"/", "text/html; charset=utf-8", "no-cache", "data-introductions-form"},
		"form module": {"/js/introduction-form.js", "text/javascript; charset=utf-8", "public, max-age=300", "export async function attachConversation"},
		"solver":      {"/js/solver.js", "text/javascript; charset=utf-8", "public, max-age=300", "export function solve"},
		"worker":      {"/js/solver-worker.js", "text/javascript; charset=utf-8", "public, max-age=300", "BEGIN GENERATED ROUNDS"},
		"style":       {"/css/introduction-form.css", "text/css; charset=utf-8", "public, max-age=300", ".intro-hp"},
		"icon":        {"/favicon.svg", "image/svg+xml", "public, max-age=300", "<svg"},
	} {
		t.Run(name, func(t *testing.T) {
			res := get(t, http.MethodGet, tc.path, nil)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			for h, want := range map[string]string{
				"Content-Type":            tc.contentType,
				"Cache-Control":           tc.cache,
				"X-Content-Type-Options":  "nosniff",
				"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
			} {
				if got := res.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			etag := res.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			again := get(t, http.MethodGet, tc.path, http.Header{"If-None-Match": {etag}})
			if again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation status %d, want 304", again.StatusCode)
			}
		})
	}
}

func TestUnknownPathsAndMethods(t *testing.T) {
	for name, tc := range map[string]struct {
		method, path string
		status       int
	}{
		"unknown page":       {http.MethodGet, "/about", http.StatusNotFound},
		"unknown script":     {http.MethodGet, "/js/nope.js", http.StatusNotFound},
		"index by name":      {http.MethodGet, "/index.html", http.StatusNotFound},
		"screenshot":         {http.MethodGet, "/screenshots/form.png", http.StatusNotFound},
		"traversal":          {http.MethodGet, "/js/../sitepage.go", http.StatusNotFound},
		"nested":             {http.MethodGet, "/js/a/b.js", http.StatusNotFound},
		"post to page":       {http.MethodPost, "/", http.StatusMethodNotAllowed},
		"head of the module": {http.MethodHead, "/js/solver.js", http.StatusOK},
	} {
		t.Run(name, func(t *testing.T) {
			res := get(t, tc.method, tc.path, nil)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if res.Header.Get("Content-Security-Policy") != CSP || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("security headers missing")
			}
		})
	}
}

// TestNoInlineScriptOrStyle keeps the page working under default-src 'self'.
func TestNoInlineScriptOrStyle(t *testing.T) {
	page, err := fs.ReadFile(Assets(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, m := range regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		if !strings.Contains(m[1], "src=") || strings.TrimSpace(m[2]) != "" {
			t.Errorf("inline script: %q", m[0])
		}
	}
	for name, re := range map[string]string{
		"style element":   `(?i)<style\b`,
		"style attribute": `(?i)\sstyle\s*=`,
		"event handler":   `(?i)\son[a-z]+\s*=`,
		"javascript: url": `(?i)=\s*"\s*javascript:`,
		"remote resource": `(?i)(src|href)\s*=\s*"(https?:)?//`,
	} {
		if regexp.MustCompile(re).MatchString(html) {
			t.Errorf("index.html has a %s", name)
		}
	}
	// The scripts never write markup or styles from strings, and keep
	// nothing in the browser but what the form module keeps in the tab's
	// sessionStorage (what the visitor typed, the unconfirmed draft, and the
	// receipt when the visitor asks for it).
	err = fs.WalkDir(Assets(), "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(Assets(), p)
		if err != nil {
			return err
		}
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".style.", "localStorage", "sessionStorage", "indexedDB", "document.cookie"} {
			if bad == "sessionStorage" && p == "js/introduction-form.js" {
				continue
			}
			if strings.Contains(string(src), bad) {
				t.Errorf("%s uses %s", p, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNothingFromElsewhere keeps every asset free of addresses of other
// origins: no absolute or protocol-relative URL, no CSS import or url().
func TestNothingFromElsewhere(t *testing.T) {
	err := fs.WalkDir(Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(Assets(), p)
		if err != nil {
			return err
		}
		// An SVG file names its XML namespace with a URL that is never fetched.
		src = []byte(strings.ReplaceAll(string(src), `xmlns="http://www.w3.org/2000/svg"`, ""))
		bads := []string{"://", `"//`, "'//"}
		if strings.HasSuffix(p, ".css") {
			bads = append(bads, "@import", "url(")
		}
		for _, bad := range bads {
			if strings.Contains(string(src), bad) {
				t.Errorf("%s contains %q", p, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSolveBucketsMatchTheService holds the page's SOLVE_BUCKETS equal to
// intake.SolveBuckets: the page rounds the solve time it reports to the
// buckets the ledger keeps.
func TestSolveBucketsMatchTheService(t *testing.T) {
	src, err := fs.ReadFile(Assets(), "js/introduction-form.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const SOLVE_BUCKETS = \[([0-9, ]+)\];`).FindSubmatch(src)
	if m == nil {
		t.Fatal("introduction-form.js has no SOLVE_BUCKETS list")
	}
	want := make([]string, len(intake.SolveBuckets))
	for i, v := range intake.SolveBuckets {
		want[i] = strconv.FormatInt(v, 10)
	}
	if got := strings.Split(string(m[1]), ", "); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("SOLVE_BUCKETS = %v, intake.SolveBuckets = %v", got, want)
	}
}

// TestPageWeight: the page's HTML, style sheet and scripts, as served, stay
// within 40 kB gzipped together (each compressed on its own, at gzip's
// default level, as a static host compresses them).
func TestPageWeight(t *testing.T) {
	const budget = 40_000
	total := 0
	for _, path := range []string{"/", "/css/introduction-form.css", "/js/introduction-form.js", "/js/solver.js", "/js/solver-worker.js"} {
		body, _ := io.ReadAll(get(t, http.MethodGet, path, nil).Body)
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write(body)
		z.Close()
		t.Logf("%s: %d bytes, %d gzipped", path, len(body), b.Len())
		total += b.Len()
	}
	if total > budget {
		t.Errorf("the page weighs %d bytes gzipped, over the budget of %d", total, budget)
	}
}
