// Package webhook hands introductions to the owner's receiver as Standard
// Webhooks, one signed POST per envelope (webhook-id: its id): 2xx is
// DELIVERED, a timeout, 408, 429 or 5xx RETRY_PENDING, else FAILED; a
// receiver on no public address is refused unless allowed. README.md says why.
package webhook

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
)

// The Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// DefaultTimeout bounds one attempt when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

const (
	responseLimit = 4 << 10        // how much of a receiver's answer is read, then dropped
	maxRetryAfter = 24 * time.Hour // the longest wait a receiver may ask for
)

// Options are a Sender's dependencies: Now stamps webhook-timestamp; a zero Timeout is DefaultTimeout.
type Options struct {
	Logger  *slog.Logger
	Now     func() time.Time
	Timeout time.Duration
}

// Sender delivers envelopes to the configured webhook; safe for concurrent use.
type Sender struct {
	url    string
	key    []byte
	client *http.Client
	now    func() time.Time
	logger *slog.Logger
}

var _ intake.Sender = (*Sender)(nil)

// New builds the webhook sender, reporting every missing or unusable part at once.
func New(cfg config.Webhook, opts Options) (*Sender, error) {
	var errs []error
	if cfg.URL == "" {
		errs = append(errs, errors.New("webhook: no WEBHOOK_URL configured"))
	}
	key, err := config.WebhookSecretKey(cfg.Secret)
	if err != nil {
		errs = append(errs, fmt.Errorf("webhook: WEBHOOK_SECRET: %w", err))
	}
	if opts.Logger == nil {
		errs = append(errs, errors.New("webhook: no logger"))
	}
	if opts.Now == nil {
		errs = append(errs, errors.New("webhook: no clock"))
	}
	if opts.Timeout < 0 {
		errs = append(errs, errors.New("webhook: negative timeout"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	timeout := cmp.Or(opts.Timeout, DefaultTimeout)
	dialer := &net.Dialer{Timeout: timeout}
	if !cfg.AllowPrivate {
		dialer.Control = guard{own: hostAddresses}.control
	}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, past the address check
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConns:           4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	client := &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Sender{url: cfg.URL, key: key, client: client, now: opts.Now, logger: opts.Logger}, nil
}

// Destination is intake.DestinationWebhook.
func (s *Sender) Destination() intake.Destination { return intake.DestinationWebhook }

// Payload is the package's Payload: the exact body Send POSTs for d.
func (s *Sender) Payload(d intake.Delivery) ([]byte, error) { return Payload(d) }

// Send POSTs the envelope's event, signed, and reports the receiver's verdict. Every attempt
// carries the same webhook-id and body (d.Payload, or Payload(d) when nil).
func (s *Sender) Send(ctx context.Context, d intake.Delivery) intake.DeliveryResult {
	res := s.send(ctx, d)
	s.logger.LogAttrs(ctx, slog.LevelInfo, "webhook attempt",
		slog.String("envelopeId", d.Envelope.ID), slog.String("event", d.Envelope.Event),
		slog.String("status", string(res.Status)), slog.String("detail", res.Detail))
	return res
}

func (s *Sender) send(ctx context.Context, d intake.Delivery) intake.DeliveryResult {
	body := d.Payload
	if body == nil {
		var err error
		if body, err = Payload(d); err != nil {
			return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: err.Error()}
		}
	}
	now := s.now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(string(body)))
	if err != nil {
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: "WEBHOOK_URL is not a usable address"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "introductions-webhook/1")
	req.Header.Set(HeaderID, d.Envelope.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(s.key, d.Envelope.ID, now, body))
	resp, err := s.client.Do(req)
	if err != nil {
		return transportFailure(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, responseLimit))
	resp.Body.Close()
	return verdict(resp, now)
}

// verdict maps a receiver's answer to a delivery status.
func verdict(resp *http.Response, now time.Time) intake.DeliveryResult {
	code := resp.StatusCode
	detail := "HTTP " + strconv.Itoa(code)
	switch {
	case code >= 200 && code <= 299:
		return intake.DeliveryResult{Status: intake.DeliveryDelivered, Detail: detail}
	case code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500:
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: detail, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), now)}
	case code >= 300 && code <= 399:
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: detail + ": a redirect, not followed (point WEBHOOK_URL at the final address)"}
	default:
		return intake.DeliveryResult{Status: intake.DeliveryFailed, Detail: detail}
	}
}

