package altchapow_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// FuzzVerify asserts that Verify never panics, refuses only with its one
// error shape, and accepts nothing but the solutions of challenges this
// process issued with its own key. (Setup is deterministic, so every fuzz
// worker issues the same challenges.)
func FuzzVerify(f *testing.F) {
	ring := newRing(f, map[string]byte{"1": 'a', "2": 'b'}, "2")
	other := newRing(f, map[string]byte{"2": 'x'}, "2")
	pow := newPoW(f, ring, t0, 42)
	ourKey := signingKey(f, ring, "2")
	exp := strconv.FormatInt(t0.Add(altchapow.DefaultLifetime).Unix(), 10)

	issued := map[string]int64{} // salt → its secret number
	for _, params := range []url.Values{nil, {"form": {"introduction"}}, {"a": {"1"}}} {
		c, err := pow.Issue(params)
		if err != nil {
			f.Fatal(err)
		}
		payload, n := solved(f, c)
		issued[c.Salt] = n
		good := decodePayload(f, payload)
		digits := strconv.FormatInt(n, 10)
		f.Add(payload)
		f.Add(encode(f, good.with("took", 12)))
		f.Add(encode(f, good.with("salt", c.Salt+digits[:1], "number", json.Number(orZero(digits[1:])))))
		f.Add(encode(f, good.with("salt", strings.TrimSuffix(c.Salt, "&"))))
		f.Add(encode(f, good.with("salt", strings.TrimSuffix(c.Salt, "2&"), "number", json.Number("2"+digits))))
		f.Add(encode(f, good.with("number", n+1)))
	}
	oc, err := newPoW(f, other, t0, 42).Issue(nil)
	if err != nil {
		f.Fatal(err)
	}
	otherPayload, _ := solved(f, oc)
	f.Add(otherPayload)
	f.Add(encode(f, forge(ourKey, "abc?kv=2&", 5)))
	f.Add(encode(f, forge(ourKey, "abc?expires="+exp+"&kv=2", 5)))
	f.Add(encode(f, forge(ourKey, "abc?expires="+exp+"&kv=2&", -5)))
	f.Add("")
	f.Add("AAAA")
	f.Add("e30=") // {}

	f.Fuzz(func(t *testing.T, payload string) {
		spent, err := pow.Verify(payload)
		if err != nil {
			var e *intake.Error
			if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != "altcha" {
				t.Fatalf("Verify() error %v is not one altcha field error", err)
			}
			switch e.Code {
			case intake.CodePowRequired, intake.CodePowInvalid, intake.CodePowExpired:
			default:
				t.Fatalf("Verify() code %s is not a proof-of-work code", e.Code)
			}
			return
		}
		// Accepted: it must be the solution of a challenge we issued,
		// signed with our key, and it must not be in the past.
		raw, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			t.Fatalf("accepted a payload that is not base64: %q", payload)
		}
		var p struct {
			Challenge string `json:"challenge"`
			Number    int64  `json:"number"`
			Salt      string `json:"salt"`
			Signature string `json:"signature"`
		}
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&p); err != nil {
			t.Fatalf("accepted a payload that is not JSON: %q", raw)
		}
		if n, ok := issued[p.Salt]; !ok || n != p.Number {
			t.Fatalf("accepted a solution we never issued: salt %q number %d", p.Salt, p.Number)
		}
		kv, _ := url.ParseQuery(p.Salt[strings.IndexByte(p.Salt, '?')+1:])
		m := hmac.New(sha256.New, signingKey(t, ring, kv.Get("kv")))
		m.Write([]byte(p.Challenge))
		if !hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(p.Signature)) {
			t.Fatalf("accepted a signature our key did not make: %q", raw)
		}
		if spent.Key == "" || !spent.ExpireAt.After(t0) {
			t.Fatalf("accepted with spent challenge %+v", spent)
		}
	})
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func BenchmarkIssue(b *testing.B) {
	ring := newRing(b, map[string]byte{"1": 'a'}, "1")
	pow, err := altchapow.New(ring, testsupport.NewClock(t0), altchapow.Config{Random: rand.Reader})
	if err != nil {
		b.Fatal(err)
	}
	params := url.Values{"form": {"introduction"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pow.Issue(params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	ring := newRing(b, map[string]byte{"1": 'a'}, "1")
	pow := newPoW(b, ring, t0, 1)
	c, err := pow.Issue(url.Values{"form": {"introduction"}})
	if err != nil {
		b.Fatal(err)
	}
	valid, _ := solved(b, c)
	cases := []struct {
		name    string
		payload string
	}{
		{name: "valid", payload: valid},
		{name: "bad signature", payload: encode(b, decodePayload(b, valid).with("signature", flipHex(c.Signature)))},
		{name: "malformed", payload: "AAAA"},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pow.Verify(bc.payload)
			}
		})
	}
}
