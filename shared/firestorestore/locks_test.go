package firestorestore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestKeyedLocksExclude: callers whose key sets overlap never hold a key at
// the same time, whatever order they list the keys in (sorted taking keeps
// them out of deadlock), and the lock table is empty afterwards.
func TestKeyedLocksExclude(t *testing.T) {
	var l keyedLocks
	sets := [][]string{{"a", "b"}, {"b", "a"}, {"c", "a"}, {"b", "c", "b"}}
	holders := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := sets[i%len(sets)]
			unlock, err := l.lock(context.Background(), keys)
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
