package testsupport

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/altchapow"
)

func TestSolve(t *testing.T) {
	sum := sha256.Sum256([]byte("salt?expires=1&1234"))
	c := altchapow.Challenge{Algorithm: "SHA-256", Challenge: hex.EncodeToString(sum[:]), MaxNumber: 2000, Salt: "salt?expires=1&", Signature: "sig"}
	payload, n := Solve(t, c)
	if n != 1234 {
		t.Fatalf("Solve found %d, want 1234", n)
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil || got["number"] != 1234.0 || got["salt"] != c.Salt || got["signature"] != "sig" {
		t.Fatalf("payload %s (%v)", raw, err)
	}
	c.MaxNumber = 1233
	fatal := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); Solve(fatal, c) }()
	if <-done; !fatal.failed {
		t.Fatal("Solve found a number above max")
	}
}

// fatalRecorder records a Fatalf and ends the goroutine that called it, as testing.T does.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}

func TestClockAndLogs(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	c.Advance(time.Minute)
	if !c.Now().Equal(t0.Add(time.Minute)) {
		t.Fatalf("Now() = %v", c.Now())
	}
	var l Logs
	l.Write([]byte("a"))
	l.Write([]byte("b"))
	if l.String() != "ab" {
		t.Fatalf("Logs = %q", l.String())
	}
}