// retryAfter reads Retry-After (seconds or a date), zero when unreadable, at most a day.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(max(n, 0), int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

var errInsideAddress = errors.New("inside address refused")

// transportFailure names a failed attempt without its error text, which can carry the URL.
func transportFailure(err error) intake.DeliveryResult {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, errInsideAddress):
		return intake.DeliveryResult{Status: intake.DeliveryFailed,
			Detail: "the receiver's address is no public internet address (loopback, private, link-local, special-purpose or this host's own): refused (WEBHOOK_ALLOW_PRIVATE is off)"}
	case errors.Is(err, context.Canceled):
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "attempt canceled"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "timeout"}
	case errors.As(err, &dnsErr):
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "the receiver's name did not resolve"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "connection refused"}
	default:
		return intake.DeliveryResult{Status: intake.DeliveryRetryPending, Detail: "connection failed"}
	}
}

// guard refuses, after name resolution, every address Inside names a range for; own lists the
// host's interface addresses, asked at each dial.
type guard struct{ own func() ([]netip.Addr, error) }

// control is a net.Dialer's Control: it refuses errInsideAddress.
func (g guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errInsideAddress
	}
	// Unable to tell the host's own addresses apart: refuse.
	if own, err := g.own(); err != nil || Inside(ap.Addr(), own) != "" {
		return errInsideAddress
	}
	return nil
}

// hostAddresses lists the addresses of this host's interfaces.
func hostAddresses() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	own := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			own = append(own, p.Addr().Unmap().WithZone(""))
		}
	}
	return own, nil
}

// special is one special-purpose address range that is no public internet.
type special struct {
	prefix netip.Prefix
	name   string
}

