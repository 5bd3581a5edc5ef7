package secretkeys

import (
	"bytes"
	"context"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"testing"
)

func key(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

const secretName = "projects/site/secrets/hmac"

// version is one stored secret version of the fake: its payload, or the
// canonical status accessing it fails with.
type version struct {
	data    []byte
	status  string
	badCRC  bool
	noCRC   bool
	respond string // the name the response carries, when not the usual one
}

// fakeAccessor is a fake of SecretAccessor: "latest" resolves to the
// highest version; the project comes back as a number, as the service does.
type fakeAccessor struct {
	mu       sync.Mutex
	secret   string // the one secret it holds; secretName when empty
	versions map[string]version
	latest   string
	asked    []string
	// gate, when set, is called with each access's context before it is
	// answered (outside the lock): a test holds an access in flight there.
	gate func(ctx context.Context)
}

func (f *fakeAccessor) AccessSecretVersion(ctx context.Context, name string) (*Version, error) {
	f.mu.Lock()
	f.asked = append(f.asked, name)
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		gate(ctx)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	secret := f.secret
	if secret == "" {
		secret = secretName
	}
	prefix := secret + "/versions/"
	if !strings.HasPrefix(name, prefix) {
		return nil, &APIError{HTTPStatus: 404, Status: "NOT_FOUND"}
	}
	v := strings.TrimPrefix(name, prefix)
	if v == "latest" {
		v = f.latest
	}
	ver, ok := f.versions[v]
	if !ok {
		return nil, &APIError{HTTPStatus: 404, Status: "NOT_FOUND"}
	}
	if ver.status != "" {
		return nil, &APIError{HTTPStatus: 400, Status: ver.status}
	}
	parts := strings.Split(secret, "/")
	parts[1] = "123456"
	respName := strings.Join(parts, "/") + "/versions/" + v
	if ver.respond != "" {
		respName = ver.respond
	}
	answer := &Version{Name: respName, Data: ver.data}
	if !ver.noCRC {
		sum := int64(crc32.Checksum(ver.data, crc32.MakeTable(crc32.Castagnoli)))
		if ver.badCRC {
			sum++
		}
		answer.DataCRC32C = &sum
	}
	return answer, nil
}

func TestLoad(t *testing.T) {
	k := func(c byte) []byte { return key(c, 32) }
	tests := []struct {
		name      string
		secret    string
		versions  map[string]version
		latest    string
		wantErr   string // a substring of the error; "" for success
		current   string
		kept      []string
		wantAsked []string // versions asked for, "latest" included
	}{
		{
			name: "latest and two previous", latest: "3",
			versions: map[string]version{"1": {data: k('1')}, "2": {data: k('2')}, "3": {data: k('3')}},
			current:  "3", kept: []string{"1", "2", "3"},
			wantAsked: []string{"latest", "2", "1"},
		},
		{
			name: "never more than two previous", latest: "9",
			versions: map[string]version{"6": {data: k('6')}, "7": {data: k('7')}, "8": {data: k('8')}, "9": {data: k('9')}},
			current:  "9", kept: []string{"7", "8", "9"},
			wantAsked: []string{"latest", "8", "7"},
		},
		{
			name: "first version only", latest: "1",
			versions: map[string]version{"1": {data: k('1')}},
			current:  "1", kept: []string{"1"}, wantAsked: []string{"latest"},
		},
		{
			name: "destroyed, disabled and missing previous versions are skipped", latest: "5",
			versions: map[string]version{"3": {status: "FAILED_PRECONDITION"}, "4": {status: "FAILED_PRECONDITION"}, "5": {data: k('5')}},
			current:  "5", kept: []string{"5"}, wantAsked: []string{"latest", "4", "3"},
		},
		{
			name: "not found previous version is skipped", latest: "3",
			versions: map[string]version{"1": {data: k('1')}, "3": {data: k('3')}},
			current:  "3", kept: []string{"1", "3"}, wantAsked: []string{"latest", "2", "1"},
		},
		{
			name: "short previous version is left out", latest: "2",
			versions: map[string]version{"1": {data: key('1', 8)}, "2": {data: k('2')}},
			current:  "2", kept: []string{"2"}, wantAsked: []string{"latest", "1"},
		},
		{
			name: "payload without checksum", latest: "2",
			versions: map[string]version{"1": {data: k('1'), noCRC: true}, "2": {data: k('2'), noCRC: true}},
			current:  "2", kept: []string{"1", "2"}, wantAsked: []string{"latest", "1"},
		},
		{
			name: "regional secret name", secret: "projects/site/locations/europe-west1/secrets/hmac", latest: "1",
			versions: map[string]version{"1": {data: k('1')}},
			current:  "1", kept: []string{"1"}, wantAsked: []string{"latest"},
		},
		{
			name: "short latest version is refused", latest: "2",
			versions: map[string]version{"1": {data: k('1')}, "2": {data: key('2', 31)}},
			wantErr:  "need at least 32", wantAsked: []string{"latest"},
		},
		{
			name: "empty latest version is refused", latest: "1",
			versions: map[string]version{"1": {data: nil}},
			wantErr:  "need at least 32", wantAsked: []string{"latest"},
		},
		{
			name: "disabled latest version", latest: "2",
			versions: map[string]version{"1": {data: k('1')}, "2": {status: "FAILED_PRECONDITION"}},
			wantErr:  "versions/latest", wantAsked: []string{"latest"},
		},
		{
			name: "no versions at all", latest: "1", versions: map[string]version{},
			wantErr: "versions/latest", wantAsked: []string{"latest"},
		},
		{
			name: "permission denied on a previous version", latest: "2",
			versions: map[string]version{"1": {status: "PERMISSION_DENIED"}, "2": {data: k('2')}},
			wantErr:  "versions/1", wantAsked: []string{"latest", "1"},
		},
		{
			name: "outage on a previous version", latest: "3",
			versions: map[string]version{"1": {data: k('1')}, "2": {status: "UNAVAILABLE"}, "3": {data: k('3')}},
			wantErr:  "versions/2", wantAsked: []string{"latest", "2"},
		},
		{
			name: "corrupt latest payload", latest: "1",
			versions: map[string]version{"1": {data: k('1'), badCRC: true}},
			wantErr:  "checksum", wantAsked: []string{"latest"},
		},
		{
			name: "corrupt previous payload", latest: "2",
			versions: map[string]version{"1": {data: k('1'), badCRC: true}, "2": {data: k('2')}},
			wantErr:  "checksum", wantAsked: []string{"latest", "1"},
		},
		{
			name: "response names no version", latest: "1",
			versions: map[string]version{"1": {data: k('1'), respond: "projects/1/secrets/hmac"}},
			wantErr:  "not .../versions/N", wantAsked: []string{"latest"},
		},
		{
			name: "response names another secret", latest: "1",
			versions: map[string]version{"1": {data: k('1'), respond: "projects/1/secrets/other/versions/1"}},
			wantErr:  "not .../versions/N", wantAsked: []string{"latest"},
		},
		{
			name: "response version is not a number", latest: "1",
			versions: map[string]version{"1": {data: k('1'), respond: "projects/1/secrets/hmac/versions/latest"}},
			wantErr:  "version number", wantAsked: []string{"latest"},
		},
		{name: "secret name with a version", secret: secretName + "/versions/3", wantErr: "secret name"},
		{name: "secret name without project", secret: "secrets/hmac", wantErr: "secret name"},
		{name: "empty secret segment", secret: "projects/site/secrets/", wantErr: "secret name"},
		{name: "empty secret name", secret: "", wantErr: "secret name"},
	}
	for _, tt := range tests {
		for _, viaREST := range []bool{false, true} {
			name := tt.name
			if viaREST {
				name += " (REST)"
			}
			t.Run(name, func(t *testing.T) {
				secret := tt.secret
				if secret == "" && !strings.Contains(tt.name, "empty secret name") {
					secret = secretName
				}
				f := &fakeAccessor{secret: secret, versions: tt.versions, latest: tt.latest}
				// Each case is run through the REST client too (client_test.go).
				var accessor SecretAccessor = f
				if viaREST {
					accessor = restClient(t, f)
				}
				r, err := Load(context.Background(), accessor, secret)

				var asked []string
				for _, a := range f.asked {
					asked = append(asked, strings.TrimPrefix(a, secret+"/versions/"))
				}
				if !slices.Equal(asked, tt.wantAsked) {
					t.Errorf("asked for %q, want %q", asked, tt.wantAsked)
				}
				if tt.wantErr != "" {
					if err == nil {
						t.Fatalf("Load() = %v, want an error", r)
					}
					if !strings.Contains(err.Error(), tt.wantErr) {
						t.Errorf("error %q does not say %q", err, tt.wantErr)
					}
					for _, v := range tt.versions {
						if len(v.data) > 0 && strings.Contains(err.Error(), string(v.data)) {
							t.Errorf("error %q contains key material", err)
						}
					}
					return
				}
				if err != nil {
					t.Fatalf("Load() error: %v", err)
				}
				if v, key := r.Current(); v != tt.current || !bytes.Equal(key, tt.versions[tt.current].data) {
					t.Errorf("Current() = %q, %q; want %q, %q", v, key, tt.current, tt.versions[tt.current].data)
				}
				if got := r.Versions(); !slices.Equal(got, tt.kept) {
					t.Errorf("Versions() = %q, want %q", got, tt.kept)
				}
				for _, v := range tt.kept {
					if got, _ := r.Key(v); !bytes.Equal(got, tt.versions[v].data) {
						t.Errorf("Key(%q) = %q, want %q", v, got, tt.versions[v].data)
					}
				}
			})
		}
	}
}

func TestLoadNilAccessor(t *testing.T) {
	if _, err := Load(context.Background(), nil, secretName); err == nil {
		t.Fatal("Load(nil accessor) succeeded")
	}
}
