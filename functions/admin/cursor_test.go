package admin_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// instance serves the fixture's store through another admin instance
// holding keys, as a second Cloud Run instance (or one after a restart or a
// key rotation) would.
func (f *fixture) instance(keys intake.Keyring) *httptest.Server {
	f.t.Helper()
	h, err := admin.New(admin.Deps{Store: f.db.Owner(), Keys: keys, Clock: fixedClock{now}, Logger: f.logger})
	if err != nil {
		f.t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(admin.Routes(h), []string{testsupport.SiteOrigin}, f.logger)
	if err != nil {
		f.t.Fatal(err)
	}
	srv := httptest.NewServer(served)
	f.t.Cleanup(srv.Close)
	return srv
}

// keepMany keeps n confirmed introductions, one minute apart.
func (f *fixture) keepMany(n int) {
	f.t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 6)
	errs := make(chan error, n)
	for i := range n {
		s := sample(fmt.Sprintf("Person %03d", i), fmt.Sprintf("p%d@example.com", i), now.Add(-time.Duration(i)*time.Minute))
		s.ID = adminseed.IDFor(fmt.Sprint("cursor", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := adminseed.Keep(context.Background(), f.db, s); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		f.t.Fatal(err)
	}
}

func get(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCursorsTheAdminDidNotHandOutAreRefused: the list's cursor is signed;
// any cursor the admin did not make (a well-formed position, one whose
// time Firestore cannot store, one with its position changed, one signed
// by another deployment's key, or naming a key version nobody holds) is
// 400 CURSOR_INVALID on the list API and page, never a page of results or
// a 500. A cursor made by one instance reads on another holding the same
// keys, also after a rotation that keeps its version.
func TestCursorsTheAdminDidNotHandOutAreRefused(t *testing.T) {
	f := newFixture(t)
	f.keepMany(admin.PageSize + 1)
	first := f.do(http.MethodGet, "/admin/api/introductions", "").json(t)
	next, _ := first["next"].(string)
	if next == "" {
		t.Fatalf("the first of two pages hands out no cursor: %v", first)
	}

	enc := base64.RawURLEncoding.EncodeToString
	body, mac, _ := strings.Cut(next, ".")
	shifted := strings.Replace(mustDecode(t, body), `"t":"2026-`, `"t":"2025-`, 1)
	forged := map[string]string{
		"a well-formed position": enc([]byte(`{"t":"2026-11-30T14:00:00Z","i":"` + adminseed.IDFor("cursor3") + `"}`)),
		"a time before year 1":   enc([]byte(`{"t":"0000-06-01T00:00:00Z","i":"abc"}`)),
		"a position changed":     enc([]byte(shifted)) + "." + mac,
		"another deployment's":   cursorFrom(t, f, testKeys(t, "other")),
		"an unknown key version": enc([]byte(strings.Replace(mustDecode(t, body), `"k":"1"`, `"k":"9"`, 1))) + "." + mac,
		"no MAC":                 body,
		"an empty MAC":           body + ".",
	}
	for name, cursor := range forged {
		if cursor == next {
			t.Fatalf("%s: the forged cursor is the real one", name)
		}
		a := f.do(http.MethodGet, "/admin/api/introductions?cursor="+url.QueryEscape(cursor), "")
		if a.status != http.StatusBadRequest || a.code(t) != "CURSOR_INVALID" {
			t.Errorf("%s: the list API answers %d %s, want 400 CURSOR_INVALID", name, a.status, a.body)
		}
		if p := f.do(http.MethodGet, "/admin/?cursor="+url.QueryEscape(cursor), ""); p.status != http.StatusBadRequest {
			t.Errorf("%s: the list page answers %d, want 400", name, p.status)
		}
	}
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("a refused cursor was logged at ERROR: %s", line)
		}
	}

	// The real cursor reads on this instance, on another one with the same
	// keys, and on one that has rotated to a newer version since.
	for name, base := range map[string]string{
		"this instance":        f.server.URL,
		"another instance":     f.instance(testKeys(t, "1")).URL,
		"after a key rotation": f.instance(testKeys(t, "1", "2")).URL,
	} {
		status, page := get(t, base, "/admin/api/introductions?cursor="+url.QueryEscape(next))
		if status != http.StatusOK || !strings.Contains(page, adminseed.IDFor(fmt.Sprint("cursor", admin.PageSize))) {
			t.Errorf("%s: the second page answers %d %s", name, status, page)
		}
	}
}

// cursorFrom returns the first page's cursor as an instance holding keys
// hands it out.
func cursorFrom(t *testing.T, f *fixture, keys intake.Keyring) string {
	t.Helper()
	_, page := get(t, f.instance(keys).URL, "/admin/api/introductions")
	_, rest, _ := strings.Cut(page, `"next":"`)
	cursor, _, _ := strings.Cut(rest, `"`)
	if cursor == "" {
		t.Fatalf("no cursor in %s", page)
	}
	return cursor
}

func mustDecode(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
