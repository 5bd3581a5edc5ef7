package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/testsupport"
)

// port is the PORT the tests give the dev server's handler; nothing
// listens on it.
const port = 18800

// TestOnlyLoopbackNamesAreServed: a Host that is not a loopback name (with
// or without the dev server's port) is refused 421 HOST_NOT_SERVED, as
// problem+json, and the request never reaches a route.
func TestOnlyLoopbackNamesAreServed(t *testing.T) {
	reached := 0
	h := loopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}), port)
	for _, c := range []struct {
		host   string
		served bool
	}{
		{"127.0.0.1:18800", true},
		{"127.0.0.1", true},
		{"localhost:18800", true},
		{"localhost", true},
		{"LocalHost:18800", true},
		{"[::1]:18800", true},
		{"[::1]", true},
		{"attacker.example:18800", false},
		{"attacker.example", false},
		{"127.0.0.1.attacker.example:18800", false},
		{"localhost.attacker.example:18800", false},
		{"localhost.:18800", false},
		{"127.0.0.1:18801", false},
		{"localhost:80", false},
		{"127.0.0.2:18800", false},
		{"0.0.0.0:18800", false},
		{"[::ffff:127.0.0.1]:18800", false},
		{"::1", false},
		{"", false},
	} {
		t.Run(c.host, func(t *testing.T) {
			before := reached
			r := httptest.NewRequest(http.MethodGet, "/admin/api/introductions", nil)
			r.Host = c.host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if c.served {
				if w.Code != http.StatusNoContent || reached != before+1 {
					t.Fatalf("status %d, reached %v: want served", w.Code, reached > before)
				}
				return
			}
			if w.Code != http.StatusMisdirectedRequest || reached != before || testsupport.ProblemCode(t, w) != "HOST_NOT_SERVED" {
				t.Fatalf("status %d, body %s, reached %v: want 421 HOST_NOT_SERVED before routing", w.Code, w.Body, reached > before)
			}
		})
	}
}

// TestTheAdminAnswersNoRebinding is the DNS rebinding attack on the dev
// server's admin, against the real routes on the emulator: a page on the
// attacker's name, re-resolved to 127.0.0.1, sends same-origin requests
// (Host, Origin and Sec-Fetch-Site all name the attacker's site). Subject
// export, mark-handled and erasure are each refused 421 and change
// nothing; the same requests addressed to 127.0.0.1 are served.
func TestTheAdminAnswersNoRebinding(t *testing.T) {
	emulatortest.Host(t)
	project := emulatortest.Project(t)
	emulatortest.Reset(t, emulatortest.Host(t), project)
	vars := map[string]string{"FIRESTORE_PROJECT": project, "FIRESTORE_DATABASE": emulatortest.Database, "POW_MAX_NUMBER": "2000",
		"PORT": "18800", "LOG_LEVEL": "error"}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := introductions.Build(context.Background(), cfg, cloudlog.New(io.Discard, slog.LevelError), dbparts.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	h := handler(svc, cfg.Port)

	local := "127.0.0.1:18800"
	send := func(host, method, path, contentType, body string, headers ...string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Host = host
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	// A visitor's introduction, drafted and confirmed on the form.
	w := send(local, http.MethodGet, "/api/introductions/challenge", "", "")
	var c altchapow.Challenge
	if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil {
		t.Fatalf("challenge: %d %s", w.Code, w.Body)
	}
	payload, _ := testsupport.Solve(t, c)
	draft, _ := json.Marshal(map[string]any{"formId": "introduction", "formVersion": "1", "name": "Ada Lovelace",
		"company": "Analytical Engines", "role": "CTO", "email": "ada@example.com", "message": "Hello, I would like to talk about a role.",
		"consents": []any{}, "website": "", "altcha": payload})
	w = send(local, http.MethodPost, "/api/introductions", "application/json", string(draft))
	var kept struct{ ID, Token string }
	if err := json.Unmarshal(w.Body.Bytes(), &kept); err != nil || w.Code != http.StatusCreated {
		t.Fatalf("draft: %d %s", w.Code, w.Body)
	}
	if w = send(local, http.MethodPost, "/api/introductions/"+kept.ID+"/confirmation", "application/json", `{"token":"`+kept.Token+`"}`); w.Code != http.StatusOK {
		t.Fatalf("confirmation: %d %s", w.Code, w.Body)
	}
	state := func() string {
		t.Helper()
		w := send(local, http.MethodGet, "/admin/api/introductions/"+kept.ID, "", "")
		var got struct{ State string }
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK {
			t.Fatalf("detail: %d %s", w.Code, w.Body)
		}
		return got.State
	}

	form := "application/x-www-form-urlencoded"
	email := url.Values{"email": {"ada@example.com"}}.Encode()
	attacks := []struct {
		name, method, path, contentType, body string
	}{
		{"subject export", http.MethodPost, "/admin/subjects/export", form, email},
		{"mark handled", http.MethodPost, "/admin/introductions/" + kept.ID + "/handled", form, ""},
		{"erasure", http.MethodPost, "/admin/subjects/erasure", form, email + "&confirm=yes"},
		{"reading the list", http.MethodGet, "/admin/api/introductions", "", ""},
	}
	for _, attacker := range []string{"attacker.example:18800", "rebind.attacker.example"} {
		for _, a := range attacks {
			w := send(attacker, a.method, a.path, a.contentType, a.body,
				"Origin", "http://"+attacker, "Sec-Fetch-Site", "same-origin", "Referer", "http://"+attacker+"/")
			if w.Code != http.StatusMisdirectedRequest || testsupport.ProblemCode(t, w) != "HOST_NOT_SERVED" {
				t.Errorf("%s from %s: %d %s, want 421 HOST_NOT_SERVED", a.name, attacker, w.Code, w.Body)
			}
		}
	}
	if s := state(); s != "CONFIRMED" {
		t.Fatalf("after the attack the introduction is %s, want CONFIRMED (neither handled nor erased)", s)
	}

	// The owner's own requests, addressed to the loopback name, are served.
	if w := send(local, http.MethodPost, "/admin/subjects/export", form, email, "Origin", "http://"+local, "Sec-Fetch-Site", "same-origin"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), kept.ID) {
		t.Fatalf("the owner's export: %d %.200s", w.Code, w.Body)
	}
	if w := send("localhost:18800", http.MethodPost, "/admin/introductions/"+kept.ID+"/handled", form, "", "Origin", "http://localhost:18800", "Sec-Fetch-Site", "same-origin"); w.Code != http.StatusSeeOther {
		t.Fatalf("the owner's mark handled: %d %s", w.Code, w.Body)
	}
	if s := state(); s != "HANDLED" {
		t.Fatalf("marked handled by the owner, the introduction is %s", s)
	}
}
