package secretkeys

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// rotatingOver loads a Rotating keyring from fake at the clock's time.
func rotatingOver(t *testing.T, fake *fakeAccessor, clock *testsupport.Clock) *Rotating {
	t.Helper()
	ring, err := Load(context.Background(), fake, secretName)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRotating(ring, fake, secretName, slog.New(slog.DiscardHandler), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fakeAccessor) add(v string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions[v], f.latest = version{data: data}, v
}

func (f *fakeAccessor) askedFor(v string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, a := range f.asked {
		if strings.HasSuffix(a, "/versions/"+v) {
			n++
		}
	}
	return n
}

// TestRotationAfterStartIsFetched: a version added after start is fetched
// the first time a signature names it, then kept and current; asking again
// costs no access.
func TestRotationAfterStartIsFetched(t *testing.T) {
	fake := &fakeAccessor{latest: "1", versions: map[string]version{"1": {data: key('1', 32)}}}
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r := rotatingOver(t, fake, clock)
	if _, ok := r.Key("2"); ok {
		t.Fatal("Key(2) before version 2 exists succeeded")
	}
	fake.add("2", key('2', 32))
	clock.Advance(FetchEvery)
	k, ok := r.Key("2")
	if !ok || !bytes.Equal(k, key('2', 32)) {
		t.Fatalf("Key(2) after the rotation = %q, %v", k, ok)
	}
	if v, ck := r.Current(); v != "2" || !bytes.Equal(ck, key('2', 32)) {
		t.Errorf("Current() = %q; the fetched newer version must be current", v)
	}
	if got := r.Versions(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("Versions() = %q", got)
	}
	asked := fake.askedFor("2")
	for range 3 {
		if _, ok := r.Key("2"); !ok {
			t.Fatal("Key(2) forgot the fetched version")
		}
	}
	if fake.askedFor("2") != asked {
		t.Error("a held version was fetched again")
	}
	if k, ok := r.Key("1"); !ok || !bytes.Equal(k, key('1', 32)) {
		t.Error("the version loaded at start is gone")
	}
}

// TestFetchesAreBoundedAndRateLimited: made-up versions cost at most one
// access per FetchEvery; versions too far ahead, older or not numbers are
// never fetched; a missing, disabled or short version stays unknown; at
// most MaxFetched fetched versions are kept.
func TestFetchesAreBoundedAndRateLimited(t *testing.T) {
	fake := &fakeAccessor{latest: "10", versions: map[string]version{
		"10": {data: key('a', 32)}, "12": {code: codes.FailedPrecondition}, "13": {data: key('s', 8)},
	}}
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r := rotatingOver(t, fake, clock)
	before := len(fake.asked)
	for _, v := range []string{"16", "9", "abc", "011", "", "-1", "99999999999999999999"} {
		if _, ok := r.Key(v); ok {
			t.Errorf("Key(%q) succeeded", v)
		}
	}
	if len(fake.asked) != before {
		t.Fatalf("versions out of bounds were fetched: %q", fake.asked[before:])
	}
	for _, v := range []string{"11", "12", "13"} { // missing, disabled, short
		clock.Advance(FetchEvery)
		if _, ok := r.Key(v); ok {
			t.Errorf("Key(%s) succeeded", v)
		}
	}
	before = len(fake.asked)
	for _, v := range []string{"11", "14", "15", "11"} { // no time has passed
		r.Key(v)
	}
	if len(fake.asked) != before {
		t.Fatalf("%d fetches within FetchEvery", len(fake.asked)-before)
	}

	for i := byte(0); i < MaxFetched+2; i++ {
		v := strconv.Itoa(11 + int(i))
		fake.add(v, key('k'+i, 32))
		clock.Advance(FetchEvery)
		if _, ok := r.Key(v); !ok {
			t.Fatalf("Key(%s) after adding it failed", v)
		}
	}
	if got := r.Versions(); len(got) != MaxFetched+1 || !slices.Contains(got, "10") {
		t.Fatalf("Versions() = %q: want the start version and the %d newest fetched", got, MaxFetched)
	}
}

func TestNewRotatingRefusesMissingParts(t *testing.T) {
	_, err := NewRotating(nil, nil, "nope", nil, nil)
	for _, part := range []string{"Ring", "SecretAccessor", "logger", "secret name"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("NewRotating without %s: %v", part, err)
		}
	}
	ring, _ := keyring.New(map[string][]byte{"1": key('1', 32)}, "1")
	if _, err := NewRotating(ring, &fakeAccessor{}, secretName, slog.New(slog.DiscardHandler), nil); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPepper(t *testing.T) {
	fake := &fakeAccessor{latest: "2", versions: map[string]version{"1": {data: key('p', 32)}, "2": {data: key('q', 8)}}}
	p, err := LoadPepper(context.Background(), fake, secretName+"/versions/1")
	if err != nil || !bytes.Equal(p, key('p', 32)) {
		t.Fatalf("LoadPepper(1) = %q, %v", p, err)
	}
	for _, bad := range []string{secretName + "/versions/latest", secretName, secretName + "/versions/0", "projects//secrets/x/versions/1", secretName + "/versions/2"} {
		if _, err := LoadPepper(context.Background(), fake, bad); err == nil {
			t.Errorf("LoadPepper(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "qqqq") {
			t.Errorf("the error names the pepper: %v", err)
		}
	}
}
