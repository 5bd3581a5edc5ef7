// Package keyring holds the HMAC master keys by version (intake.Keyring):
// never a short key, never key material in errors or printed forms; Derive
// makes per-purpose keys. README.md has the key rules.
package keyring

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"

	"github.com/ownersite/introductions/shared/intake"
)

// MinKeyLen is the shortest master key a Ring accepts, in bytes.
const MinKeyLen = 32

const maxVersionLen = 64 // a version name travels inside signed salts

// Ring is an immutable set of master keys by version, one current; safe for concurrent use.
type Ring struct {
	keys    map[string][]byte
	current string
}

var _ intake.Keyring = (*Ring)(nil)

// New returns a Ring of a copy of keys, current signing. It refuses an empty ring, an unknown
// current version, a key shorter than MinKeyLen and a version name that is empty, over 64
// bytes or not of ASCII letters, digits, '.', '_' and '-'.
func New(keys map[string][]byte, current string) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("keyring: no keys")
	}
	r := &Ring{keys: make(map[string][]byte, len(keys)), current: current}
	for v, k := range keys {
		if err := checkVersion(v); err != nil {
			return nil, err
		}
		if len(k) < MinKeyLen {
			return nil, fmt.Errorf("keyring: key version %q is %d bytes, need at least %d", v, len(k), MinKeyLen)
		}
		r.keys[v] = slices.Clone(k)
	}
	if _, ok := r.keys[current]; !ok {
		return nil, fmt.Errorf("keyring: current version %q is not in the ring", current)
	}
	return r, nil
}

func checkVersion(v string) error {
	if v == "" || len(v) > maxVersionLen {
		return fmt.Errorf("keyring: key version name must be 1 to %d bytes", maxVersionLen)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("keyring: key version %q has a character outside [A-Za-z0-9._-]", v)
		}
	}
	return nil
}

// Local returns a Ring of one fresh key read from random, under a "local-" version, for runs
// without a configured secret. A short read is an error.
func Local(random io.Reader) (*Ring, error) {
	if random == nil {
		return nil, errors.New("keyring: Local needs a random source")
	}
	buf := make([]byte, MinKeyLen+4)
	if _, err := io.ReadFull(random, buf); err != nil {
		return nil, fmt.Errorf("keyring: reading a local key: %w", err)
	}
	version := "local-" + hex.EncodeToString(buf[MinKeyLen:])
	return New(map[string][]byte{version: buf[:MinKeyLen]}, version)
}

// Current returns the current version and a copy of its key.
func (r *Ring) Current() (version string, key []byte) {
	return r.current, slices.Clone(r.keys[r.current])
}

// Key returns a copy of version's key; false when not held.
func (r *Ring) Key(version string) ([]byte, bool) {
	k, ok := r.keys[version]
	return slices.Clone(k), ok
}

// Versions returns the ring's versions, sorted, for diagnostics.
func (r *Ring) Versions() []string {
	return slices.Sorted(maps.Keys(r.keys))
}

// String describes the ring by its versions only, never its keys.
func (r *Ring) String() string {
	return fmt.Sprintf("keyring.Ring{current: %q, versions: %q}", r.current, r.Versions())
}

// GoString is String, so that %#v never prints key material either.
func (r *Ring) GoString() string { return r.String() }

// LogValue logs the ring as its versions only, never its keys.
func (r *Ring) LogValue() slog.Value {
	return slog.GroupValue(slog.String("current", r.current), slog.Any("versions", r.Versions()))
}

// Derive returns HMAC-SHA256(key, purpose): a key for one purpose only.
func Derive(key []byte, purpose string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}
