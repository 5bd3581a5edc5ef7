// Package storagetest is fake-gcs-server's part of the test support: a
// bucket of the test's own on the Cloud Storage emulator, and a look at it
// through the emulator's own JSON API (not through our adapter). Without
// STORAGE_EMULATOR_HOST a test is skipped, except under CI (CI set), where
// it fails.
package storagetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/storage"

	"github.com/ownersite/introductions/shared/attachmentbucket"
	"github.com/ownersite/introductions/shared/testsupport"
)

// Host returns STORAGE_EMULATOR_HOST, or skips (fails under CI).
func Host(t testing.TB) string {
	t.Helper()
	host := os.Getenv("STORAGE_EMULATOR_HOST")
	if host == "" {
		testsupport.SkipOrFail(t, "STORAGE_EMULATOR_HOST is unset: start fake-gcs-server with scripts/storage-emulator.sh start (make test does)")
	}
	return strings.TrimPrefix(strings.TrimPrefix(host, "http://"), "https://")
}

var (
	unsafeChars = regexp.MustCompile(`[^a-z0-9-]+`)
	made        atomic.Int64
)

// BucketName creates an empty bucket unique to t and returns its name.
func BucketName(t testing.TB) string {
	t.Helper()
	Host(t)
	name := unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	name = strings.Trim(fmt.Sprintf("t%d-%d-%s", os.Getpid(), made.Add(1), name[:min(len(name), 30)]), "-")
	client, err := storage.NewClient(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Bucket(name).Create(context.Background(), "introductions-local", nil); err != nil {
		t.Fatalf("creating bucket %s on fake-gcs-server: %v", name, err)
	}
	return name
}

// Bucket returns our adapter on a fresh bucket unique to t, closed when the test ends, and its name.
func Bucket(t testing.TB) (*attachmentbucket.Bucket, string) {
	t.Helper()
	name := BucketName(t)
	b, err := attachmentbucket.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, name
}

// Object is one object as the emulator's JSON API lists it.
type Object struct {
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        string `json:"size"`
}

// Objects lists bucket's objects through the emulator's own JSON API.
func Objects(t testing.TB, bucket string) []Object {
	t.Helper()
	resp, err := http.Get("http://" + Host(t) + "/storage/v1/b/" + url.PathEscape(bucket) + "/o")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listing %s: %s", bucket, resp.Status)
	}
	var list struct {
		Items []Object `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}
