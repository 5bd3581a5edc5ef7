package altchapow_test

import (
	"encoding/base64"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// checkRefusal asserts err is Verify's one error shape with code and reason.
func checkRefusal(t *testing.T, err error, code intake.Code, reason error) {
	t.Helper()
	var e *intake.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *intake.Error", err, err)
	}
	if e.Code != code {
		t.Errorf("Code = %s, want %s", e.Code, code)
	}
	if len(e.Fields) != 1 || e.Fields[0].Field != "altcha" || e.Fields[0].Code != code || e.Fields[0].Detail == "" {
		t.Errorf("Fields = %+v, want one error on field altcha with code %s and a detail", e.Fields, code)
	}
	if !errors.Is(err, reason) {
		t.Errorf("reason = %v, want %v", e.Cause, reason)
	}
	for _, client := range append([]string{e.Detail}, fieldDetails(e)...) {
		if strings.Contains(client, "altchapow") || strings.Contains(client, "base64") || strings.Contains(client, "json") {
			t.Errorf("client-facing detail %q carries internal text", client)
		}
	}
}

func fieldDetails(e *intake.Error) []string {
	var ds []string
	for _, f := range e.Fields {
		ds = append(ds, f.Detail)
	}
	return ds
}

func TestVerify(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	other := newRing(t, map[string]byte{"1": 'b'}, "1")
	pow := newPoW(t, ring, t0, 1)
	ourKey := signingKey(t, ring, "1")

	c, err := pow.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	valid, n := solved(t, c)
	good := decodePayload(t, valid)
	expires := t0.Add(altchapow.DefaultLifetime).Unix()
	exp := strconv.FormatInt(expires, 10)
	prefix := c.Salt[:strings.IndexByte(c.Salt, '?')]

	withParams, err := pow.Issue(url.Values{"form": {"introduction"}, "v": {"2026-11"}})
	if err != nil {
		t.Fatal(err)
	}
	validWithParams, _ := solved(t, withParams)

	otherChallenge, err := newPoW(t, other, t0, 1).Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	otherSigned, _ := solved(t, otherChallenge)

	sha1Challenge, err := altcha.CreateChallenge(altcha.ChallengeOptions{
		Algorithm: altcha.SHA1, HMACKey: string(ourKey), Salt: prefix, Number: &n,
		Expires: ptr(t0.Add(time.Hour)), Params: url.Values{"kv": {"1"}},
	})
	if err != nil {
		t.Fatal(err)
	}

	// URL-safe base64 differs from standard only where '+' or '/' occur
	// (the salt's '?' makes a '/' when aligned): shift the JSON with
	// leading spaces until the encoding has one.
	urlSafe := ""
	for pad := 0; urlSafe == "" && pad < 3; pad++ {
		std := base64.StdEncoding.EncodeToString([]byte(strings.Repeat(" ", pad) + mustJSON(t, good)))
		if strings.ContainsAny(std, "+/") {
			urlSafe = strings.NewReplacer("+", "-", "/", "_").Replace(std)
		}
	}
	if urlSafe == "" {
		t.Fatal("found no payload whose base64 has '+' or '/'")
	}
	// Unpadded base64: vary an ignored field until padding is needed.
	unpadded := ""
	for took := 0; unpadded == ""; took++ {
		if std := encode(t, good.with("took", took)); strings.HasSuffix(std, "=") {
			unpadded = strings.TrimRight(std, "=")
		}
	}

	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	ourSalt := func(query string) string { return prefix + "?" + query }

	tests := []struct {
		name    string
		payload string
		now     time.Time // t0 when zero
		code    intake.Code
		reason  error // nil for success
	}{
		{name: "valid", payload: valid},
		{name: "valid with extra signed params", payload: validWithParams},
		{name: "valid with the widget's took and test fields", payload: encode(t, good.with("took", 1234, "test", false))},
		{name: "valid one second before expiry", payload: valid, now: time.Unix(expires-1, 0)},
		{name: "valid a nanosecond before expiry", payload: valid, now: time.Unix(expires, 0).Add(-time.Nanosecond)},

		{name: "empty", payload: "", code: intake.CodePowRequired, reason: altchapow.ErrMissing},

		{name: "whitespace", payload: "   ", code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "not base64", payload: "!!not base64!!", code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "unpadded base64", payload: unpadded, code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "URL-safe base64", payload: urlSafe, code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 with a line break", payload: valid[:8] + "\n" + valid[8:], code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 with a trailing newline", payload: valid + "\n", code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 with a leading space", payload: " " + valid, code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "longer than MaxPayloadLen", payload: strings.Repeat("AAAA", altchapow.MaxPayloadLen/4+1), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 of text", payload: b64("hello"), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 of a JSON array", payload: b64(`[1,2]`), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "base64 of JSON null", payload: b64(`null`), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "two JSON objects", payload: b64(mustJSON(t, good) + mustJSON(t, good)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "JSON with trailing garbage", payload: b64(mustJSON(t, good) + "x"), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},

		{name: "algorithm SHA-1, signed by our key", payload: encode(t, fields{"algorithm": "SHA-1", "challenge": sha1Challenge.Challenge, "number": n, "salt": sha1Challenge.Salt, "signature": sha1Challenge.Signature}), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "algorithm in lower case", payload: encode(t, good.with("algorithm", "sha-256")), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "algorithm missing", payload: encode(t, good.without("algorithm")), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "number missing", payload: encode(t, good.without("number")), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "number null", payload: encode(t, good.with("number", nil)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "number as a string", payload: encode(t, good.with("number", strconv.FormatInt(n, 10))), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "number with a fraction", payload: encode(t, good.with("number", float64(n)+0.5)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "number beyond int64", payload: b64(strings.Replace(mustJSON(t, good), `"number":`+strconv.FormatInt(n, 10), `"number":99999999999999999999`, 1)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "negative number, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&"), -1)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},

		{name: "salt without '?', signed by our key", payload: encode(t, forge(ourKey, prefix+"&expires="+exp+"&kv=1&", n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "salt with two '?', signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&?x=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "salt without trailing '&', signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "salt with a bad escape, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&x=%zz&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},

		{name: "no expiry, signed by our key", payload: encode(t, forge(ourKey, ourSalt("kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrNoExpiry},
		{name: "empty expiry, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires=&kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrNoExpiry},
		{name: "expiry not a number, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires=soon&kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrNoExpiry},
		{name: "expiry zero, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires=0&kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrNoExpiry},
		{name: "two expiries, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&expires=99999999999&kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrNoExpiry},

		{name: "no key version, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrUnknownKey},
		{name: "max number not a number, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&mn=lots&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "max number zero, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&mn=0&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "two max numbers, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&mn=5&mn=5000000&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrMalformed},
		{name: "max number raised in the salt", payload: encode(t, good.with("salt", strings.Replace(c.Salt, "mn=2000&", "mn=2000000&", 1))), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "empty key version, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrUnknownKey},
		{name: "two key versions, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=1&kv=1&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrUnknownKey},
		{name: "unknown key version", payload: encode(t, forge(ourKey, ourSalt("expires="+exp+"&kv=2&"), n)), code: intake.CodePowInvalid, reason: altchapow.ErrUnknownKey},

		{name: "signed by another ring with the same version", payload: otherSigned, code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "signed with the master key instead of the derived one", payload: encode(t, forge(bytesOf('a'), c.Salt, n)), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "signature altered", payload: encode(t, good.with("signature", flipHex(c.Signature))), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "signature missing", payload: encode(t, good.without("signature")), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "challenge altered", payload: encode(t, good.with("challenge", flipHex(c.Challenge))), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "wrong number", payload: encode(t, good.with("number", n+1)), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "expiry moved later", payload: encode(t, good.with("salt", strings.Replace(c.Salt, "expires="+exp, "expires="+strconv.FormatInt(expires+3600, 10), 1))), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},
		{name: "expired and signed by another ring", payload: otherSigned, now: t0.Add(time.Hour), code: intake.CodePowInvalid, reason: altchapow.ErrBadSolution},

		{name: "expired: now is the expiry", payload: valid, now: time.Unix(expires, 0), code: intake.CodePowExpired, reason: altchapow.ErrExpired},
		{name: "expired: a day later", payload: valid, now: t0.Add(24 * time.Hour), code: intake.CodePowExpired, reason: altchapow.ErrExpired},
		{name: "expired when issued, signed by our key", payload: encode(t, forge(ourKey, ourSalt("expires="+strconv.FormatInt(t0.Unix(), 10)+"&kv=1&"), n)), code: intake.CodePowExpired, reason: altchapow.ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := tt.now
			if now.IsZero() {
				now = t0
			}
			verifier := newPoW(t, ring, now, 99)
			spent, err := verifier.Verify(tt.payload)
			if tt.reason != nil {
				if err == nil {
					t.Fatalf("Verify() = %+v, want %s", spent, tt.code)
				}
				checkRefusal(t, err, tt.code, tt.reason)
				if spent != (intake.SpentChallenge{}) {
					t.Errorf("refused Verify() returned %+v", spent)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify() error: %v", err)
			}
			if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(spent.Key) {
				t.Errorf("Key = %q, want 64 lower-case hex digits", spent.Key)
			}
			if !spent.ExpireAt.Equal(time.Unix(expires, 0)) {
				t.Errorf("ExpireAt = %v, want %v", spent.ExpireAt, time.Unix(expires, 0))
			}
			if spent.MaxNumber != testMaxNumber {
				t.Errorf("MaxNumber = %d, want the signed %d", spent.MaxNumber, testMaxNumber)
			}
		})
	}
}

// TestEscalatedChallenges: IssueAt signs the max number it is asked for,
// brought into MaxNumber..MaxEscalated; Verify reports the signed max
// number, whatever the payload's own maxnumber member says, and the base
// for a salt without one.
func TestEscalatedChallenges(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	pow, err := altchapow.New(ring, testsupport.NewClock(t0), altchapow.Config{MaxNumber: 100, MaxEscalated: 1600})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		ask, want int64
	}{
		{"the base", 0, 100}, {"below the base", 7, 100}, {"between", 800, 800}, {"the ceiling", 1600, 1600}, {"above the ceiling", 1 << 40, 1600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pow.IssueAt(tt.ask, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.MaxNumber != tt.want || !strings.Contains(c.Salt, "&mn="+strconv.FormatInt(tt.want, 10)+"&") {
				t.Fatalf("IssueAt(%d) = maxnumber %d, salt %q; want %d signed in the salt", tt.ask, c.MaxNumber, c.Salt, tt.want)
			}
			payload, n := solved(t, c)
			spent, err := pow.Verify(payload)
			if err != nil || spent.MaxNumber != tt.want {
				t.Fatalf("Verify = %+v, %v; want MaxNumber %d", spent, err, tt.want)
			}
			// The payload's maxnumber member is not signed: it changes nothing.
			boasting := encode(t, fields{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": n, "salt": c.Salt, "signature": c.Signature, "maxnumber": 1 << 40})
			if spent, err := pow.Verify(boasting); err != nil || spent.MaxNumber != tt.want {
				t.Fatalf("Verify with a boasting maxnumber = %+v, %v; want MaxNumber %d", spent, err, tt.want)
			}
		})
	}
	t.Run("a salt without mn counts as the base", func(t *testing.T) {
		salt := "0123456789abcdef01234567?expires=" + strconv.FormatInt(t0.Add(time.Minute).Unix(), 10) + "&kv=1&"
		spent, err := pow.Verify(encode(t, forge(signingKey(t, ring, "1"), salt, 42)))
		if err != nil || spent.MaxNumber != 100 {
			t.Fatalf("Verify = %+v, %v; want MaxNumber 100", spent, err)
		}
	})
	t.Run("New refuses a ceiling below the base", func(t *testing.T) {
		if _, err := altchapow.New(ring, testsupport.NewClock(t0), altchapow.Config{MaxNumber: 100, MaxEscalated: 99}); err == nil || !strings.Contains(err.Error(), "MaxEscalated") {
			t.Fatalf("New = %v, want a MaxEscalated error", err)
		}
	})
}

// TestVerifyRefusesSplicedSalt moves digits between a legitimately signed
// salt and its number: the concatenation salt+number (all that is hashed
// and signed) stays the same or nearly so, but the salt no longer ends in
// '&', so each splice is refused.
func TestVerifyRefusesSplicedSalt(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	pow := newPoW(t, ring, t0, 7)
	ourKey := signingKey(t, ring, "1")

	// Find a challenge whose number has at least three digits.
	var c altchapow.Challenge
	var payload string
	var n int64
	for n < 100 {
		var err error
		if c, err = pow.Issue(nil); err != nil {
			t.Fatal(err)
		}
		payload, n = solved(t, c)
	}
	if _, err := pow.Verify(payload); err != nil {
		t.Fatalf("the legitimate payload is refused: %v", err)
	}
	good := decodePayload(t, payload)
	digits := strconv.FormatInt(n, 10)
	atoi := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	exp := strconv.FormatInt(t0.Add(altchapow.DefaultLifetime).Unix(), 10)
	prefix := c.Salt[:strings.IndexByte(c.Salt, '?')]
	trimmed := strings.TrimSuffix(c.Salt, "&")

	tests := []struct {
		name    string
		payload fields
	}{
		{name: "first digit of the number moved into the salt", payload: good.with("salt", c.Salt+digits[:1], "number", atoi(digits[1:]))},
		{name: "first two digits of the number moved into the salt", payload: good.with("salt", c.Salt+digits[:2], "number", atoi(digits[2:]))},
		{name: "all but the last digit moved into the salt", payload: good.with("salt", c.Salt+digits[:len(digits)-1], "number", atoi(digits[len(digits)-1:]))},
		{name: "trailing '&' removed", payload: good.with("salt", trimmed)},
		{name: "trailing '&' moved into the number", payload: good.with("salt", trimmed, "number", "&"+digits)},
		{name: "key version and '&' moved into the number", payload: good.with("salt", strings.TrimSuffix(c.Salt, "1&"), "number", atoi("1"+digits))},
		{name: "salt cut inside the expiry, its digits before the number", payload: good.with("salt", prefix+"?expires="+exp[:4], "number", atoi(exp[4:]+digits))},
		{name: "salt of our key without trailing '&', a digit moved in", payload: forge(ourKey, prefix+"?kv=1&expires="+exp+digits[:1], atoi(digits[1:]))},
		{name: "salt of our key ending in its expiry, a later expiry spliced", payload: forge(ourKey, prefix+"?kv=1&expires="+exp+"9", n)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spent, err := pow.Verify(encode(t, tt.payload))
			if err == nil {
				t.Fatalf("Verify() accepted a spliced payload: %+v", spent)
			}
			if code := intake.CodeOf(err); code != intake.CodePowInvalid {
				t.Errorf("code = %s, want %s (%v)", code, intake.CodePowInvalid, err)
			}
		})
	}
}

func TestVerifyKeyRotation(t *testing.T) {
	v1 := newRing(t, map[string]byte{"1": 'a'}, "1")
	v2 := newRing(t, map[string]byte{"1": 'a', "2": 'b'}, "2")
	onlyV2 := newRing(t, map[string]byte{"2": 'b'}, "2")

	before, err := newPoW(t, v1, t0, 1).Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	signedBefore, _ := solved(t, before)
	after, err := newPoW(t, v2, t0, 2).Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	signedAfter, _ := solved(t, after)
	if !strings.Contains(after.Salt, "&kv=2&") {
		t.Fatalf("after rotation the salt %q does not name version 2", after.Salt)
	}

	tests := []struct {
		name    string
		ring    *keyring.Ring
		payload string
		want    intake.Code // "" for accepted
	}{
		{name: "version 1 challenge, version 1 ring", ring: v1, payload: signedBefore},
		{name: "version 1 challenge after rotation to version 2", ring: v2, payload: signedBefore},
		{name: "version 2 challenge after rotation", ring: v2, payload: signedAfter},
		{name: "version 2 challenge on an instance not yet rotated", ring: v1, payload: signedAfter, want: intake.CodePowInvalid},
		{name: "version 1 challenge once version 1 is dropped", ring: onlyV2, payload: signedBefore, want: intake.CodePowInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newPoW(t, tt.ring, t0, 3).Verify(tt.payload)
			if got := intake.CodeOf(err); got != tt.want {
				t.Errorf("Verify() code = %q, want %q (%v)", got, tt.want, err)
			}
		})
	}
}

func TestVerifySpentKey(t *testing.T) {
	ring := newRing(t, map[string]byte{"1": 'a'}, "1")
	pow := newPoW(t, ring, t0, 5)
	keys := map[string]bool{}
	for i := range 5 {
		c, err := pow.Issue(nil)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := solved(t, c)
		first, err := pow.Verify(payload)
		if err != nil {
			t.Fatal(err)
		}
		// The same solution, sent again (even with other ignored fields),
		// names the same challenge.
		again, err := pow.Verify(encode(t, decodePayload(t, payload).with("took", 99)))
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Errorf("challenge %d: the same solution spent %+v, then %+v", i, first, again)
		}
		if keys[first.Key] {
			t.Errorf("challenge %d: key %s already named another challenge", i, first.Key)
		}
		keys[first.Key] = true
	}
}

func TestVerifyChecksShapeBeforeKeys(t *testing.T) {
	// A malformed payload is refused before any key is looked up or any
	// HMAC computed; a well-formed one looks up exactly one key.
	ring := &countingRing{Ring: newRing(t, map[string]byte{"1": 'a'}, "1")}
	pow := newPoW(t, ring, t0, 1)
	c, err := pow.Issue(nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := solved(t, c)
	tests := []struct {
		name    string
		payload string
		lookups int
	}{
		{name: "malformed", payload: "AAAA", lookups: 0},
		{name: "valid", payload: payload, lookups: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ring.lookups = 0
			pow.Verify(tt.payload)
			if ring.lookups != tt.lookups {
				t.Errorf("key lookups = %d, want %d", ring.lookups, tt.lookups)
			}
		})
	}
}

type countingRing struct {
	*keyring.Ring
	lookups int
}

func (r *countingRing) Key(v string) ([]byte, bool) { r.lookups++; return r.Ring.Key(v) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	s, err := base64.StdEncoding.DecodeString(encode(t, v))
	if err != nil {
		t.Fatal(err)
	}
	return string(s)
}

func flipHex(s string) string {
	b := []byte(s)
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	return string(b)
}

func bytesOf(c byte) []byte {
	b := make([]byte, keyring.MinKeyLen)
	for i := range b {
		b[i] = c
	}
	return b
}

func ptr[T any](v T) *T { return &v }
