// Package secretkeys loads a keyring.Ring from a Secret Manager secret: the
// latest version is the current key, the few versions before it are kept for
// verifying what was signed just before a rotation.
//
// It is the one package that brings the Secret Manager client and gRPC into
// the key handling; the key ring itself (shared/keyring) stays free of cloud
// imports. Errors name the secret and version, never the key.
package secretkeys

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"strconv"
	"strings"

	secretmanager "cloud.google.com/go/secretmanager/apiv1"
	"cloud.google.com/go/secretmanager/apiv1/secretmanagerpb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ownersite/introductions/shared/keyring"
)

// PreviousVersions is how many versions before the latest one Load
// looks at, so that challenges signed just before a rotation still verify.
const PreviousVersions = 2

// SecretAccessor is the one Secret Manager call Load needs; the real
// *secretmanager.Client satisfies it. Implementations report a missing
// version with gRPC code NotFound and a disabled or destroyed one with
// FailedPrecondition.
type SecretAccessor interface {
	AccessSecretVersion(ctx context.Context, req *secretmanagerpb.AccessSecretVersionRequest, opts ...gax.CallOption) (*secretmanagerpb.AccessSecretVersionResponse, error)
}

var _ SecretAccessor = (*secretmanager.Client)(nil)

// Load loads a keyring.Ring from the Secret Manager secret named
// secret ("projects/P/secrets/S" or "projects/P/locations/L/secrets/S").
// Each version's payload bytes are a master key, and the version number is
// the key's version name.
//
// The latest version is current and must be at least keyring.MinKeyLen bytes, or
// the load fails. Up to PreviousVersions versions just before it are kept
// too, for verifying; one that is missing, disabled, destroyed or shorter
// than keyring.MinKeyLen is left out. Any other failure (permissions, outage, a
// payload whose checksum does not match) fails the load. Errors name the
// secret and version, never the key.
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
	latest, err := versionNumber(secret, resp.GetName())
	if err != nil {
		return nil, err
	}
	current := strconv.FormatUint(latest, 10)
	key := resp.GetPayload().GetData()
	if len(key) < keyring.MinKeyLen {
		return nil, fmt.Errorf("secretkeys: %s/versions/%s is %d bytes, need at least %d", secret, current, len(key), keyring.MinKeyLen)
	}
	keys := map[string][]byte{current: key}

	for n := latest - 1; n >= 1 && n+PreviousVersions >= latest; n-- {
		name := secret + "/versions/" + strconv.FormatUint(n, 10)
		resp, err := access(ctx, accessor, name)
		switch status.Code(err) {
		case codes.OK:
		case codes.NotFound, codes.FailedPrecondition:
			continue
		default:
			return nil, fmt.Errorf("secretkeys: accessing %s: %w", name, err)
		}
		if k := resp.GetPayload().GetData(); len(k) >= keyring.MinKeyLen {
			keys[strconv.FormatUint(n, 10)] = k
		}
	}
	return keyring.New(keys, current)
}

// access fetches one version and checks its payload checksum when the
// service sent one. A checksum mismatch is reported with gRPC code DataLoss.
func access(ctx context.Context, accessor SecretAccessor, name string) (*secretmanagerpb.AccessSecretVersionResponse, error) {
	resp, err := accessor.AccessSecretVersion(ctx, &secretmanagerpb.AccessSecretVersionRequest{Name: name})
	if err != nil {
		return nil, err
	}
	p := resp.GetPayload()
	if p == nil {
		return nil, status.Error(codes.DataLoss, "response has no payload")
	}
	if p.DataCrc32C != nil {
		sum := crc32.Checksum(p.GetData(), crc32.MakeTable(crc32.Castagnoli))
		if int64(sum) != p.GetDataCrc32C() {
			return nil, status.Error(codes.DataLoss, "payload checksum mismatch")
		}
	}
	return resp, nil
}

// checkSecretName accepts "projects/P/secrets/S" and
// "projects/P/locations/L/secrets/S" with non-empty segments.
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

// versionNumber reads the version number from a version resource name
// returned for secret (whose project may come back as a number instead of
// an id).
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

// Open builds a Secret Manager client with opts (Application Default
// Credentials when none), loads the Ring of secret as Load does, and returns
// it as a Rotating keyring that keeps the client to fetch versions added
// after start; Close closes the client.
func Open(ctx context.Context, secret string, logger *slog.Logger, opts ...option.ClientOption) (*Rotating, error) {
	client, err := secretmanager.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: creating a Secret Manager client: %w", err)
	}
	ring, err := Load(ctx, client, secret)
	if err != nil {
		client.Close()
		return nil, err
	}
	r, err := NewRotating(ring, client, secret, logger, nil)
	if err != nil {
		client.Close()
		return nil, err
	}
	r.close = client.Close
	return r, nil
}

// OpenPepper builds a Secret Manager client with opts, reads the pinned
// secret version named version ("projects/P/secrets/S/versions/N") as
// LoadPepper does, and closes the client again.
func OpenPepper(ctx context.Context, version string, opts ...option.ClientOption) ([]byte, error) {
	client, err := secretmanager.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: creating a Secret Manager client: %w", err)
	}
	defer client.Close()
	return LoadPepper(ctx, client, version)
}

// LoadPepper reads the keyed-hash pepper from the pinned secret version
// named version ("projects/P/secrets/S/versions/N", a number: never
// "latest", so that a new version never silently changes every keyed hash).
// It refuses a payload shorter than keyring.MinKeyLen bytes. Errors name the
// version, never the pepper.
func LoadPepper(ctx context.Context, accessor SecretAccessor, version string) ([]byte, error) {
	if accessor == nil {
		return nil, errors.New("secretkeys: LoadPepper needs a SecretAccessor")
	}
	if err := checkPinnedVersion(version); err != nil {
		return nil, err
	}
	resp, err := access(ctx, accessor, version)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: accessing %s: %w", version, err)
	}
	pepper := resp.GetPayload().GetData()
	if len(pepper) < keyring.MinKeyLen {
		return nil, fmt.Errorf("secretkeys: %s is %d bytes, need at least %d", version, len(pepper), keyring.MinKeyLen)
	}
	return pepper, nil
}

// checkPinnedVersion accepts a secret version name that pins a version by
// number: "projects/P/secrets/S/versions/N" (or with locations/L).
func checkPinnedVersion(version string) error {
	i := strings.LastIndex(version, "/versions/")
	if i < 0 || checkSecretName(version[:i]) != nil {
		return fmt.Errorf("secretkeys: %q is not projects/P/secrets/S/versions/N", version)
	}
	if n, err := strconv.ParseUint(version[i+len("/versions/"):], 10, 64); err != nil || n == 0 {
		return fmt.Errorf("secretkeys: %q must pin a version number (not latest)", version)
	}
	return nil
}
