package floodlimit

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

func TestAdmitBlocksPastTheLimitPerKeyOnly(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l := mustNew(t, 3, 10*time.Minute)
	for i := 0; i < 3; i++ {
		if d, _ := l.Admit("a", now); d.Decision != intake.RateAllow || d.Count != i+1 || d.Layer != Layer {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d, wait := l.Admit("a", now)
	if d.Decision != intake.RateBlock || wait < time.Minute {
		t.Fatalf("fourth request: %+v wait %s", d, wait)
	}
	if d, _ := l.Admit("b", now); d.Decision != intake.RateAllow {
		t.Fatal("a blocked key must never block another")
	}
	// Two windows later everything the key did has left the estimate.
	if d, _ := l.Admit("a", now.Add(20*time.Minute)); d.Decision != intake.RateAllow {
		t.Fatalf("after two windows: %+v", d)
	}
}

func TestRememberedBlocksExpire(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l := mustNew(t, 3, time.Minute)
	l.Block("k", now.Add(90*time.Second))
	if wait, ok := l.Blocked("k", now); !ok || wait != 2*time.Minute {
		t.Fatalf("blocked: %v %s", ok, wait)
	}
	if _, ok := l.Blocked("other", now); ok {
		t.Fatal("only the blocked key is blocked")
	}
	if _, ok := l.Blocked("k", now.Add(90*time.Second)); ok {
		t.Fatal("a block ends at its time")
	}
}

func mustNew(t *testing.T, limit int, window time.Duration) *Limiter {
	t.Helper()
	l, err := New(limit, window)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewRefusesBadLimits(t *testing.T) {
	_, err := New(0, 0)
	if err == nil || !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), "window") {
		t.Fatalf("New(0, 0) error = %v", err)
	}
}

// TestManyNewKeysDoNotWipeTheBlockedOnes fills the limiter far past its
// capacity with fresh keys (an attacker rotating IPv6 /64s): the keys at
// the flood limit and under remembered blocks stay blocked, and memory stays
// within the capacity.
func TestManyNewKeysDoNotWipeTheBlockedOnes(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l, err := NewWithCapacity(3, 10*time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		l.Admit("flooder", now)
	}
	if d, _ := l.Admit("flooder", now); d.Decision != intake.RateBlock {
		t.Fatalf("flooder not blocked: %+v", d)
	}
	l.Block("remembered", now.Add(time.Hour))
	for i := range 10_000 {
		l.Admit(fmt.Sprintf("rotating-%d", i), now.Add(time.Duration(i)*time.Millisecond))
	}
	if n := l.Len(); n > 100 {
		t.Fatalf("%d keys in memory, over the capacity of 100", n)
	}
	later := now.Add(10 * time.Second)
	if d, _ := l.Admit("flooder", later); d.Decision != intake.RateBlock {
		t.Fatalf("the flooder was forgotten: %+v", d)
	}
	if _, ok := l.Blocked("remembered", later); !ok {
		t.Fatal("the remembered block was forgotten")
	}
}

// TestOnlyAllHeldKeysEvictHeldOnes: when every key in memory is held, the
// least recently used held key goes first.
func TestOnlyAllHeldKeysEvictHeldOnes(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l, err := NewWithCapacity(1, time.Minute, 2)
	if err != nil {
		t.Fatal(err)
	}
	l.Block("a", now.Add(time.Hour))
	l.Block("b", now.Add(time.Hour))
	l.Blocked("a", now)
	l.Block("c", now.Add(time.Hour))
	if l.Len() != 2 {
		t.Fatalf("len %d", l.Len())
	}
	for key, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok := l.Blocked(key, now); ok != want {
			t.Errorf("Blocked(%q) = %v, want %v", key, ok, want)
		}
	}
}

// BenchmarkAdmitPastCapacity admits fresh keys into a full limiter (the
// flood a rotating attacker makes) and reports the heap each held key costs.
func BenchmarkAdmitPastCapacity(b *testing.B) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := New(60, 10*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, MaxKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064x", i)
		l.Admit(keys[i], now)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perKey := float64(after.HeapAlloc-before.HeapAlloc) / MaxKeys
	b.ResetTimer()
	for i := range b.N {
		l.Admit(fmt.Sprintf("fresh-%d", i), now)
	}
	b.ReportMetric(perKey, "heap-bytes/key")
}