// specialRanges are the ranges Inside refuses outright, most specific first.
var specialRanges = func() []special {
	var out []special
	for _, r := range [][2]string{
		// IPv4
		{"0.0.0.0/8", `"this network"`},
		{"10.0.0.0/8", "private-use"},
		{"100.64.0.0/10", "shared address space (carrier-grade NAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private-use"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation (TEST-NET-1)"},
		{"192.88.99.0/24", "6to4 relay anycast (deprecated)"},
		{"192.168.0.0/16", "private-use"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation (TEST-NET-2)"},
		{"203.0.113.0/24", "documentation (TEST-NET-3)"},
		{"224.0.0.0/4", "multicast"},
		{"255.255.255.255/32", "limited broadcast"},
		{"240.0.0.0/4", "reserved"},
		// IPv6
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible (deprecated)"},
		{"64:ff9b:1::/48", "local-use IPv4/IPv6 translation"},
		{"100::/64", "discard-only"},
		{"100:0:0:1::/64", "dummy prefix"},
		{"2001::/32", "Teredo"},
		{"2001:2::/48", "benchmarking"},
		{"2001:db8::/32", "documentation"},
		{"2001::/23", "IETF protocol assignments"},
		{"3fff::/20", "documentation"},
		{"5f00::/16", "segment routing (SRv6) SIDs"},
		{"fc00::/7", "unique-local"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local (deprecated)"},
		{"ff00::/8", "multicast"},
	} {
		out = append(out, special{netip.MustParsePrefix(r[0]), r[1]})
	}
	return out
}()

// The IPv6 forms that embed an IPv4 address.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	// globalUnicast is IPv6's only space allocated for public unicast.
	globalUnicast = netip.MustParsePrefix("2000::/3")
)

// Inside names why ip is no public internet address (a special-purpose range, IPv6 outside
// 2000::/3, one of own, or an embedded IPv4 address that is any of these), or returns "".
func Inside(ip netip.Addr, own []netip.Addr) string {
	if !ip.IsValid() {
		return "invalid"
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		if why := Inside(ip.Unmap(), own); why != "" {
			return why + " (IPv4-mapped)"
		}
		return ""
	}
	for _, o := range own {
		if o.WithZone("") == ip {
			return "this host's own address"
		}
	}
	if b, at, form := ip.As16(), 12, " (NAT64)"; nat64.Contains(ip) || sixToFour.Contains(ip) {
		if sixToFour.Contains(ip) {
			at, form = 2, " (6to4)"
		}
		if why := Inside(netip.AddrFrom4([4]byte(b[at:at+4])), own); why != "" {
			return why + form
		}
		return ""
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) {
			return r.name
		}
	}
	if ip.Is6() && !globalUnicast.Contains(ip) {
		return "reserved"
	}
	return ""
}

// Sign is the Standard Webhooks v1 signature: "v1," and the base64 HMAC-SHA256 under key of
// "id.timestamp.body".
func Sign(key []byte, id string, timestamp time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

type event struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

type confirmed struct {
	ID           string                   `json:"id"`
	FormID       string                   `json:"formId"`
	FormVersion  string                   `json:"formVersion"`
	Introduction intake.Fields            `json:"introduction"`
	Added        map[string]string        `json:"added,omitempty"`
	Conversation string                   `json:"conversation"`
	Consents     []intake.ConsentEvidence `json:"consents"`
	Attachment   *attachmentRef           `json:"attachment,omitempty"` // never the file's bytes
	ConfirmedAt  time.Time                `json:"confirmedAt"`
	LikelySpam   bool                     `json:"likelySpam"` // the verdict at intake, never the owner's mark
}

type attachmentRef struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	AdminURL string `json:"adminUrl,omitempty"`
}

type withdrawn struct {
	ID          string    `json:"id"`
	WithdrawnAt time.Time `json:"withdrawnAt"`
}

// Payload is the JSON body of the envelope's event ({"type", "timestamp", "data"}; README.md
// shows both events), the same bytes on every attempt. Its error is content-free.
func Payload(d intake.Delivery) ([]byte, error) {
	env := d.Envelope
	if env.ID == "" || env.SubmissionID == "" || env.CreatedAt.IsZero() {
		return nil, errors.New("the envelope has no id, submission id or creation time")
	}
	at := env.CreatedAt.UTC()
	var e event
	switch env.Event {
	case intake.EventConfirmed:
		in := d.Introduction
		if in.ID != env.SubmissionID || in.ConfirmedAt.IsZero() {
			return nil, errors.New("the delivery carries no confirmed introduction for its envelope")
		}
		consents := in.Consents
		if consents == nil {
			consents = []intake.ConsentEvidence{}
		}
		var ref *attachmentRef
		if a := in.Attachment; a != nil {
			ref = &attachmentRef{Name: a.Name, Type: a.Type, Size: a.Size, SHA256: a.SHA256}
			if d.AdminURL != "" {
				ref.AdminURL = d.AdminURL + "/attachment"
			}
		}
		e = event{Type: intake.EventConfirmed, Timestamp: at, Data: confirmed{
			ID: in.ID, FormID: in.FormID, FormVersion: in.FormVersion, Introduction: in.Fields, Added: in.Added,
			Conversation: d.Conversation, Consents: consents, Attachment: ref, ConfirmedAt: in.ConfirmedAt.UTC(),
			LikelySpam: in.LikelySpam,
		}}
	case intake.EventWithdrawn:
		e = event{Type: intake.EventWithdrawn, Timestamp: at, Data: withdrawn{ID: env.SubmissionID, WithdrawnAt: at}}
	default:
		return nil, fmt.Errorf("unknown event %q", env.Event)
	}
	return json.Marshal(e)
}
