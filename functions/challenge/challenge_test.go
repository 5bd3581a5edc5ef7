package challenge_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ownersite/introductions/functions/challenge"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

const path = "/api/introductions/challenge"

// fakeIssuer hands out a fixed challenge, or fails.
type fakeIssuer struct{ err error }

func (f fakeIssuer) IssueAt(int64, url.Values) (altchapow.Challenge, error) {
	return altchapow.Challenge{Algorithm: "SHA-256", Challenge: "c", MaxNumber: 7, Salt: "s?expires=1&kv=1&", Signature: "sig"}, f.err
}

func serve(t *testing.T, issuer challenge.Issuer) http.Handler {
	h := testsupport.Must(challenge.New(issuer))(t)
	return testsupport.Must(jsonapi.NewRoutes(challenge.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
}

func TestIssue(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		w := testsupport.Serve(serve(t, fakeIssuer{}), testsupport.Request{Method: method, Path: path, Origin: testsupport.SiteOrigin})
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %v", method, w.Code, w.Header())
		}
		if method == http.MethodHead {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || c["maxnumber"] != 7.0 || c["salt"] != "s?expires=1&kv=1&" {
			t.Fatalf("body %s (%v)", w.Body, err)
		}
	}
}

func TestIssueFailureIsInternal(t *testing.T) {
	w := testsupport.Serve(serve(t, fakeIssuer{err: errors.New("secret key detail")}), testsupport.Request{Method: http.MethodGet, Path: path})
	if code := testsupport.ProblemCode(t, w); w.Code != http.StatusInternalServerError || code != "INTERNAL" || strings.Contains(w.Body.String(), "secret") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestEdges(t *testing.T) {
	testsupport.CheckEdges(t, serve(t, fakeIssuer{}), path, "GET, HEAD")
}

func TestNewRefusesNoIssuer(t *testing.T) {
	if _, err := challenge.New(nil); err == nil || !strings.Contains(err.Error(), "Issuer") {
		t.Fatalf("New(nil) error = %v", err)
	}
}
