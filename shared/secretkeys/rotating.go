package secretkeys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
)

// Bounds on what a Rotating keyring reads after start.
const (
	FetchAhead   = 5               // how far past its newest version it fetches on demand
	MaxFetched   = 4               // how many versions learned after start it keeps
	FetchEvery   = 2 * time.Second // the least time between two fetches
	FetchTimeout = 3 * time.Second // bounds one fetch
	RefreshEvery = 5 * time.Minute // how often, in use, it reads the latest version in the background
)

// Rotating is an intake.Keyring that follows rotations of its secret: a newer version (within
// FetchAhead) is fetched the first time a signature names it, the latest refreshed every
// RefreshEvery, and becomes current; a missing, disabled, destroyed or short one stays
// unknown. It never waits on Secret Manager but to fetch. Safe for concurrent use.
type Rotating struct {
	accessor SecretAccessor
	secret   string
	logger   *slog.Logger
	now      func() time.Time
	close    func() error
	ctx      context.Context // cancelled by Close
	cancel   context.CancelFunc

	mu          sync.Mutex
	ring        *keyring.Ring
	fetched     []string // versions learned after start, oldest first
	lastFetch   time.Time
	lastRefresh time.Time
	refreshing  chan struct{} // closed when the refresh in flight ends; nil when none is
}

var _ intake.Keyring = (*Rotating)(nil)

// NewRotating returns a Rotating keyring over ring, loaded from secret just now; now is
// time.Now when nil. It refuses a nil ring, accessor or logger and a malformed secret name.
func NewRotating(ring *keyring.Ring, accessor SecretAccessor, secret string, logger *slog.Logger, now func() time.Time) (*Rotating, error) {
	var problems []error
	if ring == nil {
		problems = append(problems, errors.New("secretkeys.NewRotating: no Ring"))
	}
	if accessor == nil {
		problems = append(problems, errors.New("secretkeys.NewRotating: no SecretAccessor"))
	}
	if logger == nil {
		problems = append(problems, errors.New("secretkeys.NewRotating: no logger"))
	}
	problems = append(problems, checkSecretName(secret))
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Rotating{accessor: accessor, secret: secret, logger: logger, now: now, ctx: ctx, cancel: cancel,
		ring: ring, lastRefresh: now()}, nil
}

// Current returns the newest version held and its key.
func (r *Rotating) Current() (string, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refreshIfDueLocked()
	return r.ring.Current()
}

// Versions lists every version held.
func (r *Rotating) Versions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refreshIfDueLocked()
	return r.ring.Versions()
}

