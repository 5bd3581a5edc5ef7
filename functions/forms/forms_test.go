package forms_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// fakeRegistry knows one form, "introduction", as its published version 1.
type fakeRegistry struct{ v *formregistry.Version }

func (f fakeRegistry) Latest(formID string) (*formregistry.Version, bool) {
	return f.v, formID == "introduction"
}

func serve(t *testing.T) http.Handler {
	t.Helper()
	v, ok := testsupport.Forms(t).Find("introduction", "2")
	if !ok {
		t.Fatal("no introduction/2 in the registry")
	}
	pow := formregistry.ProofOfWorkParams{Algorithm: "SHA-256", MaxNumber: 123, ChallengePath: "/challenge"}
	h := testsupport.Must(forms.New(fakeRegistry{v}, pow, formregistry.Limits{Retention: intake.DefaultRetention, Destinations: []intake.Destination{intake.DestinationInbox, intake.DestinationWebhook}, AttachmentMaxBytes: 5 << 20, SiteURL: "https://owner.example/"}))(t)
	return testsupport.Must(jsonapi.NewRoutes(forms.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
}

func TestLatest(t *testing.T) {
	w := testsupport.Serve(serve(t), testsupport.Request{Method: http.MethodGet, Path: "/api/forms/introduction"})
	if !strings.Contains(w.Body.String(), "a web address they run (a webhook)") || strings.Contains(w.Body.String(), "as an email") {
		t.Errorf("the served notice must name the configured destinations, and only those: %s", w.Body)
	}
	var d struct {
		FormID      string `json:"formId"`
		FormVersion string `json:"formVersion"`
		ProofOfWork struct {
			MaxNumber     int64  `json:"maxNumber"`
			ChallengePath string `json:"challengePath"`
		} `json:"proofOfWork"`
		SiteURL string `json:"siteUrl"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &d) != nil || d.FormID != "introduction" || d.FormVersion != "2" ||
		d.ProofOfWork.ChallengePath != "/challenge" || d.SiteURL != "https://owner.example/" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// TestDefinitionIsCacheable: the definition is public for five minutes
// under a strong ETag of its exact bytes, and an If-None-Match naming that
// tag (weakly, in a list or as *) is answered 304 with no body.
func TestDefinitionIsCacheable(t *testing.T) {
	h := serve(t)
	w := testsupport.Serve(h, testsupport.Request{Method: http.MethodGet, Path: "/api/forms/introduction", Origin: testsupport.SiteOrigin})
	sum := sha256.Sum256(w.Body.Bytes())
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "public, max-age=300" || w.Header().Get("ETag") != etag {
		t.Fatalf("%d Cache-Control %q ETag %q, want 200, public, max-age=300 and %s", w.Code, w.Header().Get("Cache-Control"), w.Header().Get("ETag"), etag)
	}
	// Each allowed origin is let read its own copy, so caches keep one per origin.
	if !slices.Contains(w.Header().Values("Vary"), "Origin") {
		t.Errorf("Vary %q, want Origin", w.Header().Values("Vary"))
	}
	if head := testsupport.Serve(h, testsupport.Request{Method: http.MethodHead, Path: "/api/forms/introduction"}); head.Code != http.StatusOK || head.Header().Get("ETag") != etag {
		t.Errorf("HEAD: %d ETag %q", head.Code, head.Header().Get("ETag"))
	}
	tests := []struct {
		name        string
		ifNoneMatch string
		unchanged   bool
	}{
		{"its tag", etag, true},
		{"its tag, weak", "W/" + etag, true},
		{"its tag in a list", `"other", W/"x",` + etag, true},
		{"its tag in a list without spaces", `W/"a",` + etag + `,"b"`, true},
		{"any tag", "*", true},
		{"another tag", `"other"`, false},
		{"its tag unquoted", strings.Trim(etag, `"`), false},
		{"its tag after a malformed one", `"open, ` + etag, false},
		{"a prefix of its tag", etag[:len(etag)-2] + `"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := testsupport.Serve(h, testsupport.Request{Method: http.MethodGet, Path: "/api/forms/introduction", Header: map[string]string{"If-None-Match": tt.ifNoneMatch}})
			if w.Header().Get("ETag") != etag || w.Header().Get("Cache-Control") != "public, max-age=300" {
				t.Errorf("ETag %q Cache-Control %q", w.Header().Get("ETag"), w.Header().Get("Cache-Control"))
			}
			if !tt.unchanged {
				if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), testsupport.Serve(h, testsupport.Request{Method: http.MethodGet, Path: "/api/forms/introduction"}).Body.Bytes()) {
					t.Fatalf("%d, want 200 with the definition", w.Code)
				}
				return
			}
			if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" || w.Header().Get("Content-Length") != "" {
				t.Fatalf("%d %v %q, want 304 with no body", w.Code, w.Header(), w.Body)
			}
		})
	}
}

func TestUnknownFormIsNotFound(t *testing.T) {
	for _, path := range []string{"/api/forms/other", "/api/forms/", "/api/forms"} {
		w := testsupport.Serve(serve(t), testsupport.Request{Method: http.MethodGet, Path: path, Header: map[string]string{"If-None-Match": "*"}})
		if code := testsupport.ProblemCode(t, w); w.Code != http.StatusNotFound || code != "NOT_FOUND" || w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("ETag") != "" {
			t.Fatalf("%s: %d %s %v", path, w.Code, code, w.Header())
		}
	}
}

func TestEdges(t *testing.T) {
	testsupport.CheckEdges(t, serve(t), "/api/forms/introduction", "GET, HEAD")
}

func TestNewRefusesNoRegistry(t *testing.T) {
	if _, err := forms.New(nil, formregistry.ProofOfWorkParams{}, formregistry.Limits{Retention: intake.DefaultRetention}); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Fatalf("New(nil) error = %v", err)
	}
}

// TestDefinitionInTheVisitorsLanguage: ?lang= or else Accept-Language
// chooses the definition's language; each language is its own cacheable
// answer (its own ETag, a 304 for it only), and caches are told the answer
// varies with Accept-Language.
func TestDefinitionInTheVisitorsLanguage(t *testing.T) {
	h := serve(t)
	get := func(path, accept, ifNoneMatch string) *httptest.ResponseRecorder {
		hdr := map[string]string{}
		if accept != "" {
			hdr["Accept-Language"] = accept
		}
		if ifNoneMatch != "" {
			hdr["If-None-Match"] = ifNoneMatch
		}
		return testsupport.Serve(h, testsupport.Request{Method: http.MethodGet, Path: path, Header: hdr})
	}
	type def struct {
		Lang      string `json:"lang"`
		Dir       string `json:"dir"`
		Title     string `json:"title"`
		Languages []struct {
			Lang string `json:"lang"`
			Name string `json:"name"`
		} `json:"languages"`
		Problems map[string]string `json:"problems"`
	}
	tests := []struct {
		name, path, accept, lang, dir, title string
	}{
		{"no preference", "/api/forms/introduction", "", "en", "ltr", "Introduce yourself"},
		{"Accept-Language fa-IR", "/api/forms/introduction", "fa-IR,fa;q=0.9,en;q=0.8", "fa", "rtl", "خودتان را معرفی کنید"},
		{"Accept-Language preferring English", "/api/forms/introduction", "en-GB,fa;q=0.5", "en", "ltr", "Introduce yourself"},
		{"?lang=fa over Accept-Language", "/api/forms/introduction?lang=fa", "en-US", "fa", "rtl", "خودتان را معرفی کنید"},
		{"?lang=en over Accept-Language", "/api/forms/introduction?lang=en", "fa-IR", "en", "ltr", "Introduce yourself"},
		{"an unknown ?lang= falls back to Accept-Language", "/api/forms/introduction?lang=xx", "fa", "fa", "rtl", "خودتان را معرفی کنید"},
		{"a language the form lacks", "/api/forms/introduction", "de-DE", "en", "ltr", "Introduce yourself"},
	}
	etags := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(tt.path, tt.accept, "")
			var d def
			if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &d) != nil {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if d.Lang != tt.lang || d.Dir != tt.dir || d.Title != tt.title || len(d.Languages) != 2 || d.Problems["RATE_LIMITED"] == "" {
				t.Fatalf("lang %q dir %q title %q languages %v, want %s %s %q", d.Lang, d.Dir, d.Title, d.Languages, tt.lang, tt.dir, tt.title)
			}
			if !slices.Contains(w.Header().Values("Vary"), "Accept-Language") || w.Header().Get("Content-Language") != tt.lang || w.Header().Get("Cache-Control") != "public, max-age=300" {
				t.Errorf("Vary %q Content-Language %q Cache-Control %q", w.Header().Values("Vary"), w.Header().Get("Content-Language"), w.Header().Get("Cache-Control"))
			}
			etag := w.Header().Get("ETag")
			if prev, ok := etags[tt.lang]; ok && prev != etag {
				t.Errorf("two ETags for %s: %s, %s", tt.lang, prev, etag)
			}
			etags[tt.lang] = etag
			if nm := get(tt.path, tt.accept, etag); nm.Code != http.StatusNotModified {
				t.Errorf("If-None-Match its own tag: %d, want 304", nm.Code)
			}
		})
	}
	if etags["en"] == etags["fa"] || etags["fa"] == "" {
		t.Fatalf("ETags %v: want one per language", etags)
	}
	if w := get("/api/forms/introduction", "fa", etags["en"]); w.Code != http.StatusOK {
		t.Errorf("the English ETag answered the Persian definition with %d, want 200", w.Code)
	}
}
