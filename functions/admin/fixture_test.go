package admin_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/testsupport"
)

// now is the fixed time of every admin test.
var now = time.Date(2026, 11, 30, 15, 4, 5, 0, time.UTC)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// recordingRetrier records which envelopes it was asked to retry.
type recordingRetrier struct {
	mu  sync.Mutex
	ids []string
}

func (r *recordingRetrier) RetryNow(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	return nil
}

type fixedScheduler struct {
	status intake.SchedulerStatus
	err    error
}

func (s fixedScheduler) Status(context.Context) (intake.SchedulerStatus, error) {
	return s.status, s.err
}

// fixture is the admin over the real store on the emulator, served by an
// httptest server.
type fixture struct {
	t       *testing.T
	client  *firestore.Client
	db      *firestorestore.DB
	handler *admin.Handlers
	server  *httptest.Server
	logs    *syncBuffer
	retrier *recordingRetrier
	logger  *slog.Logger
}

type option func(*admin.Deps)

// testKeys is a key ring of fixed keys, one per version given (the last
// one current), as every instance of a deployment holds the same.
func testKeys(t testing.TB, versions ...string) *keyring.Ring {
	t.Helper()
	keys := map[string][]byte{}
	for _, v := range versions {
		keys[v] = bytes.Repeat([]byte("k"+v), keyring.MinKeyLen)
	}
	ring, err := keyring.New(keys, versions[len(versions)-1])
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

func newFixture(t *testing.T, opts ...option) *fixture {
	t.Helper()
	client, _ := emulatortest.Client(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := firestorestore.New(client, firestorestore.Config{Database: emulatortest.Database, OpTimeout: 20 * time.Second}, logger)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, client: client, db: db, logs: logs, retrier: &recordingRetrier{}, logger: logger}
	deps := admin.Deps{Store: db.Owner(), Retrier: f.retrier, Keys: testKeys(t, "1"), Clock: fixedClock{now}, Logger: logger,
		Solves: admin.SolveTarget{MaxNumber: adminseed.PowMaxNumber, TargetP90: time.Second}}
	for _, o := range opts {
		o(&deps)
	}
	f.handler, err = admin.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(admin.Routes(f.handler), []string{testsupport.SiteOrigin}, logger)
	if err != nil {
		t.Fatal(err)
	}
	f.server = httptest.NewServer(served)
	t.Cleanup(f.server.Close)
	return f
}

// keep writes a sample through the real store.
func (f *fixture) keep(s adminseed.Sample) string {
	f.t.Helper()
	id, err := adminseed.Keep(context.Background(), f.db, s)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func sample(name, email string, confirmedAt time.Time) adminseed.Sample {
	return adminseed.Sample{
		Fields:      intake.Fields{Name: name, Company: name + " Ltd", Role: "Recruiter", Email: email, Message: "Hello from " + name + "."},
		ConfirmedAt: confirmedAt,
	}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %v\n%s", a.status, err, a.body)
	}
	return m
}

func (a answer) code(t *testing.T) string {
	t.Helper()
	c, _ := a.json(t)["code"].(string)
	return c
}

// do sends a request; headers are name, value pairs.
func (f *fixture) do(method, path string, body string, headers ...string) answer {
	f.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.server.URL+path, r)
	if err != nil {
		f.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// form posts an HTML form as the admin's own page would (same origin).
func (f *fixture) form(path string, values string) answer {
	f.t.Helper()
	return f.do(http.MethodPost, path, values, "Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "same-origin")
}

// identity returns an Authorization header value as Cloud Run hands it
// on: an identity token whose signature it removed.
func identity(email string) string {
	enc := base64.RawURLEncoding
	payload, _ := json.Marshal(map[string]any{"email": email, "email_verified": true, "aud": "admin"})
	return "Bearer " + enc.EncodeToString([]byte(`{"alg":"RS256"}`)) + "." + enc.EncodeToString(payload) + ".SIGNATURE_REMOVED_BY_GOOGLE"
}

// ledger reads a ledger entry as stored.
func (f *fixture) ledger(id string) (intake.LedgerEntry, map[string]any) {
	f.t.Helper()
	snap, err := f.client.Collection(firestorestore.Ledger).Doc(id).Get(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	var e intake.LedgerEntry
	if err := snap.DataTo(&e); err != nil {
		f.t.Fatal(err)
	}
	return e, snap.Data()
}

func (f *fixture) exists(collection, id string) bool {
	f.t.Helper()
	snap, err := f.client.Collection(collection).Doc(id).Get(context.Background())
	if err != nil && snap == nil {
		return false
	}
	return snap.Exists()
}
