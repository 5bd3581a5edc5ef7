package wiring_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestLogsCarryNoPersonalData runs every path with unique canary values and
// checks that the captured logs contain none of them.
func TestLogsCarryNoPersonalData(t *testing.T) {
	h := newHarness(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "3"})
	canary := map[string]string{
		"name": "Canaryname Zqx", "company": "Canarycorp Zqx", "role": "Canaryrole Zqx",
		"email": "canary.zqx@canary-mail.example", "message": "Canarymessage zqx body",
		"conversation": "Canaryconversation zqx", "ip": "192.0.2.77", "idem": "canary-idempotency-key-zqx",
	}
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": canary["name"], "company": canary["company"], "role": canary["role"],
			"email": canary["email"], "message": canary["message"], "conversation": canary["conversation"],
			"consents": consentTo("attach-conversation")}
		for k, v := range extra {
			b[k] = v
		}
		return h.draftBody(b)
	}
	from := fromAddress(canary["ip"])
	kept := h.postJSON("/api/introductions", body(nil), append(from, "Idempotency-Key", canary["idem"],
		"X-Cloud-Trace-Context", "0123456789abcdef0123456789abcdef/42;o=1")...)
	if kept.status != http.StatusCreated {
		t.Fatalf("draft: %d %s", kept.status, kept.body)
	}
	d := kept.json(t)
	token := d["token"].(string)
	revise := func(message string) response {
		return h.postJSON("/api/introductions/"+d["id"].(string)+"/revision", map[string]any{"token": token,
			"name": canary["name"], "company": canary["company"], "role": canary["role"], "email": canary["email"],
			"message": message, "conversation": canary["conversation"], "consents": consentTo("attach-conversation")})
	}
	if r := revise(canary["message"] + " revised"); r.status != http.StatusOK {
		t.Fatalf("revision: %d %s", r.status, r.body)
	}
	if r := revise(canary["message"] + " https://a.example https://b.example https://c.example https://d.example"); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("refused revision: %d %s", r.status, r.body)
	}
	h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": token})
	h.postJSON("/api/introductions/"+d["id"].(string)+"/confirmation", map[string]string{"token": token + "x"})
	h.postJSON("/api/introductions", body(map[string]any{"message": canary["message"] + " https://a.example https://b.example https://c.example https://d.example"}), from...)
	h.postJSON("/api/introductions", body(map[string]any{"website": canary["message"]}), from...)
	h.postJSON("/api/introductions", body(map[string]any{"altcha": "bm90IGEgcGF5bG9hZA=="}), from...)
	h.postJSON("/api/introductions", body(map[string]any{"email": "second." + canary["email"]}), from...)
	h.postJSON("/api/introductions", body(map[string]any{"email": "third." + canary["email"]}), from...)
	limited := h.postJSON("/api/introductions", body(map[string]any{"email": "fourth." + canary["email"]}), from...)
	if limited.status != http.StatusTooManyRequests {
		t.Fatalf("expected the canary address to reach its limit: %d %s", limited.status, limited.body)
	}
	h.postJSON("/api/introductions/"+d["id"].(string)+"/withdrawal", map[string]string{"token": token})

	logs := h.logs.String()
	if !strings.Contains(logs, "draft kept") || !strings.Contains(logs, "draft refused") || !strings.Contains(logs, "draft revised") {
		t.Fatalf("the logs do not show the decisions, so the canary check proves nothing:\n%s", logs)
	}
	for what, value := range canary {
		if strings.Contains(logs, value) {
			t.Errorf("the logs contain the %s canary %q", what, value)
		}
	}
	if !strings.Contains(logs, `"logging.googleapis.com/trace":"projects/`+h.project+`/traces/0123456789abcdef0123456789abcdef"`) {
		t.Error("the kept draft's log line is not grouped under its Cloud Run trace")
	}
	if strings.Contains(logs, token) {
		t.Error("the logs contain the token")
	}
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil || entry["severity"] == nil || entry["message"] == nil {
			t.Fatalf("a log line is not a Cloud Logging JSON entry: %q", line)
		}
	}
	for _, doc := range h.docs("ledger") {
		for what, value := range canary {
			if strings.Contains(doc, value) {
				t.Errorf("a ledger entry contains the %s canary: %s", what, doc)
			}
		}
	}
}

// TestFirestoreDownAnswers503 points the service at an address where nothing
// listens: drafts answer 503 with Retry-After, never 500, and the challenge
// (which needs no database) still works.
func TestFirestoreDownAnswers503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	t.Setenv("FIRESTORE_EMULATOR_HOST", dead)
	vars := map[string]string{"FIRESTORE_PROJECT": "down-project", "POW_MAX_NUMBER": "3000", "FIRESTORE_TIMEOUT": "1s"}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	logs := &testsupport.Logs{}
	svc, err := introductions.Build(context.Background(), cfg, cloudlog.New(logs, slog.LevelDebug), dbparts.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv := httptest.NewServer(svc.Mux(http.NotFoundHandler()))
	defer srv.Close()
	h := &harness{t: t, svc: svc, srv: srv, logs: logs}
	r := h.postJSON("/api/introductions", h.draftBody(nil))
	if r.status != http.StatusServiceUnavailable || r.code(t) != "UNAVAILABLE" || r.header.Get("Retry-After") == "" {
		t.Fatalf("draft with Firestore down: %d %s (Retry-After %q)", r.status, r.body, r.header.Get("Retry-After"))
	}
	c := h.postJSON("/api/introductions/AAAAAAAAAAAAAAAAAAAAAA/confirmation", map[string]string{"token": strings.Repeat("D", 43)})
	if c.status != http.StatusServiceUnavailable || c.header.Get("Retry-After") == "" {
		t.Fatalf("confirmation with Firestore down: %d %s", c.status, c.body)
	}
	if strings.Contains(string(r.body), dead) || strings.Contains(string(r.body), "rpc") {
		t.Fatalf("the answer leaks the cause: %s", r.body)
	}
}

// TestIndependentAltchaClientSolvesOurChallenge has npm altcha-lib 2.8.0
// (altcha-lib/v1, a client we did not write) solve a challenge from the
// running service, and keeps a draft with its payload.
func TestIndependentAltchaClientSolvesOurChallenge(t *testing.T) {
	node, script := testsupport.AltchaClient(t)
	h := newHarness(t, nil)
	ch := h.do(http.MethodGet, "/api/introductions/challenge", "", nil)
	cmd := exec.Command(node, script)
	cmd.Stdin = strings.NewReader(string(ch.body))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("altcha-lib could not solve our challenge: %v", err)
	}
	r := h.postJSON("/api/introductions", h.draftBody(map[string]any{"altcha": strings.TrimSpace(string(out))}))
	if r.status != http.StatusCreated {
		t.Fatalf("draft with altcha-lib's solution: %d %s", r.status, r.body)
	}
}
