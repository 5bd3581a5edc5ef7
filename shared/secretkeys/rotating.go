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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
)

// Bounds on what a Rotating keyring fetches after start.
const (
	// FetchAhead is how far past the newest version it holds a Rotating
	// keyring looks: a version number further ahead is refused unfetched.
	FetchAhead = 5
	// MaxFetched is how many versions fetched after start it keeps (the
	// oldest goes first).
	MaxFetched = 4
	// FetchEvery is the least time between two fetches, whatever versions
	// requests name: a flood of made-up versions costs Secret Manager at
	// most one access per FetchEvery per instance.
	FetchEvery = 2 * time.Second
	// FetchTimeout bounds one fetch.
	FetchTimeout = 3 * time.Second
)

// Rotating is an intake.Keyring that follows rotations of its Secret Manager
// secret while the instance runs. It starts from the Ring Load made; a
// version it does not hold yet, newer than the newest it holds by at most
// FetchAhead, is fetched from Secret Manager the first time a signature
// names it (at most one fetch per FetchEvery, each bounded by
// FetchTimeout), kept (at most MaxFetched such versions) and becomes
// current, so the instance then signs with it too. A version that is
// missing, disabled, destroyed or short stays unknown. It is safe for
// concurrent use.
type Rotating struct {
	accessor SecretAccessor
	secret   string
	logger   *slog.Logger
	now      func() time.Time
	close    func() error

	mu        sync.Mutex
	ring      *keyring.Ring
	fetched   []string // versions fetched after start, oldest first
	lastFetch time.Time
}

var _ intake.Keyring = (*Rotating)(nil)

// NewRotating returns a Rotating keyring over ring, loaded from secret
// through accessor. now tells the time (nil: time.Now). It refuses a nil
// ring, accessor or logger and a malformed secret name.
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
	return &Rotating{accessor: accessor, secret: secret, logger: logger, now: now, ring: ring}, nil
}

// Current returns the newest version held and its key.
func (r *Rotating) Current() (string, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ring.Current()
}

// Versions lists every version held, fetched ones included.
func (r *Rotating) Versions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ring.Versions()
}

// Key returns the key of version, fetching it from Secret Manager first
// when it is a newer version not held yet (see Rotating); false when it
// cannot be had.
func (r *Rotating) Key(version string) ([]byte, bool) {
	if k, ok, fetch := r.lookup(version); !fetch {
		return k, ok
	}
	ctx, cancel := context.WithTimeout(context.Background(), FetchTimeout)
	defer cancel()
	resp, err := access(ctx, r.accessor, r.secret+"/versions/"+version)
	if err != nil {
		level := slog.LevelWarn
		if c := status.Code(err); c == codes.NotFound || c == codes.FailedPrecondition {
			level = slog.LevelInfo
		}
		r.logger.Log(ctx, level, "secretkeys: a signature names a key version that cannot be fetched",
			slog.String("secret", r.secret), slog.String("version", version), slog.String("code", status.Code(err).String()))
		return nil, false
	}
	key := resp.GetPayload().GetData()
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

// lookup returns the key of version when held; otherwise fetch says whether
// the caller may fetch it now (a newer version within FetchAhead, and no
// other fetch within FetchEvery, which this call then takes).
func (r *Rotating) lookup(version string) (key []byte, ok, fetch bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
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

// newestVersion returns the highest numbered of versions and its number
// ("" and 0 when none is a number).
func newestVersion(versions []string) (string, uint64) {
	newest, best := "", uint64(0)
	for _, v := range versions {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n >= best {
			newest, best = v, n
		}
	}
	return newest, best
}

// addLocked replaces the ring by one that also holds version (current: the
// newest), dropping the oldest fetched version past MaxFetched.
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

// Close closes the Secret Manager client Open made (nothing otherwise).
func (r *Rotating) Close() error {
	if r.close == nil {
		return nil
	}
	return r.close()
}
