package secretkeys

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// restSecretManager serves a fake over Secret Manager's REST API, as the
// service answers: the resource name with the project's number, the payload
// in base64, its checksum as a decimal string, and a refusal as
// {"error": {"code", "message", "status"}}.
func restSecretManager(t *testing.T, fake SecretAccessor) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/v1/")
		name, isAccess := strings.CutSuffix(name, ":access")
		if r.Method != http.MethodGet || !ok || !isAccess {
			http.Error(w, `{"error": {"code": 404, "status": "NOT_FOUND"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		v, err := fake.AccessSecretVersion(r.Context(), name)
		var refusal *APIError
		if errors.As(err, &refusal) {
			w.WriteHeader(refusal.HTTPStatus)
			fmt.Fprintf(w, `{"error": {"code": %d, "message": "refused", "status": %q}}`, refusal.HTTPStatus, refusal.Status)
			return
		} else if err != nil {
			t.Errorf("the fake failed: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		payload := map[string]any{"data": v.Data}
		if v.DataCRC32C != nil {
			payload["dataCrc32c"] = fmt.Sprint(*v.DataCRC32C)
		}
		json.NewEncoder(w).Encode(map[string]any{"name": v.Name, "payload": payload})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// restClient is a Client of fake served over REST.
func restClient(t *testing.T, fake SecretAccessor) *Client {
	t.Helper()
	srv := restSecretManager(t, fake)
	return &Client{endpoint: srv.URL + "/v1/", http: srv.Client()}
}

// TestClientReadsTheRESTAnswers: the client asks GET <endpoint><name>:access
// and reads what the service answers, a refusal by its status (or the
// HTTP status's usual one), and refuses an answer it cannot read.
func TestClientReadsTheRESTAnswers(t *testing.T) {
	tests := []struct {
		name       string
		httpStatus int
		body       string
		want       *Version
		wantStatus string // StatusOf the error; "" for success
	}{
		{name: "a version", httpStatus: 200, body: `{"name": "projects/1/secrets/hmac/versions/3", "payload": {"data": "a2V5", "dataCrc32c": "1234"}}`,
			want: &Version{Name: "projects/1/secrets/hmac/versions/3", Data: []byte("key"), DataCRC32C: ptr(int64(1234))}},
		{name: "a checksum as a number", httpStatus: 200, body: `{"name": "n", "payload": {"data": "a2V5", "dataCrc32c": 1234}}`,
			want: &Version{Name: "n", Data: []byte("key"), DataCRC32C: ptr(int64(1234))}},
		{name: "no checksum", httpStatus: 200, body: `{"name": "n", "payload": {"data": "a2V5"}}`, want: &Version{Name: "n", Data: []byte("key")}},
		{name: "no payload", httpStatus: 200, body: `{"name": "n"}`, wantStatus: "DATA_LOSS"},
		{name: "not JSON", httpStatus: 200, body: `<html>`, wantStatus: "UNAVAILABLE"},
		{name: "a malformed checksum", httpStatus: 200, body: `{"name": "n", "payload": {"data": "a2V5", "dataCrc32c": "x"}}`, wantStatus: "UNAVAILABLE"},
		{name: "missing", httpStatus: 404, body: `{"error": {"code": 404, "message": "no", "status": "NOT_FOUND"}}`, wantStatus: "NOT_FOUND"},
		{name: "disabled", httpStatus: 400, body: `{"error": {"code": 400, "message": "no", "status": "FAILED_PRECONDITION"}}`, wantStatus: "FAILED_PRECONDITION"},
		{name: "denied without a body", httpStatus: 403, body: ``, wantStatus: "PERMISSION_DENIED"},
		{name: "a proxy's error page", httpStatus: 502, body: `<html>`, wantStatus: "UNKNOWN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = append(asked, r.Method+" "+r.URL.Path+" "+r.Header.Get("Accept"))
				w.WriteHeader(tt.httpStatus)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := &Client{endpoint: srv.URL + "/v1/", http: srv.Client()}
			got, err := c.AccessSecretVersion(context.Background(), secretName+"/versions/latest")
			if want := []string{"GET /v1/" + secretName + "/versions/latest:access application/json"}; !slices.Equal(asked, want) {
				t.Errorf("asked %q, want %q", asked, want)
			}
			if tt.wantStatus != "" {
				if err == nil || StatusOf(err) != tt.wantStatus {
					t.Fatalf("AccessSecretVersion = %+v, %v (%s); want an error with status %s", got, err, StatusOf(err), tt.wantStatus)
				}
				return
			}
			if err != nil || got.Name != tt.want.Name || !bytes.Equal(got.Data, tt.want.Data) || (got.DataCRC32C == nil) != (tt.want.DataCRC32C == nil) ||
				(got.DataCRC32C != nil && *got.DataCRC32C != *tt.want.DataCRC32C) {
				t.Fatalf("AccessSecretVersion = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestOpen loads a Rotating keyring over the REST API, follows a rotation
// after start over the same client, and reads a pinned pepper.
func TestOpen(t *testing.T) {
	fake := &fakeAccessor{latest: "4", versions: map[string]version{
		"2": {data: key('2', 32)}, "3": {status: "FAILED_PRECONDITION"}, "4": {data: key('4', 48)},
	}}
	r, err := open(context.Background(), restClient(t, fake), secretName, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Open() error: %v", err)
	}
	if v, k := r.Current(); v != "4" || !bytes.Equal(k, key('4', 48)) {
		t.Errorf("Current() = %q, %q; want \"4\" and its key", v, k)
	}
	if got, want := r.Versions(), []string{"2", "4"}; !slices.Equal(got, want) {
		t.Errorf("Versions() = %q, want %q", got, want)
	}

	if _, err := open(context.Background(), restClient(t, fake), "projects/site/secrets/other", slog.New(slog.DiscardHandler)); StatusOf(err) != "NOT_FOUND" {
		t.Errorf("Open(missing secret) error = %v, want NOT_FOUND", err)
	}

	// A rotation after start: version 5 is added; a signature naming it is
	// verified after the instance fetches it over the same client.
	fake.mu.Lock()
	fake.versions["5"], fake.latest = version{data: key('5', 32)}, "5"
	fake.mu.Unlock()
	if k, ok := r.Key("5"); !ok || !bytes.Equal(k, key('5', 32)) {
		t.Fatalf("Key(5) after the rotation = %q, %v", k, ok)
	}
	if v, _ := r.Current(); v != "5" {
		t.Errorf("Current() after fetching 5 = %q", v)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := LoadPepper(context.Background(), restClient(t, fake), secretName+"/versions/2"); err != nil {
		t.Errorf("LoadPepper: %v", err)
	}
}