// Key returns version's key, fetching a newer one first (see Rotating); false when it cannot be had.
func (r *Rotating) Key(version string) ([]byte, bool) {
	if k, ok, fetch := r.lookup(version); !fetch {
		return k, ok
	}
	ctx, cancel := context.WithTimeout(r.ctx, FetchTimeout)
	defer cancel()
	resp, err := access(ctx, r.accessor, r.secret+"/versions/"+version)
	if err != nil {
		level := slog.LevelWarn
		if unavailableVersion(err) {
			level = slog.LevelInfo
		}
		r.logger.Log(ctx, level, "secretkeys: a signature names a key version that cannot be fetched",
			slog.String("secret", r.secret), slog.String("version", version), slog.String("code", StatusOf(err)))
		return nil, false
	}
	key := resp.Data
	if len(key) < keyring.MinKeyLen {
		r.logger.Warn("secretkeys: fetched key version is too short", slog.String("secret", r.secret), slog.String("version", version))
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.ring.Key(version); ok { // fetched meanwhile by another request
		return k, true
	}
	if err := r.addLocked(version, key); err != nil {
		r.logger.Error("secretkeys: keeping a fetched key version", slog.String("secret", r.secret), slog.String("error", err.Error()))
		return nil, false
	}
	r.logger.Info("secretkeys: fetched a key version added after start; it is current now",
		slog.String("secret", r.secret), slog.String("version", version))
	return slices.Clone(key), true
}

// lookup returns version's key when held; fetch says whether the caller may fetch it now.
func (r *Rotating) lookup(version string) (key []byte, ok, fetch bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refreshIfDueLocked()
	if k, ok := r.ring.Key(version); ok {
		return k, true, false
	}
	n, err := strconv.ParseUint(version, 10, 64)
	_, newest := newestVersion(r.ring.Versions())
	if err != nil || strconv.FormatUint(n, 10) != version || n <= newest || n > newest+FetchAhead {
		return nil, false, false
	}
	now := r.now()
	if !r.lastFetch.IsZero() && now.Sub(r.lastFetch) < FetchEvery {
		return nil, false, false
	}
	r.lastFetch = now
	return nil, false, true
}

// newestVersion returns the highest numbered of versions ("" and 0 when none).
func newestVersion(versions []string) (string, uint64) {
	newest, best := "", uint64(0)
	for _, v := range versions {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n >= best {
			newest, best = v, n
		}
	}
	return newest, best
}

// addLocked adds version, dropping the oldest fetched one past MaxFetched.
func (r *Rotating) addLocked(version string, key []byte) error {
	keys := map[string][]byte{version: key}
	for _, v := range r.ring.Versions() {
		k, _ := r.ring.Key(v)
		keys[v] = k
	}
	fetched := append(slices.Clone(r.fetched), version)
	if len(fetched) > MaxFetched {
		delete(keys, fetched[0])
		fetched = fetched[1:]
	}
	newest, _ := newestVersion(slices.Collect(maps.Keys(keys)))
	ring, err := keyring.New(keys, newest)
	if err != nil {
		return fmt.Errorf("secretkeys: %w", err)
	}
	r.ring, r.fetched = ring, fetched
	return nil
}

func (r *Rotating) refreshIfDueLocked() {
	if r.refreshing != nil || r.ctx.Err() != nil {
		return
	}
	now := r.now()
	if now.Sub(r.lastRefresh) < RefreshEvery {
		return
	}
	r.lastRefresh = now
	done := make(chan struct{})
	r.refreshing = done
	go r.refresh(done)
}

// refresh keeps the latest version when newer than every one held, then closes done; its
// deadline is RefreshEvery, as Cloud Run may starve an idle instance's CPU.
func (r *Rotating) refresh(done chan struct{}) {
	defer func() {
		r.mu.Lock()
		r.refreshing = nil
		r.mu.Unlock()
		close(done)
	}()
	ctx, cancel := context.WithTimeout(r.ctx, RefreshEvery)
	defer cancel()
	resp, err := access(ctx, r.accessor, r.secret+"/versions/latest")
	if err != nil {
		if r.ctx.Err() == nil {
			r.logger.Warn("secretkeys: refreshing the latest key version failed; keeping the versions held",
				slog.String("secret", r.secret), slog.String("code", StatusOf(err)))
		}
		return
	}
	n, err := versionNumber(r.secret, resp.Name)
	if err != nil {
		r.logger.Warn("secretkeys: the latest key version has no usable name; keeping the versions held",
			slog.String("secret", r.secret), slog.String("error", err.Error()))
		return
	}
	version, key := strconv.FormatUint(n, 10), resp.Data
	if len(key) < keyring.MinKeyLen {
		r.logger.Warn("secretkeys: the latest key version is too short; keeping the versions held",
			slog.String("secret", r.secret), slog.String("version", version))
		return
	}
	r.follow(version, n, key)
}

func (r *Rotating) follow(version string, n uint64, key []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, newest := newestVersion(r.ring.Versions()); n <= newest || r.ctx.Err() != nil {
		return
	}
	if err := r.addLocked(version, key); err != nil {
		r.logger.Error("secretkeys: keeping a refreshed key version", slog.String("secret", r.secret), slog.String("error", err.Error()))
		return
	}
	r.logger.Info("secretkeys: followed a rotation; the latest key version is current now",
		slog.String("secret", r.secret), slog.String("version", version))
}

// Wait returns once no refresh is in flight.
func (r *Rotating) Wait() {
	r.mu.Lock()
	done := r.refreshing
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Close stops a refresh in flight and closes Open's client; the versions held still answer.
func (r *Rotating) Close() error {
	r.mu.Lock()
	r.cancel()
	r.mu.Unlock()
	r.Wait()
	if r.close == nil {
		return nil
	}
	return r.close()
}
