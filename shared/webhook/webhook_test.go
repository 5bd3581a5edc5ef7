package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// The published Standard Webhooks test vector: the reference libraries of
// the specification's repository (github.com/standard-webhooks/
// standard-webhooks, libraries/go/webhook_test.go, TestWebhookSign; the
// same vector appears in the other languages' tests) sign this message with
// this secret and timestamp to exactly this signature.
func TestSignMatchesThePublishedVector(t *testing.T) {
	key, err := config.WebhookSecretKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	// One byte of the body changed: another signature.
	if Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232315}`)) == got {
		t.Fatal("the signature does not cover the body")
	}
}

// Canary values: none of them may ever reach a log line.
const (
	canaryName    = "Canary Namesake-7f3a"
	canaryEmail   = "canary-7f3a@example.org"
	canaryMessage = "canary message 7f3a: please keep me out of logs"
	canaryConvo   = "canary conversation 7f3a"
)

var created = time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)

func confirmedDelivery(envelopeID string) intake.Delivery {
	return intake.Delivery{
		Envelope: intake.Envelope{ID: envelopeID, SubmissionID: "intro-1", Destination: intake.DestinationWebhook,
			Event: intake.EventConfirmed, PayloadVersion: intake.HandoffPayloadVersion, CreatedAt: created},
		Introduction: intake.Introduction{
			ID: "intro-1", State: intake.State("CONFIRMED"), FormID: "introduction", FormVersion: "2",
			Fields: intake.Fields{Name: canaryName, Company: "Acme", Role: "Recruiter", Email: canaryEmail, Message: canaryMessage},
			Consents: []intake.ConsentEvidence{{Purpose: "contact", Basis: intake.BasisConsent, TextVersion: "contact-v1",
				TextSHA256: "ab", Control: "checkbox", ActivelyChecked: true, GivenAt: created.Add(-time.Minute), ConfirmedAt: created,
				WithdrawalPath: "email the owner"}},
			ConfirmedAt: created,
		},
		Conversation: canaryConvo,
	}
}

type received struct {
	header http.Header
	body   []byte
}

// receiver is a real local HTTP receiver answering with the given handler
// and keeping every request it got.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []received
}

func newReceiver(t *testing.T, answer func(w http.ResponseWriter, n int)) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, received{req.Header.Clone(), body})
		n := len(r.reqs)
		r.mu.Unlock()
		answer(w, n)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.reqs...)
}

func newSender(t *testing.T, url string, allowPrivate bool, timeout time.Duration, logs io.Writer, now func() time.Time) *Sender {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	if now == nil {
		now = time.Now
	}
	s, err := New(config.Webhook{URL: url, Secret: testSecret, AllowPrivate: allowPrivate},
		Options{Logger: slog.New(slog.NewJSONHandler(logs, nil)), Now: now, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func status(code int, header ...string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
	}
}

func TestEveryOutcomeAgainstARealReceiver(t *testing.T) {
	clock := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	elsewhere := newReceiver(t, status(200))
	cases := []struct {
		name       string
		answer     func(http.ResponseWriter, int)
		want       intake.DeliveryStatus
		detail     string
		retryAfter time.Duration
	}{
		{"200 is delivered", status(200), intake.DeliveryDelivered, "HTTP 200", 0},
		{"204 is delivered", status(204), intake.DeliveryDelivered, "HTTP 204", 0},
		{"202 is delivered", status(202), intake.DeliveryDelivered, "HTTP 202", 0},
		{"410 fails with its reason", status(410), intake.DeliveryFailed, "HTTP 410", 0},
		{"400 fails", status(400), intake.DeliveryFailed, "HTTP 400", 0},
		{"401 fails", status(401), intake.DeliveryFailed, "HTTP 401", 0},
		{"404 fails", status(404), intake.DeliveryFailed, "HTTP 404", 0},
		{"429 with seconds is retried after them", status(429, "Retry-After", "120"), intake.DeliveryRetryPending, "HTTP 429", 2 * time.Minute},
		{"503 with a date is retried then", status(503, "Retry-After", clock.Add(90*time.Second).Format(http.TimeFormat)), intake.DeliveryRetryPending, "HTTP 503", 90 * time.Second},
		{"500 without Retry-After", status(500), intake.DeliveryRetryPending, "HTTP 500", 0},
		{"502 with a past date waits nothing", status(502, "Retry-After", clock.Add(-time.Hour).Format(http.TimeFormat)), intake.DeliveryRetryPending, "HTTP 502", 0},
		{"a week's Retry-After is capped at a day", status(503, "Retry-After", "604800"), intake.DeliveryRetryPending, "HTTP 503", 24 * time.Hour},
		{"unreadable Retry-After is ignored", status(429, "Retry-After", "soon"), intake.DeliveryRetryPending, "HTTP 429", 0},
		{"408 is retried", status(408), intake.DeliveryRetryPending, "HTTP 408", 0},
		{"301 is not followed", status(301, "Location", elsewhere.URL), intake.DeliveryFailed, "HTTP 301", 0},
		{"307 is not followed", status(307, "Location", elsewhere.URL), intake.DeliveryFailed, "HTTP 307", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newReceiver(t, tc.answer)
			s := newSender(t, r.URL, true, 0, nil, func() time.Time { return clock })
			res := s.Send(context.Background(), confirmedDelivery("env-outcome"))
			if res.Status != tc.want || !strings.HasPrefix(res.Detail, tc.detail) || res.RetryAfter != tc.retryAfter {
				t.Fatalf("got %+v, want %s %q retry after %s", res, tc.want, tc.detail, tc.retryAfter)
			}
			if n := len(r.requests()); n != 1 {
				t.Fatalf("the receiver got %d requests, want 1", n)
			}
		})
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Fatalf("a redirect was followed: the other address got %d requests", n)
	}
}

func TestTimeoutIsRetryPending(t *testing.T) {
	release := make(chan struct{})
	r := newReceiver(t, func(w http.ResponseWriter, _ int) {
		<-release
		w.WriteHeader(200)
	})
	defer close(release)
	s := newSender(t, r.URL, true, 300*time.Millisecond, nil, nil)
	res := s.Send(context.Background(), confirmedDelivery("env-timeout"))
	if res.Status != intake.DeliveryRetryPending || res.Detail != "timeout" {
		t.Fatalf("got %+v, want RETRY_PENDING timeout", res)
	}
}

func TestReceiverDownIsRetryPending(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := newSender(t, "http://"+addr+"/hook", true, 0, nil, nil)
	res := s.Send(context.Background(), confirmedDelivery("env-down"))
	if res.Status != intake.DeliveryRetryPending || res.Detail != "connection refused" {
		t.Fatalf("got %+v, want RETRY_PENDING connection refused", res)
	}
}

// A receiver down for three attempts, then up: every attempt carries the
// same webhook-id and body, each freshly signed, and the fourth is DELIVERED.
func TestRetriesCarryTheSameIDAndBody(t *testing.T) {
	r := newReceiver(t, func(w http.ResponseWriter, n int) {
		if n <= 3 {
			w.WriteHeader(503)
			return
		}
		w.WriteHeader(200)
	})
	clock := time.Unix(1764550000, 0)
	s := newSender(t, r.URL, true, 0, nil, func() time.Time { clock = clock.Add(time.Minute); return clock })
	var last intake.DeliveryResult
	for range 4 {
		last = s.Send(context.Background(), confirmedDelivery("env-retry"))
	}
	if last.Status != intake.DeliveryDelivered {
		t.Fatalf("the fourth attempt: %+v", last)
	}
	reqs := r.requests()
	key, _ := config.WebhookSecretKey(testSecret)
	for i, req := range reqs {
		if req.header.Get(HeaderID) != "env-retry" || !bytes.Equal(req.body, reqs[0].body) {
			t.Fatalf("attempt %d: id %q, body changed: %v", i+1, req.header.Get(HeaderID), !bytes.Equal(req.body, reqs[0].body))
		}
		ts := req.header.Get(HeaderTimestamp)
		var sec int64
		if err := json.Unmarshal([]byte(ts), &sec); err != nil {
			t.Fatalf("webhook-timestamp %q: %v", ts, err)
		}
		if want := Sign(key, "env-retry", time.Unix(sec, 0), req.body); req.header.Get(HeaderSignature) != want {
			t.Fatalf("attempt %d: signature %q, want %q", i+1, req.header.Get(HeaderSignature), want)
		}
		if req.header.Get("Content-Type") != "application/json" {
			t.Fatalf("Content-Type %q", req.header.Get("Content-Type"))
		}
	}
	if reqs[0].header.Get(HeaderTimestamp) == reqs[3].header.Get(HeaderTimestamp) {
		t.Fatal("every attempt must be stamped with its own time")
	}
}

// With private destinations off, loopback is refused when dialling, also
// when it hides behind a name: the receiver never sees a request.
func TestInsideAddressesAreRefusedAtDialTime(t *testing.T) {
	r := newReceiver(t, status(200))
	_, port, _ := net.SplitHostPort(r.Listener.Addr().String())
	for _, url := range []string{
		r.URL,
		"http://localhost:" + port + "/hook",
		"http://0.0.0.0:" + port + "/hook",
	} {
		t.Run(url, func(t *testing.T) {
			s := newSender(t, url, false, 0, nil, nil)
			res := s.Send(context.Background(), confirmedDelivery("env-private"))
			if res.Status != intake.DeliveryFailed || !strings.Contains(res.Detail, "WEBHOOK_ALLOW_PRIVATE") {
				t.Fatalf("got %+v, want FAILED naming WEBHOOK_ALLOW_PRIVATE", res)
			}
		})
	}
	if n := len(r.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
	// The same receiver, allowed: delivered.
	if res := newSender(t, r.URL, true, 0, nil, nil).Send(context.Background(), confirmedDelivery("env-private")); res.Status != intake.DeliveryDelivered {
		t.Fatalf("allowed: %+v", res)
	}
}

// TestInside is the classifier's table: each address with the range it
// must be refused for ("" for a public internet address). No test sends
// anything to these addresses: the classifier is a pure function, and the
// guard below is called as the dialer calls it, before any packet.
func TestInside(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("34.120.1.2"), netip.MustParseAddr("2600:1900:4000::5")}
	for _, c := range []struct{ addr, want string }{
		// Public internet.
		{"8.8.8.8", ""},
		{"93.184.216.34", ""},
		{"1.1.1.1", ""},
		{"2001:4860:4860::8888", ""},
		{"2a00:1450:4001::200e", ""},
		{"192.0.1.255", ""}, // just below 192.0.0.0/24 and TEST-NET-1
		{"192.0.3.0", ""},   // just above TEST-NET-1
		{"100.128.0.0", ""}, // just above carrier-grade NAT
		{"198.20.0.0", ""},  // just above benchmarking
		{"223.255.255.255", ""},
		{"2001:200::1", ""},    // just above 2001::/23
		{"::ffff:8.8.8.8", ""}, // IPv4-mapped public
		{"64:ff9b::8.8.8.8", ""},
		{"2002:808:808::1", ""},
		// Loopback, in several spellings.
		{"127.0.0.1", "loopback"},
		{"127.5.5.5", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback (IPv4-mapped)"},
		{"::127.0.0.1", "IPv4-compatible (deprecated)"},
		{"::8.8.8.8", "IPv4-compatible (deprecated)"},
		{"64:ff9b::7f00:1", "loopback (NAT64)"},
		{"2002:7f00:1::", "loopback (6to4)"},
		// Unspecified and "this network".
		{"0.0.0.0", `"this network"`},
		{"0.1.2.3", `"this network"`},
		{"::", "unspecified"},
		// Private, shared and link-local.
		{"10.1.2.3", "private-use"},
		{"172.16.0.1", "private-use"},
		{"172.31.255.255", "private-use"},
		{"192.168.1.1", "private-use"},
		{"::ffff:10.0.0.1", "private-use (IPv4-mapped)"},
		{"64:ff9b::a00:1", "private-use (NAT64)"},
		{"2002:a00:1::", "private-use (6to4)"},
		{"2002:c0a8:101::1", "private-use (6to4)"},
		{"100.64.0.1", "shared address space (carrier-grade NAT)"},
		{"100.127.255.254", "shared address space (carrier-grade NAT)"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fd00::1", "unique-local"},
		{"fc00::1", "unique-local"},
		{"fec0::1", "site-local (deprecated)"},
		// Documentation, benchmarking, protocol assignments.
		{"192.0.2.1", "documentation (TEST-NET-1)"},
		{"198.51.100.7", "documentation (TEST-NET-2)"},
		{"203.0.113.9", "documentation (TEST-NET-3)"},
		{"::ffff:192.0.2.1", "documentation (TEST-NET-1) (IPv4-mapped)"},
		{"2001:db8::1", "documentation"},
		{"3fff::1", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.1", "benchmarking"},
		{"2001:2::1", "benchmarking"},
		{"192.0.0.8", "IETF protocol assignments"},
		{"2001:10::1", "IETF protocol assignments"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"},
		{"192.88.99.1", "6to4 relay anycast (deprecated)"},
		{"64:ff9b:1::a", "local-use IPv4/IPv6 translation"},
		{"100::1", "discard-only"},
		{"100:0:0:1::1", "dummy prefix"},
		{"5f00::1", "segment routing (SRv6) SIDs"},
		// Multicast, broadcast and reserved.
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"ff0e::1", "multicast"},
		{"255.255.255.255", "limited broadcast"},
		{"240.0.0.1", "reserved"},
		{"250.1.2.3", "reserved"},
		{"4000::1", "reserved"},
		{"e000::1", "reserved"},
		// The host's own interface addresses, however spelt.
		{"34.120.1.2", "this host's own address"},
		{"::ffff:34.120.1.2", "this host's own address (IPv4-mapped)"},
		{"64:ff9b::2278:102", "this host's own address (NAT64)"},
		{"2002:2278:102::", "this host's own address (6to4)"},
		{"2600:1900:4000::5", "this host's own address"},
		{"34.120.1.3", ""},
	} {
		t.Run(c.addr, func(t *testing.T) {
			if got := Inside(netip.MustParseAddr(c.addr), own); got != c.want {
				t.Errorf("Inside(%s) = %q, want %q", c.addr, got, c.want)
			}
		})
	}
	if got := Inside(netip.Addr{}, nil); got == "" {
		t.Error("the zero Addr passed as public")
	}
}

// TestTheGuardAsksForTheHostsOwnAddresses: the dialer's check refuses the
// addresses its lister names as the host's own, and refuses everything
// when it cannot list them; the real lister finds loopback at least.
// Called as the dialer calls it, before connecting: nothing is sent.
func TestTheGuardAsksForTheHostsOwnAddresses(t *testing.T) {
	g := guard{own: func() ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("34.120.1.2")}, nil }}
	for address, refused := range map[string]bool{"34.120.1.2:443": true, "[::ffff:34.120.1.2]:443": true, "8.8.8.8:443": false,
		"[2001:4860:4860::8888]:443": false, "203.0.113.9:443": true, "not an address": true} {
		if err := g.control("tcp", address, nil); (err != nil) != refused || (err != nil && !errors.Is(err, errInsideAddress)) {
			t.Errorf("control(%s) = %v, want refused %v", address, err, refused)
		}
	}
	blind := guard{own: func() ([]netip.Addr, error) { return nil, errors.New("no netlink") }}
	if err := blind.control("tcp", "8.8.8.8:443", nil); !errors.Is(err, errInsideAddress) {
		t.Errorf("without the host's addresses, control(8.8.8.8) = %v, want refused", err)
	}
	own, err := hostAddresses()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(own, netip.MustParseAddr("127.0.0.1")) {
		t.Fatalf("the host's own addresses %v lack 127.0.0.1", own)
	}
}

// A receiver that answers with an endless body costs the sender a few
// kilobytes, not the stream: the sender stops reading and hangs up.
func TestResponseBodyIsReadOnlyUpToALimit(t *testing.T) {
	var written atomic.Int64
	r := newReceiver(t, func(w http.ResponseWriter, _ int) {
		w.WriteHeader(200)
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for range 2048 { // 64 MiB
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	s := newSender(t, r.URL, true, 5*time.Second, nil, nil)
	if res := s.Send(context.Background(), confirmedDelivery("env-big")); res.Status != intake.DeliveryDelivered {
		t.Fatalf("got %+v", res)
	}
	r.CloseClientConnections()
	time.Sleep(100 * time.Millisecond)
	if n := written.Load(); n >= 32<<20 {
		t.Fatalf("the receiver wrote %d bytes before the sender hung up: the body was read past the limit", n)
	}
}

func TestPayload(t *testing.T) {
	body, err := Payload(confirmedDelivery("env-1"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type      string          `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != intake.EventConfirmed || !got.Timestamp.Equal(created) {
		t.Fatalf("type %q timestamp %s", got.Type, got.Timestamp)
	}
	var data map[string]json.RawMessage
	json.Unmarshal(got.Data, &data)
	for _, k := range []string{"id", "formId", "formVersion", "introduction", "conversation", "consents", "confirmedAt", "likelySpam"} {
		if _, ok := data[k]; !ok {
			t.Errorf("data has no %q: %s", k, got.Data)
		}
	}
	if len(data) != 8 {
		t.Errorf("data has %d keys, want 8: %s", len(data), got.Data)
	}
	if string(data["likelySpam"]) != "false" {
		t.Errorf("likelySpam %s, want false", data["likelySpam"])
	}
	spam := confirmedDelivery("env-1")
	spam.Introduction.LikelySpam = true
	if body, err := Payload(spam); err != nil || !strings.Contains(string(body), `"likelySpam":true}}`) {
		t.Errorf("a likely-spam introduction's payload %s (%v) does not say so", body, err)
	}
	for _, want := range []string{canaryName, canaryEmail, canaryMessage, canaryConvo, `"purpose":"contact"`, `"formVersion":"2"`} {
		if !strings.Contains(string(got.Data), want) {
			t.Errorf("data lacks %s: %s", want, got.Data)
		}
	}

	// Withdrawn: the id and the time, and nothing of the content even when
	// the delivery happens to carry it.
	d := confirmedDelivery("env-2")
	d.Envelope.Event = intake.EventWithdrawn
	d.Envelope.CreatedAt = created.Add(time.Hour)
	body, err = Payload(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"introduction.withdrawn","timestamp":"2026-11-30T10:15:00Z","data":{"id":"intro-1","withdrawnAt":"2026-11-30T10:15:00Z"}}`
	if string(body) != want {
		t.Fatalf("withdrawn body\n got %s\nwant %s", body, want)
	}

	for name, broken := range map[string]func(*intake.Delivery){
		"no envelope id":      func(d *intake.Delivery) { d.Envelope.ID = "" },
		"another submission":  func(d *intake.Delivery) { d.Introduction.ID = "intro-2" },
		"not confirmed":       func(d *intake.Delivery) { d.Introduction.ConfirmedAt = time.Time{} },
		"unknown event":       func(d *intake.Delivery) { d.Envelope.Event = "introduction.liked" },
		"no creation time":    func(d *intake.Delivery) { d.Envelope.CreatedAt = time.Time{} },
		"no introduction":     func(d *intake.Delivery) { d.Introduction = intake.Introduction{} },
		"no submission bound": func(d *intake.Delivery) { d.Envelope.SubmissionID = "" },
	} {
		d := confirmedDelivery("env-3")
		broken(&d)
		if _, err := Payload(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAnUnsendableDeliveryFailsWithoutARequest(t *testing.T) {
	r := newReceiver(t, status(200))
	d := confirmedDelivery("env-bad")
	d.Introduction = intake.Introduction{}
	res := newSender(t, r.URL, true, 0, nil, nil).Send(context.Background(), d)
	if res.Status != intake.DeliveryFailed || len(r.requests()) != 0 {
		t.Fatalf("got %+v after %d requests", res, len(r.requests()))
	}
}

func TestLogsCarryNoContent(t *testing.T) {
	var logs bytes.Buffer
	r := newReceiver(t, status(410))
	s := newSender(t, r.URL, true, 0, &logs, nil)
	s.Send(context.Background(), confirmedDelivery("env-logs"))
	out := logs.String()
	if !strings.Contains(out, "env-logs") || !strings.Contains(out, "HTTP 410") {
		t.Fatalf("the attempt is not logged by envelope id and outcome: %s", out)
	}
	for _, canary := range []string{canaryName, canaryEmail, canaryMessage, canaryConvo, "7f3a"} {
		if strings.Contains(out, canary) {
			t.Fatalf("a log line carries %q: %s", canary, out)
		}
	}
}

func TestNewNamesEveryMissingPart(t *testing.T) {
	_, err := New(config.Webhook{Secret: "sk_live_123"}, Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"WEBHOOK_URL", "WEBHOOK_SECRET", "logger", "clock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s: %v", want, err)
		}
	}
}

// The signed request verifies with the standardwebhooks npm package, an
// implementation independent of ours (scripts/js/verify-webhook.mjs).
func TestAnIndependentVerifierAcceptsTheSignature(t *testing.T) {
	script, err := filepath.Abs("../../scripts/js/verify-webhook.mjs")
	if err != nil {
		t.Fatal(err)
	}
	_, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "standardwebhooks")); err != nil || nodeErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node or scripts/js/node_modules/standardwebhooks is missing under CI: make test installs them (scripts/test-deps.sh node)")
		}
		t.Skip("node or scripts/js/node_modules/standardwebhooks is missing: scripts/test-deps.sh node installs them")
	}
	r := newReceiver(t, status(204))
	s := newSender(t, r.URL, true, 0, nil, nil)
	if res := s.Send(context.Background(), confirmedDelivery("env-node")); res.Status != intake.DeliveryDelivered {
		t.Fatalf("send: %+v", res)
	}
	req := r.requests()[0]
	verify := func(body string, signature string) (string, error) {
		in, _ := json.Marshal(map[string]any{"secret": testSecret, "body": body, "headers": map[string]string{
			HeaderID: req.header.Get(HeaderID), HeaderTimestamp: req.header.Get(HeaderTimestamp), HeaderSignature: signature}})
		cmd := exec.Command("node", script)
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", errors.New(strings.TrimSpace(stderr.String()))
		}
		return string(out), nil
	}
	out, err := verify(string(req.body), req.header.Get(HeaderSignature))
	if err != nil {
		t.Fatalf("standardwebhooks refused our signature: %v", err)
	}
	if !strings.Contains(out, `"type":"introduction.confirmed"`) {
		t.Fatalf("verified payload: %s", out)
	}
	// The verifier is not a rubber stamp: a changed body is refused.
	if _, err := verify(strings.Replace(string(req.body), "Acme", "Acne", 1), req.header.Get(HeaderSignature)); err == nil {
		t.Fatal("standardwebhooks accepted a tampered body")
	}
}
