package secretkeys

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
		"10": {data: key('a', 32)}, "12": {status: "FAILED_PRECONDITION"}, "13": {data: key('s', 8)},
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
	// config refuses a version not pinned by number (TestLoad there).
	for _, bad := range []string{secretName + "/versions/3", secretName + "/versions/2"} {
		if _, err := LoadPepper(context.Background(), fake, bad); err == nil {
			t.Errorf("LoadPepper(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "qqqq") {
			t.Errorf("the error names the pepper: %v", err)
		}
	}
}

func (f *fakeAccessor) put(v string, ver version) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions[v], f.latest = ver, v
}

func (f *fakeAccessor) setGate(gate func(context.Context)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate = gate
}

// TestRefreshFollowsARotationNoSignatureNames: a version added after start
// becomes current once RefreshEvery has passed, though no signature names
// it: the call that finds the refresh due answers from the versions held
// and starts one read of the latest version in the background; nothing is
// read before the interval. Each of the three methods starts it (a
// function that only verifies calls Versions and Key), and the versions
// learned this way are bounded by MaxFetched.
func TestRefreshFollowsARotationNoSignatureNames(t *testing.T) {
	for name, call := range map[string]func(*Rotating){
		"Current":  func(r *Rotating) { r.Current() },
		"Versions": func(r *Rotating) { r.Versions() },
		"Key":      func(r *Rotating) { r.Key("1") },
	} {
		t.Run(name, func(t *testing.T) {
			fake := &fakeAccessor{latest: "1", versions: map[string]version{"1": {data: key('1', 32)}}}
			clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			r := rotatingOver(t, fake, clock)
			t.Cleanup(func() { r.Close() })
			for i := byte(0); i < MaxFetched+2; i++ {
				v := strconv.Itoa(2 + int(i))
				fake.add(v, key('a'+i, 32))
				clock.Advance(RefreshEvery - time.Nanosecond)
				call(r)
				r.Wait()
				if n := fake.askedFor("latest"); n != 1+int(i) {
					t.Fatalf("rotation to %s: %d reads of latest before the interval passed, want %d", v, n, 1+int(i))
				}
				clock.Advance(time.Nanosecond)
				call(r) // due: starts the refresh, answers from what is held
				r.Wait()
				if n := fake.askedFor("latest"); n != 2+int(i) {
					t.Fatalf("rotation to %s: %d reads of latest, want %d", v, n, 2+int(i))
				}
				if cv, ck := r.Current(); cv != v || !bytes.Equal(ck, key('a'+i, 32)) {
					t.Fatalf("Current() = %q one interval after version %s was added", cv, v)
				}
				if fake.askedFor(v) != 0 {
					t.Fatalf("version %s was accessed by number too", v)
				}
			}
			if got := r.Versions(); len(got) != MaxFetched+1 || !slices.Contains(got, "1") {
				t.Fatalf("Versions() = %q: want the start version and the %d newest learned", got, MaxFetched)
			}
		})
	}
}

// TestTheCallThatStartsARefreshDoesNotWaitForIt: while the read of the
// latest version is held in flight, Current, Versions and Key answer from
// the versions held, many concurrent calls and another interval passing
// start no second read, and the version read becomes current once the
// read ends.
func TestTheCallThatStartsARefreshDoesNotWaitForIt(t *testing.T) {
	fake := &fakeAccessor{latest: "1", versions: map[string]version{"1": {data: key('1', 32)}}}
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r := rotatingOver(t, fake, clock)
	t.Cleanup(func() { r.Close() })
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake.setGate(func(ctx context.Context) {
		once.Do(func() { close(entered) })
		select {
		case <-release:
		case <-ctx.Done(): // Close, when the test fails before releasing
		}
	})
	fake.add("2", key('2', 32))
	clock.Advance(RefreshEvery)

	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, _ := r.Current(); v != "1" {
				t.Errorf("Current() = %q while the refresh is in flight", v)
			}
			r.Versions()
			r.Key("1")
		}()
	}
	wg.Wait()
	<-entered
	clock.Advance(2 * RefreshEvery)
	if v, _ := r.Current(); v != "1" {
		t.Errorf("Current() = %q while the refresh is in flight", v)
	}
	close(release)
	r.Wait()
	if n := fake.askedFor("latest"); n != 2 { // Load's, and the one refresh
		t.Fatalf("%d reads of latest, want Load's and one refresh", n)
	}
	if v, _ := r.Current(); v != "2" {
		t.Fatalf("Current() = %q after the refresh", v)
	}
}

