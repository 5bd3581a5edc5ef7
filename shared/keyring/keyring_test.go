package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// key returns a key of n bytes, every byte b.
func key(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		keys     map[string][]byte
		current  string
		wantErr  bool
		versions []string
	}{
		{name: "one key", keys: map[string][]byte{"1": key('a', 32)}, current: "1", versions: []string{"1"}},
		{name: "two keys, older current", keys: map[string][]byte{"1": key('a', 32), "2": key('b', 64)}, current: "1", versions: []string{"1", "2"}},
		{name: "version with punctuation", keys: map[string][]byte{"local-0a1B.x_y": key('a', 32)}, current: "local-0a1B.x_y", versions: []string{"local-0a1B.x_y"}},
		{name: "nil ring", keys: nil, current: "1", wantErr: true},
		{name: "empty ring", keys: map[string][]byte{}, current: "", wantErr: true},
		{name: "unknown current", keys: map[string][]byte{"1": key('a', 32)}, current: "2", wantErr: true},
		{name: "empty current", keys: map[string][]byte{"1": key('a', 32)}, current: "", wantErr: true},
		{name: "short current key", keys: map[string][]byte{"1": key('a', 31)}, current: "1", wantErr: true},
		{name: "empty key", keys: map[string][]byte{"1": {}}, current: "1", wantErr: true},
		{name: "short older key", keys: map[string][]byte{"1": key('a', 16), "2": key('b', 32)}, current: "2", wantErr: true},
		{name: "empty version name", keys: map[string][]byte{"": key('a', 32)}, current: "", wantErr: true},
		{name: "version with ampersand", keys: map[string][]byte{"1&x": key('a', 32)}, current: "1&x", wantErr: true},
		{name: "version with space", keys: map[string][]byte{"a b": key('a', 32)}, current: "a b", wantErr: true},
		{name: "version too long", keys: map[string][]byte{strings.Repeat("v", 65): key('a', 32)}, current: strings.Repeat("v", 65), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.keys, tt.current)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("New() = %v, want an error", r)
				}
				for _, k := range tt.keys {
					if len(k) > 0 && strings.Contains(err.Error(), string(k)) {
						t.Errorf("error %q contains key material", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error: %v", err)
			}
			if got := r.Versions(); !slices.Equal(got, tt.versions) {
				t.Errorf("Versions() = %q, want %q", got, tt.versions)
			}
			v, k := r.Current()
			if v != tt.current || !bytes.Equal(k, tt.keys[tt.current]) {
				t.Errorf("Current() = %q, %x; want %q, %x", v, k, tt.current, tt.keys[tt.current])
			}
			for v, want := range tt.keys {
				if got, ok := r.Key(v); !ok || !bytes.Equal(got, want) {
					t.Errorf("Key(%q) = %x, %v; want %x, true", v, got, ok, want)
				}
			}
			if k, ok := r.Key("no-such-version"); ok || k != nil {
				t.Errorf("Key(unknown) = %x, %v; want nil, false", k, ok)
			}
		})
	}
}

func TestRingIsImmutable(t *testing.T) {
	in := key('a', 32)
	r, err := New(map[string][]byte{"1": in}, "1")
	if err != nil {
		t.Fatal(err)
	}
	in[0] = 'X' // the caller's slice changes after New
	_, k := r.Current()
	k[1] = 'Y' // a returned key is changed
	k2, _ := r.Key("1")
	k2[2] = 'Z'
	if _, got := r.Current(); !bytes.Equal(got, key('a', 32)) {
		t.Errorf("ring key changed through an outside slice: %q", got)
	}
}

func TestLocal(t *testing.T) {
	seq := make([]byte, 40)
	for i := range seq {
		seq[i] = byte(i)
	}
	tests := []struct {
		name        string
		random      func() *bytes.Reader
		wantErr     bool
		wantVersion string
		wantKey     []byte
	}{
		{name: "key then version", random: func() *bytes.Reader { return bytes.NewReader(seq) }, wantVersion: "local-20212223", wantKey: seq[:32]},
		{name: "short random", random: func() *bytes.Reader { return bytes.NewReader(seq[:35]) }, wantErr: true},
		{name: "no random", random: func() *bytes.Reader { return bytes.NewReader(nil) }, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Local(tt.random())
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Local() = %v, want an error", r)
				}
				return
			}
			if err != nil {
				t.Fatalf("Local() error: %v", err)
			}
			v, k := r.Current()
			if v != tt.wantVersion || !bytes.Equal(k, tt.wantKey) {
				t.Errorf("Current() = %q, %x; want %q, %x", v, k, tt.wantVersion, tt.wantKey)
			}
		})
	}
	t.Run("nil reader", func(t *testing.T) {
		if _, err := Local(nil); err == nil {
			t.Fatal("Local(nil) succeeded")
		}
	})
	t.Run("failing reader", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := Local(iotest.ErrReader(boom)); !errors.Is(err, boom) {
			t.Fatalf("Local(failing) error = %v, want it to wrap %v", err, boom)
		}
	})
}

func TestRingNeverPrintsKeys(t *testing.T) {
	k := []byte("0123456789abcdef0123456789ABCDEF")
	r, err := New(map[string][]byte{"7": k}, "7")
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("ring", "keyring", r)
	outputs := map[string]string{
		"%v":   fmt.Sprintf("%v", r),
		"%+v":  fmt.Sprintf("%+v", r),
		"%#v":  fmt.Sprintf("%#v", r),
		"%s":   fmt.Sprintf("%s", r),
		"slog": logged.String(),
	}
	for name, out := range outputs {
		if !strings.Contains(out, "7") {
			t.Errorf("%s: %q does not name the version", name, out)
		}
		for _, secret := range []string{string(k), hex.EncodeToString(k), "0123456789", "[48 49 50"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: %q contains key material %q", name, out, secret)
			}
		}
	}
}

func TestDerive(t *testing.T) {
	seq := make([]byte, 32)
	for i := range seq {
		seq[i] = byte(i)
	}
	tests := []struct {
		name    string
		key     []byte
		purpose string
		want    string
	}{
		// RFC 4231 test cases 1 and 2 (HMAC-SHA-256).
		{name: "RFC 4231 case 1", key: bytes.Repeat([]byte{0x0b}, 20), purpose: "Hi There", want: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
		{name: "RFC 4231 case 2", key: []byte("Jefe"), purpose: "what do ya want for nothing?", want: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		// The service's purposes, from openssl dgst -sha256 -mac HMAC.
		{name: "altcha-v1", key: seq, purpose: "altcha-v1", want: "9f4a7d955652bba2ed35ae6313cd966528ff61a38b30f5a40a695447eb0b1bab"},
		{name: "rate-limit-pepper", key: seq, purpose: "rate-limit-pepper", want: "7ad06a4197040a8b1ba6c1ab713cfe823b8e1bebd6758c33cd1576aa7b3ddfc1"},
		{name: "decoy-id", key: seq, purpose: "decoy-id", want: "759462109051af2c67c94667d30bd2062a7138962bca3adf4e7584f7f4448c85"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hex.EncodeToString(Derive(tt.key, tt.purpose)); got != tt.want {
				t.Errorf("Derive() = %s, want %s", got, tt.want)
			}
		})
	}
}
