// Package mailgun reads Mailgun's delivery events: it verifies a webhook
// body's signature and turns the event into what it says about one
// envelope's delivery. It keeps no state: refusing a replayed token is the
// caller's part. README.md has the format.
package mailgun

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/strictjson"
)

// MaxAge is how far a signature's timestamp may be from now.
const MaxAge = 5 * time.Minute

// Provider names Mailgun in the events Read returns.
const Provider = "mailgun"

// The refusals. Each means the event changes nothing.
var (
	// ErrMalformed: the body is not a signed Mailgun event.
	ErrMalformed = errors.New("mailgun: not a signed Mailgun event")
	// ErrSignature: the signature does not match under the signing key.
	ErrSignature = errors.New("mailgun: bad signature")
	// ErrStale: the signature's timestamp is more than MaxAge from now.
	ErrStale = errors.New("mailgun: stale timestamp")
)

// Event is a verified Mailgun event, content-free: Status is "" when it says nothing about
// delivery, Detail says why (event, severity and codes, never provider text).
type Event struct {
	Token          string // the signature's token, unique per call: the replay key
	ID             string // event-data.id
	Name, Severity string // delivered, failed…; a failure's temporary or permanent
	EnvelopeID     string // the envelope the mail was sent for, "" when none
	Status         intake.DeliveryStatus
	Detail         string
	At, SignedAt   time.Time // when it happened; when Mailgun signed the call
}

// Applies reports whether the event moves an envelope.
func (e Event) Applies() bool { return e.EnvelopeID != "" && e.Status != "" }

// kinds are what each delivery status of an event tells the delivery service.
var kinds = map[intake.DeliveryStatus]intake.ProviderEventKind{intake.DeliveryDelivered: intake.ProviderDelivered,
	intake.DeliveryRetryPending: intake.ProviderFailedTemporary, intake.DeliveryFailed: intake.ProviderFailedPermanent}

// Verifier checks and reads Mailgun events. It is safe for concurrent use.
type Verifier struct {
	key []byte
	now func() time.Time
}

// NewVerifier returns a verifier for the webhook signing key; it names every missing part.
func NewVerifier(signingKey string, now func() time.Time) (*Verifier, error) {
	var errs []error
	if signingKey == "" {
		errs = append(errs, errors.New("mailgun: no MAILGUN_WEBHOOK_SIGNING_KEY"))
	}
	if now == nil {
		errs = append(errs, errors.New("mailgun: no clock"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Verifier{key: []byte(signingKey), now: now}, nil
}

// number accepts a JSON number or a string holding one.
type number string

func (n *number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*n = number(s)
		return nil
	}
	var f json.Number
	err := json.Unmarshal(b, &f)
	*n = number(f)
	return err
}

type body struct {
	Signature *struct {
		Timestamp number `json:"timestamp"`
		Token     string `json:"token"`
		Signature string `json:"signature"`
	} `json:"signature"`
	EventData *struct {
		ID            string              `json:"id"`
		Event         string              `json:"event"`
		Severity      string              `json:"severity"`
		Timestamp     float64             `json:"timestamp"`
		Reason        string              `json:"reason"`
		UserVariables map[string]any      `json:"user-variables"`
		DeliveryStat  *struct{ Code int } `json:"delivery-status"`
	} `json:"event-data"`
}

// Parse verifies one webhook body and reads its event. Errors: ErrMalformed, ErrSignature,
// ErrStale.
func (v *Verifier) Parse(raw []byte) (Event, error) {
	var b body
	if err := strictjson.Decode(raw, &b, strictjson.IgnoreUnknown); err != nil || b.Signature == nil || b.EventData == nil {
		return Event{}, ErrMalformed
	}
	sig := b.Signature
	ts, err := strconv.ParseInt(string(sig.Timestamp), 10, 64)
	if err != nil || sig.Token == "" || sig.Signature == "" || len(sig.Token) > 512 {
		return Event{}, ErrMalformed
	}
	if given, err := hex.DecodeString(sig.Signature); err != nil || !hmac.Equal(given, signature(v.key, string(sig.Timestamp), sig.Token)) {
		return Event{}, ErrSignature
	}
	signedAt := time.Unix(ts, 0).UTC()
	if age := v.now().Sub(signedAt); age > MaxAge || age < -MaxAge {
		return Event{}, ErrStale
	}
	ed := b.EventData
	e := Event{Token: sig.Token, ID: ed.ID, Name: ed.Event, Severity: ed.Severity, SignedAt: signedAt}
	if ed.Timestamp > 0 && ed.Timestamp < 1e11 { // seconds; anything larger is not a time
		sec, frac := math.Modf(ed.Timestamp)
		e.At = time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Microsecond)
	}
	if id, ok := ed.UserVariables["envelope-id"].(string); ok {
		e.EnvelopeID = id
	}
	code := 0
	if ed.DeliveryStat != nil {
		code = ed.DeliveryStat.Code
	}
	e.Status, e.Detail = meaning(ed.Event, ed.Severity, ed.Reason, code)
	return e, nil
}

// Read verifies body and returns its event for the email envelope it names, false when it moves
// none. Errors: EVENT_SIGNATURE_INVALID, EVENT_STALE, UNREADABLE_BODY.
func (v *Verifier) Read(body []byte) (intake.ProviderEvent, bool, error) {
	e, err := v.Parse(body)
	switch {
	case errors.Is(err, ErrSignature):
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventSignatureInvalid, "The event's signature does not verify; nothing changed.")
	case errors.Is(err, ErrStale):
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventStale, "The event was signed more than 5 minutes from now; nothing changed.")
	case err != nil:
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeUnreadableBody, "The body is not a signed Mailgun event.")
	case !e.Applies():
		return intake.ProviderEvent{}, false, nil
	}
	return intake.ProviderEvent{Provider: Provider, Destination: intake.DestinationEmail, Token: e.Token, EnvelopeID: e.EnvelopeID,
		Kind: kinds[e.Status], Reason: e.Detail, At: e.At}, true, nil
}

func signature(key []byte, timestamp, token string) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(timestamp + token))
	return mac.Sum(nil)
}

// Signature is the hex HMAC-SHA256 of timestamp+token under the signing key.
func Signature(signingKey, timestamp, token string) string {
	return hex.EncodeToString(signature([]byte(signingKey), timestamp, token))
}

var word = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,40}$`)

// meaning maps an event to a delivery status and a content-free detail.
func meaning(event, severity, reason string, code int) (intake.DeliveryStatus, string) {
	parts := []string{"mailgun " + safe(event)}
	if severity != "" {
		parts = append(parts, safe(severity))
	}
	if reason != "" {
		parts = append(parts, "reason "+safe(reason))
	}
	if code >= 200 && code <= 599 {
		parts = append(parts, fmt.Sprintf("SMTP %d", code))
	}
	detail := strings.Join(parts, ", ")
	switch {
	case event == "delivered":
		return intake.DeliveryDelivered, detail
	case event == "failed" && severity == "temporary":
		return intake.DeliveryRetryPending, detail
	case event == "failed" && severity == "permanent":
		return intake.DeliveryFailed, detail
	default:
		return "", detail
	}
}

// safe keeps a provider's code word and replaces free text with "other".
func safe(s string) string {
	if word.MatchString(s) {
		return s
	}
	return "other"
}