// TestAFailedRefreshChangesNothingAndWaitsForTheInterval: an outage, a
// disabled, short or corrupt latest version, or a response naming no
// version leaves the versions held as they were, is logged without key
// material, and the next read comes only RefreshEvery after the failed one.
func TestAFailedRefreshChangesNothingAndWaitsForTheInterval(t *testing.T) {
	for name, bad := range map[string]version{
		"outage":       {status: "UNAVAILABLE"},
		"disabled":     {status: "FAILED_PRECONDITION"},
		"denied":       {status: "PERMISSION_DENIED"},
		"short":        {data: key('s', keyring.MinKeyLen-1)},
		"corrupt":      {data: key('c', 32), badCRC: true},
		"no version":   {data: key('n', 32), respond: "projects/1/secrets/hmac"},
		"other secret": {data: key('o', 32), respond: "projects/1/secrets/other/versions/2"},
	} {
		t.Run(name, func(t *testing.T) {
			fake := &fakeAccessor{latest: "1", versions: map[string]version{"1": {data: key('1', 32)}}}
			clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			ring, err := Load(context.Background(), fake, secretName)
			if err != nil {
				t.Fatal(err)
			}
			logs := &testsupport.Logs{}
			r, err := NewRotating(ring, fake, secretName, slog.New(slog.NewJSONHandler(logs, nil)), clock.Now)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			fake.put("2", bad)
			clock.Advance(RefreshEvery)
			r.Current()
			r.Wait()
			if v, _ := r.Current(); v != "1" || !slices.Equal(r.Versions(), []string{"1"}) {
				t.Fatalf("after a failed refresh: Current() = %q, Versions() = %q", v, r.Versions())
			}
			if !strings.Contains(logs.String(), "WARN") {
				t.Errorf("the failed refresh was not logged as a warning: %s", logs)
			}
			if len(bad.data) > 0 && strings.Contains(logs.String(), string(bad.data[:8])) {
				t.Errorf("the log holds key material: %s", logs)
			}

			fake.put("2", version{data: key('2', 32)})
			clock.Advance(RefreshEvery - time.Nanosecond)
			r.Current()
			r.Wait()
			if n := fake.askedFor("latest"); n != 2 {
				t.Fatalf("%d reads of latest within the interval after a failed one, want Load's and the failed one", n)
			}
			clock.Advance(time.Nanosecond)
			r.Current()
			r.Wait()
			if v, _ := r.Current(); v != "2" {
				t.Fatalf("Current() = %q once the latest version is usable and the interval has passed", v)
			}
		})
	}
}

// TestCloseStopsARefreshInFlight: Close cancels the read in flight and
// waits for it; what it answered after the cancellation is not kept, and
// no refresh starts after Close, while the versions held still answer.
func TestCloseStopsARefreshInFlight(t *testing.T) {
	fake := &fakeAccessor{latest: "1", versions: map[string]version{"1": {data: key('1', 32)}}}
	clock := testsupport.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	r := rotatingOver(t, fake, clock)
	entered := make(chan struct{})
	// A Secret Manager that answers only once the caller gave up, and then
	// answers anyway.
	fake.setGate(func(ctx context.Context) {
		close(entered)
		<-ctx.Done()
	})
	fake.add("2", key('2', 32))
	clock.Advance(RefreshEvery)
	r.Current()
	<-entered
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	fake.setGate(nil)
	if v, _ := r.Current(); v != "1" {
		t.Errorf("Current() = %q: the answer to a cancelled refresh was kept", v)
	}
	clock.Advance(RefreshEvery)
	r.Current()
	r.Wait()
	if n := fake.askedFor("latest"); n != 2 {
		t.Errorf("%d reads of latest: a refresh started after Close", n)
	}
	if k, ok := r.Key("1"); !ok || !bytes.Equal(k, key('1', 32)) {
		t.Error("the versions held stopped answering after Close")
	}
}
