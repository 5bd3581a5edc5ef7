// Package testsupport is what tests across the module share, written once:
// an ALTCHA v1 solver that answers a challenge as a visitor's browser does
// and the independent npm client to check it against, a settable clock, a
// log sink safe for concurrent writers, helpers for handler tests, the mail
// a real MailDev received, and the rule that a missing prerequisite skips a
// test outside CI and fails it under CI. The Firestore emulator's part (a client on a wiped database, an
// RPC counter) is package emulatortest.
//
// It imports no cloud SDK, so that tests of pure packages can use it.
package testsupport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/formregistry"
)

// Solve returns the payload a client sends for c and the number found,
// failing the test when c has no solution.
func Solve(t testing.TB, c altchapow.Challenge) (payload string, number int64) {
	t.Helper()
	for n := int64(0); n <= c.MaxNumber; n++ {
		if sum := sha256.Sum256([]byte(c.Salt + strconv.FormatInt(n, 10))); hex.EncodeToString(sum[:]) == c.Challenge {
			return Payload(c, c.Salt, n), n
		}
	}
	t.Fatalf("no solution within maxnumber %d for salt %q", c.MaxNumber, c.Salt)
	return "", 0
}

// Payload returns the payload a client sends for c with salt and number.
func Payload(c altchapow.Challenge, salt string, number int64) string {
	b, _ := json.Marshal(map[string]any{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": number, "salt": salt, "signature": c.Signature})
	return base64.StdEncoding.EncodeToString(b)
}

// AtOnce runs f(0) … f(n-1) on n goroutines released together and waits.
func AtOnce(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	close(start)
	wg.Wait()
}

// Clock is an intake.Clock that stands still until a test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock stopped at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to now.
func (c *Clock) Set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// Logs collects what a logger writes; it is safe for concurrent writers.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything written so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Must returns a function that gives v, or fails the test with err, as in
// testsupport.Must(challenge.New(issuer))(t).
func Must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Forms returns the form registry the service ships with.
func Forms(t testing.TB) *formregistry.Registry {
	t.Helper()
	return Must(formregistry.Load())(t)
}
