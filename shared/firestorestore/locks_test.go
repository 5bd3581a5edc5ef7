package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockWait bounds how long a test's caller waits for its keys: a deadlock
// fails the test saying so instead of hanging it until the package
// timeout. It measures nothing.
const lockWait = 10 * time.Second

// TestKeyedLocksExclude: callers whose key sets overlap never hold a key at
// the same time, whatever order they list the keys in (sorted taking keeps
// them out of deadlock), and the lock table is empty afterwards.
func TestKeyedLocksExclude(t *testing.T) {
	var l keyedLocks
	sets := [][]string{{"a", "b"}, {"b", "a"}, {"c", "a"}, {"b", "c", "b"}}
	holders := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var stuck atomic.Int32
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := sets[i%len(sets)]
			ctx, cancel := context.WithTimeout(context.Background(), lockWait)
			defer cancel()
			unlock, err := l.lock(ctx, keys)
			if errors.Is(err, context.DeadlineExceeded) {
				stuck.Add(1)
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			unique := map[string]bool{}
			for _, k := range keys {
				unique[k] = true
			}
			mu.Lock()
			for k := range unique {
				holders[k]++
				if holders[k] > 1 {
					t.Errorf("key %s held twice", k)
				}
			}
			mu.Unlock()
			mu.Lock()
			for k := range unique {
				holders[k]--
			}
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if n := stuck.Load(); n > 0 {
		t.Fatalf("%d callers waited %s for their keys: callers listing keys in different orders deadlocked", n, lockWait)
	}
	if n := l.size(); n != 0 {
		t.Fatalf("%d keys left in the table", n)
	}
}

// TestKeyedLocksTakeKeysInOneOrder: a caller waiting for a key holds no key
// that sorts after it, so ["b", "a"] waiting for a held "a" does not hold
// "b" meanwhile (taking keys in the order listed would, and two callers
// listing them in opposite orders would wait on each other for ever).
func TestKeyedLocksTakeKeysInOneOrder(t *testing.T) {
	var l keyedLocks
	holdA, err := l.lock(context.Background(), []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	waiter := make(chan func(), 1)
	go func() {
		unlock, err := l.lock(context.Background(), []string{"b", "a"})
		if err != nil {
			unlock = func() {}
		}
		waiter <- unlock
	}()
	// Until the waiter is queued on "a" (a second reference to it).
	deadline := time.Now().Add(lockWait)
	for l.refs("a") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the caller of [b a] did not come to wait for a within %s", lockWait)
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	unlockB, err := l.lock(ctx, []string{"b"})
	if err != nil {
		holdA()
		t.Fatalf("b is held by a caller still waiting for a (%v): keys are taken in the order listed, not sorted", err)
	}
	unlockB()
	holdA()
	select {
	case unlock := <-waiter:
		unlock()
	case <-time.After(lockWait):
		t.Fatalf("the caller of [b a] did not get its keys within %s of their release", lockWait)
	}
	if n := l.size(); n != 0 {
		t.Fatalf("%d keys left in the table", n)
	}
}

func TestKeyedLocksGiveUpWithContext(t *testing.T) {
	tests := []struct {
		name   string
		held   []string
		wanted []string
	}{
		{"same key", []string{"a"}, []string{"a"}},
		{"second key busy", []string{"b"}, []string{"a", "b"}},
		{"first of several busy", []string{"a"}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l keyedLocks
			unlock, err := l.lock(context.Background(), tt.held)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := l.lock(ctx, tt.wanted); !errors.Is(err, context.Canceled) {
				t.Fatalf("lock of a held key with an ended context = %v, want context.Canceled", err)
			}
			if n := l.size(); n != len(tt.held) {
				t.Fatalf("table holds %d keys after giving up, want %d", n, len(tt.held))
			}
			unlock()
			again, err := l.lock(context.Background(), tt.wanted)
			if err != nil {
				t.Fatalf("keys not released after giving up: %v", err)
			}
			again()
			if n := l.size(); n != 0 {
				t.Fatalf("%d keys left in the table", n)
			}
		})
	}
}

func BenchmarkKeyedLocks(b *testing.B) {
	var l keyedLocks
	keys := make([][]string, 64)
	for i := range keys {
		keys[i] = []string{fmt.Sprint("k", i%8), fmt.Sprint("j", i)}
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			unlock, _ := l.lock(context.Background(), keys[i%len(keys)])
			unlock()
			i++
		}
	})
}

// refs is how many callers hold or wait for key.
func (l *keyedLocks) refs(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if kl := l.m[key]; kl != nil {
		return kl.refs
	}
	return 0
}

// size is the number of keys held or waited for.
func (l *keyedLocks) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}
