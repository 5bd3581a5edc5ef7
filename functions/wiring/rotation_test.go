package wiring_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/secretkeys"
)

const hmacSecret = "projects/site/secrets/hmac"

// secretVersions is a Secret Manager secret at the project's SecretAccessor
// interface: numbered versions, "latest" the highest.
type secretVersions struct {
	mu       sync.Mutex
	versions []string // payloads; version n is versions[n-1]
}

func (s *secretVersions) AccessSecretVersion(_ context.Context, name string) (*secretkeys.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := strings.CutPrefix(name, hmacSecret+"/versions/")
	if v == "latest" {
		v = string(rune('0' + len(s.versions)))
	}
	n := int(v[0] - '0')
	if !ok || len(v) != 1 || n < 1 || n > len(s.versions) {
		return nil, &secretkeys.APIError{HTTPStatus: 404, Status: "NOT_FOUND"}
	}
	return &secretkeys.Version{Name: hmacSecret + "/versions/" + v, Data: []byte(s.versions[n-1])}, nil
}

func (s *secretVersions) rotate(payload string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = append(s.versions, payload)
}

// keysOf is what an instance starting now loads: the latest version, and
// the versions it has not loaded fetched on demand.
func keysOf(t *testing.T, secret *secretVersions) *secretkeys.Rotating {
	t.Helper()
	ring, err := secretkeys.Load(context.Background(), secret, hmacSecret)
	if err != nil {
		t.Fatal(err)
	}
	r, err := secretkeys.NewRotating(ring, secret, hmacSecret, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestKeyRotationReachesRunningInstancesAndKeepsCounters: instance A starts
// with key version 1; the key rotates to version 2 and instance B starts
// with it. A verifies a challenge B signed with version 2 (fetching it);
// the drafts A kept still count against the same limits on B; and the
// Idempotency-Key of a draft kept on A still replays it on B. The pepper of
// the keyed hashes is the same pinned one on both, not the rotating key.
func TestKeyRotationReachesRunningInstancesAndKeepsCounters(t *testing.T) {
	secret := &secretVersions{versions: []string{strings.Repeat("1", 32)}}
	pepper := bytes.Repeat([]byte{'p'}, 32)
	keysA := keysOf(t, secret)
	a := newHarnessWith(t, map[string]string{"RATE_LIMIT_IP_PER_HOUR": "2"}, dbparts.Overrides{Keys: keysA, Pepper: pepper})
	const source = "192.0.2.77"
	first := a.draftBody(map[string]any{"email": "first@example.com"})
	kept := a.postJSON("/api/introductions", first, append(fromAddress(source), "Idempotency-Key", "rotation-7d2c-4b1e")...)
	if kept.status != http.StatusCreated {
		t.Fatalf("draft on A: %d %s", kept.status, kept.body)
	}

	secret.rotate(strings.Repeat("2", 32))
	keysB := keysOf(t, secret)
	b := a.instance(dbparts.Overrides{Keys: keysB, Pepper: pepper})
	if v, _ := keysB.Current(); v != "2" {
		t.Fatalf("B signs with version %q, want 2", v)
	}

	// A has not loaded version 2: it fetches it to verify B's challenge.
	fromB := b.solved()
	r := a.postJSON("/api/introductions", a.draftBody(map[string]any{"altcha": fromB, "email": "other@example.com"}), fromAddress("192.0.2.78")...)
	if r.status != http.StatusCreated {
		t.Fatalf("A refused a challenge signed with the version added after it started: %d %s", r.status, r.body)
	}
	if v, _ := keysA.Current(); v != "2" {
		t.Errorf("A's current version after fetching 2 = %q", v)
	}

	// The same Idempotency-Key replays A's draft on B.
	replay := b.postJSON("/api/introductions", first, append(fromAddress(source), "Idempotency-Key", "rotation-7d2c-4b1e")...)
	if replay.status != http.StatusCreated || replay.json(t)["id"] != kept.json(t)["id"] {
		t.Fatalf("the idempotent retry on B after the rotation: %d %s", replay.status, replay.body)
	}
	// The source's counter kept A's draft: one more is allowed, then 429.
	if r := b.postJSON("/api/introductions", b.draftBody(map[string]any{"email": "second@example.com"}), fromAddress(source)...); r.status != http.StatusCreated {
		t.Fatalf("second draft from the source on B: %d %s", r.status, r.body)
	}
	if r := b.postJSON("/api/introductions", b.draftBody(map[string]any{"email": "third@example.com"}), fromAddress(source)...); r.status != http.StatusTooManyRequests {
		t.Fatalf("third draft from the source, limit 2, after the rotation: %d %s (the rotation reset the counter)", r.status, r.body)
	}
	// Two addresses and three emails, each named once across the rotation.
	if n := a.count("rateCounters"); n != 5 {
		t.Errorf("%d rate counters stored, want 5", n)
	}
}
