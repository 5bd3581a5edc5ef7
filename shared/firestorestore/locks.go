package firestorestore

import (
	"context"
	"slices"
	"sync"
)

// keyedLocks is a set of per-key mutexes, made on demand.
type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

type keyLock struct {
	held chan struct{} // capacity 1: full while held
	refs int           // holders and waiters
}

// lock takes every key in sorted order and returns their release; ctx.Err() when ctx ends first.
func (l *keyedLocks) lock(ctx context.Context, keys []string) (unlock func(), err error) {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	taken := make([]string, 0, len(keys))
	unlock = func() {
		for i := len(taken) - 1; i >= 0; i-- {
			l.release(taken[i])
		}
	}
	for _, k := range keys {
		if err := l.acquire(ctx, k); err != nil {
			unlock()
			return nil, err
		}
		taken = append(taken, k)
	}
	return unlock, nil
}

func (l *keyedLocks) acquire(ctx context.Context, key string) error {
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*keyLock)
	}
	kl := l.m[key]
	if kl == nil {
		kl = &keyLock{held: make(chan struct{}, 1)}
		l.m[key] = kl
	}
	kl.refs++
	l.mu.Unlock()
	select {
	case kl.held <- struct{}{}:
		return nil
	case <-ctx.Done():
		l.drop(key, kl)
		return ctx.Err()
	}
}

func (l *keyedLocks) release(key string) {
	l.mu.Lock()
	kl := l.m[key]
	l.mu.Unlock()
	<-kl.held
	l.drop(key, kl)
}

func (l *keyedLocks) drop(key string, kl *keyLock) {
	l.mu.Lock()
	kl.refs--
	if kl.refs == 0 {
		delete(l.m, key)
	}
	l.mu.Unlock()
}
