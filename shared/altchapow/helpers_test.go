package altchapow_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	mathrand "math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// t0 is the fixed time tests issue challenges at.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// testMaxNumber keeps test challenges quick to solve.
const testMaxNumber = 2000

// newRing returns a Ring of 32-byte keys, each made of one repeated byte.
func newRing(t testing.TB, keys map[string]byte, current string) *keyring.Ring {
	t.Helper()
	m := make(map[string][]byte, len(keys))
	for v, b := range keys {
		m[v] = bytes.Repeat([]byte{b}, keyring.MinKeyLen)
	}
	r, err := keyring.New(m, current)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newPoW returns a ProofOfWork over keys with a clock stopped at now, a
// small MaxNumber and a seeded random source, so that runs are repeatable.
func newPoW(t testing.TB, keys intake.Keyring, now time.Time, seed byte) *altchapow.ProofOfWork {
	t.Helper()
	p, err := altchapow.New(keys, testsupport.NewClock(now), altchapow.Config{
		MaxNumber: testMaxNumber,
		Random:    mathrand.NewChaCha8([32]byte{seed}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// solve finds a challenge's secret number by brute force, as a client does.
func solve(t testing.TB, c altchapow.Challenge) int64 {
	t.Helper()
	_, n := testsupport.Solve(t, c)
	return n
}

// solved returns the canonical payload of a solved challenge.
func solved(t testing.TB, c altchapow.Challenge) (payload string, number int64) {
	t.Helper()
	n := solve(t, c)
	return encode(t, fields{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": n, "salt": c.Salt, "signature": c.Signature}), n
}

// fields is a payload's JSON object, written as given.
type fields map[string]any

// encode returns the standard base64 of v's JSON.
func encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// forge returns payload fields for salt and number, hashed with SHA-256
// and signed with hmacKey: what a holder of that key could make.
func forge(hmacKey []byte, salt string, number int64) fields {
	challenge := sha256Hex(salt + strconv.FormatInt(number, 10))
	m := hmac.New(sha256.New, hmacKey)
	m.Write([]byte(challenge))
	return fields{"algorithm": "SHA-256", "challenge": challenge, "number": number, "salt": salt, "signature": hex.EncodeToString(m.Sum(nil))}
}

// signingKey is the derived key a ring's version signs challenges with.
func signingKey(t testing.TB, r intake.Keyring, version string) []byte {
	t.Helper()
	k, ok := r.Key(version)
	if !ok {
		t.Fatalf("ring has no version %q", version)
	}
	return keyring.Derive(k, altchapow.Purpose)
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// with returns a copy of f with the given changes.
func (f fields) with(kv ...any) fields {
	g := make(fields, len(f)+len(kv)/2)
	for k, v := range f {
		g[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		g[kv[i].(string)] = kv[i+1]
	}
	return g
}

// without returns a copy of f without the named fields.
func (f fields) without(names ...string) fields {
	g := f.with()
	for _, n := range names {
		delete(g, n)
	}
	return g
}

// decodePayload reads a payload's fields back (leniently), for tests.
func decodePayload(t testing.TB, payload string) fields {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var f fields
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	return f
}
