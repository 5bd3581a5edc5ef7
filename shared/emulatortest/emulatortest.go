// Package emulatortest is the Firestore emulator's part of the test support
// (the rest is package testsupport): a client on the named database the
// service uses, in a project of the test's own, wiped before and after the
// test, and an RPC counter that measures round trips. Without an emulator a
// test is skipped, except under CI (CI set), where it fails: CI must never
// pass by skipping.
package emulatortest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/shared/testsupport"
)

// Database is the named database tests use, as the service does.
const Database = "introductions"

// Host returns FIRESTORE_EMULATOR_HOST, or skips (fails under CI).
func Host(t testing.TB) string {
	t.Helper()
	host := os.Getenv("FIRESTORE_EMULATOR_HOST")
	if host == "" {
		testsupport.SkipOrFail(t, "FIRESTORE_EMULATOR_HOST is unset: start the emulator with scripts/emulator.sh start (make test does)")
	}
	return host
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9-]+`)

// Project returns a project id unique to the test.
func Project(t testing.TB) string {
	name := unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	return strings.Trim(fmt.Sprintf("test-%d-%s", os.Getpid(), name[:min(len(name), 40)]), "-")
}

// Reset deletes every document of project's database in the emulator.
func Reset(t testing.TB, host, project string) {
	t.Helper()
	url := fmt.Sprintf("http://%s/emulator/v1/projects/%s/databases/%s/documents", host, project, Database)
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("resetting the emulator: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resetting the emulator: %s", resp.Status)
	}
}

// Client returns a client on a wiped database of a project unique to t.
func Client(t testing.TB) (*firestore.Client, string) {
	t.Helper()
	host, project := Host(t), Project(t)
	Reset(t, host, project)
	c, err := firestore.NewClientWithDatabase(context.Background(), project, Database)
	if err != nil {
		t.Fatalf("firestore client: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		Reset(t, host, project)
	})
	return c, project
}
