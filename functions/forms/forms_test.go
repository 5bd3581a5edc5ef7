package forms_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/ownersite/introductions/functions/forms"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/formregistry"
	"github.com/ownersite/introductions/shared/intake"
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
	h := testsupport.Must(forms.New(fakeRegistry{v}, pow, intake.DefaultRetention, []intake.Destination{intake.DestinationInbox, intake.DestinationWebhook}))(t)
	return testsupport.Must(wiring.Serve(&wiring.Handlers{Forms: h}, "Forms", []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler)))(t)
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
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &d) != nil || d.FormID != "introduction" || d.FormVersion != "2" ||
		d.ProofOfWork.ChallengePath != "/challenge" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestUnknownFormIsNotFound(t *testing.T) {
	for _, path := range []string{"/api/forms/other", "/api/forms/", "/api/forms"} {
		w := testsupport.Serve(serve(t), testsupport.Request{Method: http.MethodGet, Path: path})
		if code := testsupport.ProblemCode(t, w); w.Code != http.StatusNotFound || code != "NOT_FOUND" {
			t.Fatalf("%s: %d %s", path, w.Code, code)
		}
	}
}

func TestEdges(t *testing.T) {
	testsupport.CheckEdges(t, serve(t), "/api/forms/introduction", "GET, HEAD")
}

func TestNewRefusesNoRegistry(t *testing.T) {
	if _, err := forms.New(nil, formregistry.ProofOfWorkParams{}, intake.DefaultRetention, nil); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Fatalf("New(nil) error = %v", err)
	}
}
