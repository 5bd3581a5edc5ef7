package floodlimit

import "time"

// NewWithCapacity is New with another key capacity; it refuses one below 1.
func NewWithCapacity(limit int, window time.Duration, capacity int) (*Limiter, error) {
	return newLimiter(limit, window, capacity)
}

// Len returns how many keys the limiter holds in memory.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}
