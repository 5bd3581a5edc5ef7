package wiring_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/iterator"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/altchapow"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/keyring"
	"github.com/ownersite/introductions/shared/storagetest"
	"github.com/ownersite/introductions/shared/testsupport"
)

const siteOrigin = "https://site.example"

// harness is the wired service on an httptest server, against the emulator.
type harness struct {
	t       *testing.T
	svc     *dbparts.Service
	srv     *httptest.Server
	clock   *testsupport.Clock
	logs    *testsupport.Logs
	db      *firestore.Client
	project string
	cfg     config.Config
	// bucket is the attachments' bucket (cfg.AttachmentBucket).
	bucket string
	// rpcs counts this instance's own Firestore calls (not the test's).
	rpcs *emulatortest.RPCCounter
	// keys and pepper are shared by every instance of the harness, as
	// deployed instances share their secrets.
	keys   intake.Keyring
	pepper []byte
}

// newHarness builds the real service (real store on the emulator, real
// keyring, proof of work and registry) with env on top of test defaults.
func newHarness(t *testing.T, env map[string]string) *harness {
	t.Helper()
	return newHarnessWith(t, env, dbparts.Overrides{})
}

// newHarnessWith is newHarness with parts of the wiring replaced (its clock
// is always the harness's).
func newHarnessWith(t *testing.T, env map[string]string, o dbparts.Overrides) *harness {
	t.Helper()
	db, project := emulatortest.Client(t)
	vars := map[string]string{
		"FIRESTORE_PROJECT":  project,
		"FIRESTORE_DATABASE": emulatortest.Database,
		"POW_MAX_NUMBER":     "3000",
		"ALLOWED_ORIGINS":    siteOrigin,
		"FIRESTORE_TIMEOUT":  "20s",
		"LOG_LEVEL":          "debug",
		"CLIENT_ADDRESS":     "cloud-run", // requests come as through Cloud Run's front end (see fromAddress)
		// Tests move the clock by hours; a quiet-spell sweep would then run
		// beside the requests they count (TestAQuietSpellStartsASweep sets
		// its own).
		"SWEEP_AFTER_IDLE": "24h",
		// The attachments go to a bucket of the test's own on fake-gcs-server.
		"ATTACHMENT_BUCKET": storagetest.BucketName(t),
	}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	keys, err := keyring.Local(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pepper := make([]byte, 32)
	rand.Read(pepper)
	h := &harness{t: t, clock: testsupport.NewClock(time.Now().UTC().Truncate(time.Second)), logs: &testsupport.Logs{}, db: db, project: project, cfg: cfg, bucket: cfg.AttachmentBucket,
		keys: keys, pepper: pepper}
	return h.instance(o)
}

// sibling returns a second instance of the service: the same database,
// configuration, secrets and clock, and nothing in memory shared.
func (h *harness) sibling() *harness {
	h.t.Helper()
	return h.instance(dbparts.Overrides{})
}

// instance builds one more instance of the service, on the harness's
// database, clock and logs, with parts of the wiring replaced.
func (h *harness) instance(o dbparts.Overrides) *harness {
	t := h.t
	t.Helper()
	i := *h
	o.Clock = h.clock
	if o.Keys == nil {
		o.Keys, o.Pepper = h.keys, h.pepper
	}
	i.rpcs = &emulatortest.RPCCounter{}
	if o.StoreOptions == nil {
		o.StoreOptions = i.rpcs.ClientOptions(emulatortest.Host(t))
	}
	var err error
	i.svc, err = introductions.Build(context.Background(), h.cfg, cloudlog.New(h.logs, slog.LevelDebug), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { i.svc.Close() })
	i.srv = httptest.NewServer(i.svc.Mux(http.NotFoundHandler()))
	t.Cleanup(i.srv.Close)
	return &i
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("status %d, body %q is not JSON: %v", r.status, r.body, err)
	}
	return m
}

func (r response) code(t *testing.T) string {
	t.Helper()
	c, _ := r.json(t)["code"].(string)
	return c
}

// do sends a request; headers are name/value pairs.
func (h *harness) do(method, path, contentType string, body []byte, headers ...string) response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Origin", siteOrigin)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (h *harness) postJSON(path string, v any, headers ...string) response {
	h.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(http.MethodPost, path, "application/json", b, headers...)
}

// solved fetches a challenge and solves it with a plain Go solver.
func (h *harness) solved() string {
	h.t.Helper()
	r := h.do(http.MethodGet, "/api/introductions/challenge", "", nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("challenge: %d %s", r.status, r.body)
	}
	var c altchapow.Challenge
	if err := json.Unmarshal(r.body, &c); err != nil {
		h.t.Fatal(err)
	}
	payload, _ := testsupport.Solve(h.t, c)
	return payload
}

// draftBody is a valid draft for form version 1 with a fresh solution.
func (h *harness) draftBody(overrides map[string]any) map[string]any {
	h.t.Helper()
	b := map[string]any{
		"formId": "introduction", "formVersion": "1",
		"name": "Ada Lovelace", "company": "Analytical Engines", "role": "CTO",
		"email": "ada@example.com", "message": "Hello, I would like to talk about a role.",
		"consents": []any{}, "website": "",
	}
	if _, ok := overrides["altcha"]; !ok {
		b["altcha"] = h.solved()
	}
	return withOverrides(b, overrides)
}

// withOverrides sets each member of overrides on b, deleting those that
// are nil, and returns b.
func withOverrides(b, overrides map[string]any) map[string]any {
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// fromAddress sets the client address the service sees (Cloud Run's front
// end appends it as the rightmost X-Forwarded-For entry).
func fromAddress(addr string) []string {
	return []string{"X-Forwarded-For", "203.0.113.250, " + addr}
}

// count returns how many live documents a collection holds.
func (h *harness) count(collection string) int {
	h.t.Helper()
	it := h.db.Collection(collection).Documents(context.Background())
	defer it.Stop()
	n := 0
	for {
		_, err := it.Next()
		if err == iterator.Done {
			return n
		}
		if err != nil {
			h.t.Fatal(err)
		}
		n++
	}
}

// docs returns every document of a collection as JSON text.
func (h *harness) docs(collection string) []string {
	h.t.Helper()
	it := h.db.Collection(collection).Documents(context.Background())
	defer it.Stop()
	var out []string
	for {
		d, err := it.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			h.t.Fatal(err)
		}
		b, _ := json.Marshal(d.Data())
		out = append(out, d.Ref.ID+" "+string(b))
	}
}

func addr(i int) string { return fmt.Sprintf("198.51.100.%d", i%250+1) }

func contains(haystack []string, needle string) bool {
	for _, s := range haystack {
		if strings.Contains(s, needle) {
			return true
		}
	}
	return false
}

// function returns the function of the service named name.
func function(t testing.TB, name string) wiring.Function {
	t.Helper()
	for _, fn := range introductions.Functions {
		if fn.Name == name {
			return fn
		}
	}
	t.Fatalf("no function %q", name)
	return wiring.Function{}
}
