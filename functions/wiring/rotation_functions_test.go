package wiring_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/secretkeys"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestASigningFunctionFollowsARotationItNeverVerifies builds a Challenge
// instance and a Drafts instance separately, as deployed, both started on
// key version 1. The key rotates to version 2. Challenge never verifies a
// signature, so nothing names version 2 to it: it keeps signing with
// version 1 until its refresh interval has passed, then signs with
// version 2; the Drafts instance, still on version 1, accepts that
// challenge's solution (it fetches the version the signature names).
func TestASigningFunctionFollowsARotationItNeverVerifies(t *testing.T) {
	_, project := emulatortest.Client(t)
	vars := map[string]string{"FIRESTORE_PROJECT": project, "FIRESTORE_DATABASE": emulatortest.Database, "POW_MAX_NUMBER": "3000", "LOG_LEVEL": "error"}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	clock := testsupport.NewClock(time.Now().UTC().Truncate(time.Second))
	secret := &secretVersions{versions: []string{strings.Repeat("1", 32)}}
	pepper := bytes.Repeat([]byte{'p'}, 32)
	keysFor := func() *secretkeys.Rotating {
		ring, err := secretkeys.Load(context.Background(), secret, hmacSecret)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := secretkeys.NewRotating(ring, secret, hmacSecret, slog.New(slog.DiscardHandler), clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { keys.Close() })
		return keys
	}
	serve := func(name string, o dbparts.Overrides) string {
		o.Clock = clock
		svc, err := dbparts.Build(context.Background(), cfg, slog.New(slog.DiscardHandler), o, function(t, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		srv := httptest.NewServer(svc.Function(name))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	challengeKeys := keysFor()
	challengeURL := serve("Challenge", dbparts.Overrides{Keys: challengeKeys})
	draftsURL := serve("Drafts", dbparts.Overrides{Keys: keysFor(), Pepper: pepper})

	challenge := func() altchapow.Challenge {
		t.Helper()
		resp, err := http.Get(challengeURL + "/api/introductions/challenge")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c altchapow.Challenge
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("challenge: %d %v", resp.StatusCode, err)
		}
		return c
	}
	signedWith := func(c altchapow.Challenge) string {
		_, params, _ := strings.Cut(c.Salt, "?")
		for _, p := range strings.Split(params, "&") {
			if v, ok := strings.CutPrefix(p, "kv="); ok {
				return v
			}
		}
		return ""
	}

	secret.rotate(strings.Repeat("2", 32))
	if v := signedWith(challenge()); v != "1" {
		t.Fatalf("right after the rotation Challenge signs with version %q, want 1 (no read before the interval)", v)
	}
	clock.Advance(secretkeys.RefreshEvery)
	challenge() // starts the refresh; answered from the versions held
	challengeKeys.Wait()
	c := challenge()
	if v := signedWith(c); v != "2" {
		t.Fatalf("one refresh interval after the rotation Challenge signs with version %q, want 2", v)
	}

	payload, _ := testsupport.Solve(t, c)
	body, _ := json.Marshal(map[string]any{
		"formId": "introduction", "formVersion": "1",
		"name": "Ada Lovelace", "company": "Analytical Engines", "role": "CTO",
		"email": "ada@example.com", "message": "Hello, I would like to talk about a role.",
		"consents": []any{}, "website": "", "altcha": payload,
	})
	resp, err := http.Post(draftsURL+"/api/introductions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		var problem map[string]any
		json.NewDecoder(resp.Body).Decode(&problem)
		t.Fatalf("Drafts on version 1 refused a challenge signed with version 2: %d %v", resp.StatusCode, problem)
	}
}
