// Package secretkeys loads a keyring.Ring from a Secret Manager secret: the
// latest version is the current key, the few before it verify what was
// signed just before a rotation. It reads Secret Manager's REST API over
// net/http, so the Challenge function links no gRPC. Errors name the secret
// and version, never the key.
package secretkeys

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2/google"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
)

// PreviousVersions is how many versions before the latest Load keeps for verifying.
const PreviousVersions = 2

// SecretAccessor is the one Secret Manager call Load needs: a missing version is an *APIError
// NOT_FOUND, a disabled or destroyed one FAILED_PRECONDITION.
type SecretAccessor interface {
	AccessSecretVersion(ctx context.Context, name string) (*Version, error)
}

// Version is one secret version ".../versions/N", with its payload's CRC32C when sent.
type Version struct {
	Name       string
	Data       []byte
	DataCRC32C *int64
}

var _ SecretAccessor = (*Client)(nil)

// Load loads a keyring.Ring from secret ("projects/P/secrets/S", or with locations/L), each
// version's payload a key named by its number: the latest, at least keyring.MinKeyLen bytes,
// is current, and up to PreviousVersions before it are kept when usable.
func Load(ctx context.Context, accessor SecretAccessor, secret string) (*keyring.Ring, error) {
	var problems []error
	if accessor == nil {
		problems = append(problems, errors.New("secretkeys: Load needs a SecretAccessor"))
	}
	problems = append(problems, checkSecretName(secret))
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	latestName := secret + "/versions/latest"
	resp, err := access(ctx, accessor, latestName)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: accessing %s: %w", latestName, err)
	}
	latest, err := versionNumber(secret, resp.Name)
	if err != nil {
		return nil, err
	}
	current := strconv.FormatUint(latest, 10)
	if len(resp.Data) < keyring.MinKeyLen {
		return nil, fmt.Errorf("secretkeys: %s/versions/%s is %d bytes, need at least %d", secret, current, len(resp.Data), keyring.MinKeyLen)
	}
	keys := map[string][]byte{current: resp.Data}

	for n := latest - 1; n >= 1 && n+PreviousVersions >= latest; n-- {
		name := secret + "/versions/" + strconv.FormatUint(n, 10)
		resp, err := access(ctx, accessor, name)
		switch {
		case err == nil:
		case unavailableVersion(err):
			continue
		default:
			return nil, fmt.Errorf("secretkeys: accessing %s: %w", name, err)
		}
		if k := resp.Data; len(k) >= keyring.MinKeyLen {
			keys[strconv.FormatUint(n, 10)] = k
		}
	}
	return keyring.New(keys, current)
}

var errDataLoss = errors.New("payload lost")

// access fetches one version and checks its checksum (errDataLoss).
func access(ctx context.Context, accessor SecretAccessor, name string) (*Version, error) {
	v, err := accessor.AccessSecretVersion(ctx, name)
	if err != nil {
		return nil, err
	}
	if v.DataCRC32C != nil && int64(crc32.Checksum(v.Data, crc32.MakeTable(crc32.Castagnoli))) != *v.DataCRC32C {
		return nil, fmt.Errorf("%w: checksum mismatch", errDataLoss)
	}
	return v, nil
}

// unavailableVersion reports whether err says the version is missing, disabled or destroyed.
func unavailableVersion(err error) bool {
	s := StatusOf(err)
	return s == "NOT_FOUND" || s == "FAILED_PRECONDITION"
}

// StatusOf names an access error for logs: an *APIError's status, DATA_LOSS,
// DEADLINE_EXCEEDED, CANCELLED, else UNAVAILABLE.
func StatusOf(err error) string {
	var api *APIError
	switch {
	case err == nil:
		return "OK"
	case errors.As(err, &api):
		return api.Status
	case errors.Is(err, errDataLoss):
		return "DATA_LOSS"
	case errors.Is(err, context.DeadlineExceeded):
		return "DEADLINE_EXCEEDED"
	case errors.Is(err, context.Canceled):
		return "CANCELLED"
	}
	return "UNAVAILABLE"
}

// checkSecretName accepts "projects/P/secrets/S" and "projects/P/locations/L/secrets/S".
func checkSecretName(secret string) error {
	parts := strings.Split(secret, "/")
	ok := false
	switch len(parts) {
	case 4:
		ok = parts[0] == "projects" && parts[2] == "secrets"
	case 6:
		ok = parts[0] == "projects" && parts[2] == "locations" && parts[4] == "secrets"
	}
	for _, p := range parts {
		ok = ok && p != ""
	}
	if !ok {
		return fmt.Errorf("secretkeys: secret name %q is not projects/P/secrets/S or projects/P/locations/L/secrets/S", secret)
	}
	return nil
}

