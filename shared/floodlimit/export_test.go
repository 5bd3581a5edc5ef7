package floodlimit

import "time"

// NewWithCapacity is New with another key capacity.
func NewWithCapacity(limit int, window time.Duration, capacity int) (*Limiter, error) {
	l, err := New(limit, window)
	if err == nil {
		l.capacity = capacity
	}
	return l, err
}

// Len returns how many keys the limiter holds in memory.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}
