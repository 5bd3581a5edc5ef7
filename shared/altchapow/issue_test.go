package altchapow_test

import (
	"encoding/json"
	"errors"
	"maps"
	mathrand "math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// shortRing is an intake.Keyring that hands out a short key, which a
// Ring never would.
type shortRing struct{}

func (shortRing) Current() (string, []byte) { return "1", []byte("short") }
func (shortRing) Key(string) ([]byte, bool) { return []byte("short"), true }
func (shortRing) Versions() []string        { return []string{"1"} }

func TestNew(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	tests := []struct {
		name         string
		keys         intake.Keyring
		clock        intake.Clock
		cfg          altchapow.Config
		wantErr      bool
		wantMax      int64
		wantLifetime time.Duration
	}{
		{name: "defaults", keys: ring, clock: testsupport.NewClock(t0), wantMax: 100_000, wantLifetime: 10 * time.Minute},
		{name: "configured", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{MaxNumber: 250_000, Lifetime: 5 * time.Minute}, wantMax: 250_000, wantLifetime: 5 * time.Minute},
		{name: "smallest", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{MaxNumber: 1, Lifetime: time.Second}, wantMax: 1, wantLifetime: time.Second},
		{name: "largest", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{MaxNumber: altchapow.MaxMaxNumber, Lifetime: altchapow.MaxLifetime}, wantMax: altchapow.MaxMaxNumber, wantLifetime: altchapow.MaxLifetime},
		{name: "nil keys", keys: nil, clock: testsupport.NewClock(t0), wantErr: true},
		{name: "nil clock", keys: ring, clock: nil, wantErr: true},
		{name: "short current key", keys: shortRing{}, clock: testsupport.NewClock(t0), wantErr: true},
		{name: "negative max number", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{MaxNumber: -1}, wantErr: true},
		{name: "max number too large", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{MaxNumber: altchapow.MaxMaxNumber + 1}, wantErr: true},
		{name: "negative lifetime", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{Lifetime: -time.Minute}, wantErr: true},
		{name: "sub-second lifetime", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{Lifetime: 500 * time.Millisecond}, wantErr: true},
		{name: "lifetime too long", keys: ring, clock: testsupport.NewClock(t0), cfg: altchapow.Config{Lifetime: altchapow.MaxLifetime + time.Second}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := altchapow.New(tt.keys, tt.clock, tt.cfg)
			if tt.wantErr {
				if err == nil {
					t.Fatal("New() succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error: %v", err)
			}
			if p.MaxNumber() != tt.wantMax || p.Lifetime() != tt.wantLifetime {
				t.Errorf("MaxNumber, Lifetime = %d, %v; want %d, %v", p.MaxNumber(), p.Lifetime(), tt.wantMax, tt.wantLifetime)
			}
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		_, err := altchapow.New(nil, nil, altchapow.Config{MaxNumber: -1, Lifetime: -1})
		for _, word := range []string{"keyring", "clock", "MaxNumber", "Lifetime"} {
			if err == nil || !strings.Contains(err.Error(), word) {
				t.Errorf("error %v does not report %s", err, word)
			}
		}
	})
}

func TestIssue(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a', "7": 'b'}, "7")
	exp := strconv.FormatInt(t0.Add(altchapow.DefaultLifetime).Unix(), 10)
	mn := strconv.FormatInt(testMaxNumber, 10)
	tests := []struct {
		name   string
		params url.Values
		query  string // the salt after its random hex
	}{
		{name: "no params", params: nil, query: "?expires=" + exp + "&kv=7&mn=" + mn + "&"},
		{name: "empty params", params: url.Values{}, query: "?expires=" + exp + "&kv=7&mn=" + mn + "&"},
		{name: "params sorted among the reserved ones", params: url.Values{"form": {"introduction"}, "a": {"x y"}}, query: "?a=x+y&expires=" + exp + "&form=introduction&kv=7&mn=" + mn + "&"},
		{name: "param values escaped", params: url.Values{"z": {"1&kv=1"}}, query: "?expires=" + exp + "&kv=7&mn=" + mn + "&z=1%26kv%3D1&"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cloneValues(tt.params)
			pow := newPoW(t, ring, t0, 11)
			c, err := pow.Issue(tt.params)
			if err != nil {
				t.Fatalf("Issue() error: %v", err)
			}
			if !maps.EqualFunc(tt.params, before, slices.Equal) {
				t.Errorf("Issue changed the caller's params: %v", tt.params)
			}
			m := regexp.MustCompile(`^([0-9a-f]{24})(\?.*)$`).FindStringSubmatch(c.Salt)
			if m == nil || m[2] != tt.query {
				t.Fatalf("salt = %q, want 24 hex digits then %q", c.Salt, tt.query)
			}
			if c.Algorithm != "SHA-256" || c.MaxNumber != testMaxNumber {
				t.Errorf("algorithm, maxnumber = %q, %d; want SHA-256, %d", c.Algorithm, c.MaxNumber, testMaxNumber)
			}

			// Exactly what altcha-lib-go v1.0.0 makes with Expires and
			// Params set, signed with the key derived for "altcha-v1".
			n := solve(t, c)
			k, _ := ring.Key("7")
			params := cloneValues(tt.params)
			if params == nil {
				params = url.Values{}
			}
			params.Set("kv", "7")
			params.Set("mn", mn)
			want, err := altcha.CreateChallenge(altcha.ChallengeOptions{
				Algorithm: altcha.SHA256, MaxNumber: testMaxNumber, HMACKey: string(keyring.Derive(k, "altcha-v1")),
				Salt: m[1], Number: &n, Expires: ptr(t0.Add(altchapow.DefaultLifetime)), Params: params,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := (altcha.Challenge{Algorithm: c.Algorithm, Challenge: c.Challenge, MaxNumber: c.MaxNumber, Salt: c.Salt, Signature: c.Signature}); got != want {
				t.Errorf("Issue() = %+v\nlibrary makes %+v", got, want)
			}

			// The JSON is exactly ALTCHA v1's, with lower-case maxnumber.
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(b, &obj); err != nil {
				t.Fatal(err)
			}
			if got, want := keysOf(obj), []string{"algorithm", "challenge", "maxnumber", "salt", "signature"}; !slices.Equal(got, want) {
				t.Errorf("JSON keys = %q, want %q", got, want)
			}
		})
	}
}

func TestIssueRefuses(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	tests := []struct {
		name   string
		random func() *altchapow.Config
		params url.Values
	}{
		{name: "reserved expires", params: url.Values{"expires": {"9999999999"}}},
		{name: "reserved kv", params: url.Values{"kv": {"2"}}},
		{name: "reserved mn", params: url.Values{"mn": {"2"}}},
		{name: "salt too long", params: url.Values{"note": {strings.Repeat("x", 1100)}}},
		{name: "random source fails", random: func() *altchapow.Config {
			return &altchapow.Config{Random: iotest.ErrReader(errors.New("no entropy"))}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := altchapow.Config{}
			if tt.random != nil {
				cfg = *tt.random()
			}
			pow, err := altchapow.New(ring, testsupport.NewClock(t0), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := pow.Issue(tt.params); err == nil {
				t.Fatalf("Issue() = %+v, want an error", c)
			}
		})
	}
}

func TestIssueUsesInjectedRandomness(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	tests := []struct {
		name      string
		seedA     byte
		seedB     byte
		wantEqual bool
	}{
		{name: "same seed, same challenge", seedA: 4, seedB: 4, wantEqual: true},
		{name: "other seed, other challenge", seedA: 4, seedB: 5, wantEqual: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newPoW(t, ring, t0, tt.seedA).Issue(nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := newPoW(t, ring, t0, tt.seedB).Issue(nil)
			if err != nil {
				t.Fatal(err)
			}
			if (a == b) != tt.wantEqual {
				t.Errorf("challenges equal = %v, want %v:\n%+v\n%+v", a == b, tt.wantEqual, a, b)
			}
		})
	}
}

// TestIssueNumbersSpanTheRange draws many challenges with MaxNumber 3 and
// checks every secret number 0..3 occurs and none outside it.
func TestIssueNumbersSpanTheRange(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	pow, err := altchapow.New(ring, testsupport.NewClock(t0), altchapow.Config{MaxNumber: 3, Random: mathrand.NewChaCha8([32]byte{9})})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for range 200 {
		c, err := pow.Issue(nil)
		if err != nil {
			t.Fatal(err)
		}
		seen[solve(t, c)]++
	}
	for n := int64(0); n <= 3; n++ {
		if seen[n] == 0 {
			t.Errorf("number %d never drawn in 200 challenges: %v", n, seen)
		}
	}
	if len(seen) != 4 {
		t.Errorf("numbers drawn = %v, want only 0..3", seen)
	}
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	c := url.Values{}
	for k, vs := range v {
		c[k] = slices.Clone(vs)
	}
	return c
}

func keysOf[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// swappableRing is an intake.Keyring whose keys a test can change after
// New has checked them, as a faulty implementation might.
type swappableRing struct {
	version string
	key     []byte
}

func (r *swappableRing) Current() (string, []byte) { return r.version, r.key }
func (r *swappableRing) Versions() []string        { return []string{r.version} }
func (r *swappableRing) Key(v string) ([]byte, bool) {
	if v != r.version {
		return nil, false
	}
	return r.key, true
}

// TestShortKeyNeverSigns checks that a keyring whose key has become short
// after New neither signs a challenge nor verifies one.
func TestShortKeyNeverSigns(t *testing.T) {
	r := &swappableRing{version: "1", key: bytesOf('a')}
	pow := newPoW(t, r, t0, 1)
	c, err := pow.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, n := solved(t, c)
	if _, err := pow.Verify(payload); err != nil {
		t.Fatalf("Verify() with the full key: %v", err)
	}

	short := bytesOf('a')[:keyring.MinKeyLen-1]
	r.key = short
	if c, err := pow.Issue(nil); err == nil {
		t.Errorf("Issue() with a %d-byte key = %+v, want an error", len(short), c)
	}
	shortSigned := encode(t, forge(keyring.Derive(short, altchapow.Purpose), c.Salt, n))
	if _, err := pow.Verify(shortSigned); !errors.Is(err, altchapow.ErrUnknownKey) {
		t.Errorf("Verify() of a payload signed with a %d-byte key = %v, want %v", len(short), err, altchapow.ErrUnknownKey)
	}
}