// versionNumber reads the number of a version name returned for secret.
func versionNumber(secret, name string) (uint64, error) {
	id := secret[strings.LastIndex(secret, "/")+1:]
	i := strings.LastIndex(name, "/versions/")
	if i < 0 || !strings.HasPrefix(name, "projects/") || !strings.HasSuffix(name[:i], "/secrets/"+id) {
		return 0, fmt.Errorf("secretkeys: %s: version name %q is not .../versions/N", secret, name)
	}
	n, err := strconv.ParseUint(name[i+len("/versions/"):], 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("secretkeys: %s: version name %q does not end in a version number", secret, name)
	}
	return n, nil
}

// Open loads secret as Load does over a client of its own and returns it as a Rotating
// keyring; Close closes the client.
func Open(ctx context.Context, secret string, logger *slog.Logger) (*Rotating, error) {
	client, err := NewClient(ctx)
	if err != nil {
		return nil, err
	}
	return open(ctx, client, secret, logger)
}

func open(ctx context.Context, client *Client, secret string, logger *slog.Logger) (*Rotating, error) {
	ring, err := Load(ctx, client, secret)
	var r *Rotating
	if err == nil {
		r, err = NewRotating(ring, client, secret, logger, nil)
	}
	if err != nil {
		client.Close()
		return nil, err
	}
	r.close = client.Close
	return r, nil
}

// OpenPepper reads the keyed-hash pepper from version, pinned by number
// ("projects/P/secrets/S/versions/N", as config checks), over a client of its own.
func OpenPepper(ctx context.Context, version string) ([]byte, error) {
	client, err := NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return LoadPepper(ctx, client, version)
}

// LoadPepper reads the pepper from version, refusing one shorter than keyring.MinKeyLen.
// Errors name the version, never the pepper.
func LoadPepper(ctx context.Context, accessor SecretAccessor, version string) ([]byte, error) {
	resp, err := access(ctx, accessor, version)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: accessing %s: %w", version, err)
	}
	if len(resp.Data) < keyring.MinKeyLen {
		return nil, fmt.Errorf("secretkeys: %s is %d bytes, need at least %d", version, len(resp.Data), keyring.MinKeyLen)
	}
	return resp.Data, nil
}

const (
	endpoint    = "https://secretmanager.googleapis.com/v1/"
	scope       = "https://www.googleapis.com/auth/cloud-platform"
	maxResponse = 1 << 20 // the most of an answer read
)

// Client reads secret versions through Secret Manager's REST API; safe for concurrent use.
type Client struct {
	endpoint string
	http     *http.Client
}

// NewClient returns a Client authenticating with Application Default Credentials.
func NewClient(ctx context.Context) (*Client, error) {
	hc, err := google.DefaultClient(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: creating a Secret Manager client: %w", err)
	}
	return &Client{endpoint: endpoint, http: hc}, nil
}

// APIError is an access the service refused: the answer's HTTP status and
// canonical status (NOT_FOUND, FAILED_PRECONDITION, …).
type APIError struct {
	HTTPStatus int
	Status     string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("Secret Manager answered %d %s", e.HTTPStatus, e.Status)
}

// statusOfHTTP is an HTTP status's usual canonical status.
var statusOfHTTP = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusUnauthorized: "UNAUTHENTICATED", http.StatusForbidden: "PERMISSION_DENIED",
	http.StatusNotFound: "NOT_FOUND", http.StatusConflict: "ABORTED", http.StatusTooManyRequests: "RESOURCE_EXHAUSTED",
	http.StatusServiceUnavailable: "UNAVAILABLE", http.StatusGatewayTimeout: "DEADLINE_EXCEEDED",
}

// AccessSecretVersion reads version name. A refusal is an *APIError.
func (c *Client) AccessSecretVersion(ctx context.Context, name string) (*Version, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+name+":access", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var refusal struct {
			Error struct {
				Status string `json:"status"`
			} `json:"error"`
		}
		json.Unmarshal(body, &refusal)
		return nil, &APIError{HTTPStatus: resp.StatusCode, Status: cmp.Or(refusal.Error.Status, statusOfHTTP[resp.StatusCode], "UNKNOWN")}
	}
	var answer struct {
		Name    string `json:"name"`
		Payload *struct {
			Data       []byte      `json:"data"`
			DataCrc32c json.Number `json:"dataCrc32c"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if answer.Payload == nil {
		return nil, fmt.Errorf("%w: the answer has no payload", errDataLoss)
	}
	v := &Version{Name: answer.Name, Data: answer.Payload.Data}
	if answer.Payload.DataCrc32c != "" {
		sum, err := strconv.ParseInt(string(answer.Payload.DataCrc32c), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("reading the answer's checksum: %w", err)
		}
		v.DataCRC32C = &sum
	}
	return v, nil
}

// Close releases the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

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
