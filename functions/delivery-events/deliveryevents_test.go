package deliveryevents_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/delivery-events"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
	"github.com/ownersite/introductions/shared/testsupport"
)

// fakeProvider reads bodies of the form "<verdict>:<envelope id>".
type fakeProvider struct{}

func (fakeProvider) Read(body []byte) (intake.ProviderEvent, bool, error) {
	verdict, id, _ := strings.Cut(string(body), ":")
	switch verdict {
	case "bad-signature":
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventSignatureInvalid, "bad signature")
	case "stale":
		return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeEventStale, "stale")
	case "opened":
		return intake.ProviderEvent{}, false, nil
	case "delivered":
		return intake.ProviderEvent{Provider: "mailgun", Destination: intake.DestinationEmail, Token: "tok-" + id, EnvelopeID: id, Kind: intake.ProviderDelivered}, true, nil
	}
	return intake.ProviderEvent{}, false, intake.Errorf(intake.CodeUnreadableBody, "not an event")
}

// fakeDeliveries knows envelope "env1"; it answers err when set.
type fakeDeliveries struct {
	err     error
	applied []intake.ProviderEvent
}

func (f *fakeDeliveries) ApplyEvent(_ context.Context, ev intake.ProviderEvent) (intake.Envelope, error) {
	if f.err != nil {
		return intake.Envelope{}, f.err
	}
	if ev.EnvelopeID != "env1" {
		return intake.Envelope{}, intake.ErrNotFound
	}
	f.applied = append(f.applied, ev)
	return intake.Envelope{ID: "env1", Status: intake.DeliveryDelivered}, nil
}

func serve(t *testing.T, d deliveryevents.Deliveries, providers map[string]deliveryevents.Provider) http.Handler {
	t.Helper()
	h, err := deliveryevents.New(d, providers)
	if err != nil {
		t.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(deliveryevents.Routes(h), []string{testsupport.SiteOrigin}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return served
}

var mailgunOn = map[string]deliveryevents.Provider{"mailgun": fakeProvider{}}

func post(h http.Handler, path, body string) (int, string) {
	w := testsupport.Serve(h, testsupport.Request{Method: http.MethodPost, Path: path, Body: body})
	return w.Code, w.Body.String()
}

func TestReceive(t *testing.T) {
	d := &fakeDeliveries{}
	h := serve(t, d, mailgunOn)
	tests := []struct {
		name, body string
		want       deliveryevents.Result
	}{
		{"a receipt moves its envelope", "delivered:env1", deliveryevents.Result{Applied: true, EnvelopeID: "env1", Status: intake.DeliveryDelivered}},
		{"an event that is no delivery is taken and ignored", "opened:env1", deliveryevents.Result{}},
		{"an envelope not here is taken and ignored", "delivered:env9", deliveryevents.Result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(h, "/hooks/delivery/mailgun", tt.body)
			var got deliveryevents.Result
			if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got != tt.want {
				t.Fatalf("%d %s, want 200 %+v", code, body, tt.want)
			}
		})
	}
	if len(d.applied) != 1 {
		t.Fatalf("applied %d events, want 1", len(d.applied))
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name, path, body string
		providers        map[string]deliveryevents.Provider
		err              error
		status           int
		code             string
	}{
		{"bad signature", "/hooks/delivery/mailgun", "bad-signature:env1", mailgunOn, nil, 403, "EVENT_SIGNATURE_INVALID"},
		{"stale timestamp", "/hooks/delivery/mailgun", "stale:env1", mailgunOn, nil, 403, "EVENT_STALE"},
		{"replayed token", "/hooks/delivery/mailgun", "delivered:env1", mailgunOn, intake.Errorf(intake.CodeEventReplayed, "seen"), 409, "EVENT_REPLAYED"},
		{"not an event", "/hooks/delivery/mailgun", "hello", mailgunOn, nil, 400, "UNREADABLE_BODY"},
		{"too large", "/hooks/delivery/mailgun", strings.Repeat("x", deliveryevents.MaxBody+1), mailgunOn, nil, 413, "BODY_TOO_LARGE"},
		{"another provider", "/hooks/delivery/sendgrid", "delivered:env1", mailgunOn, nil, 404, "NOT_FOUND"},
		{"mailgun not configured", "/hooks/delivery/mailgun", "delivered:env1", nil, nil, 404, "NOT_FOUND"},
		{"store down", "/hooks/delivery/mailgun", "delivered:env1", mailgunOn, intake.Unavailable(errors.New("secret"), time.Second), 503, "UNAVAILABLE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &fakeDeliveries{err: tc.err}
			w := testsupport.Serve(serve(t, d, tc.providers), testsupport.Request{Method: http.MethodPost, Path: tc.path, Body: tc.body})
			if code := testsupport.ProblemCode(t, w); w.Code != tc.status || code != tc.code || strings.Contains(w.Body.String(), "secret") {
				t.Fatalf("%d %s: %s", w.Code, code, w.Body)
			}
			if len(d.applied) != 0 {
				t.Fatal("a refused event changed something")
			}
		})
	}
}

func TestEdges(t *testing.T) {
	testsupport.CheckEdges(t, serve(t, &fakeDeliveries{}, mailgunOn), "/hooks/delivery/mailgun", "POST")
}

func TestNewRefusesMissingParts(t *testing.T) {
	if _, err := deliveryevents.New(nil, nil); err == nil || !strings.Contains(err.Error(), "Deliveries") {
		t.Fatalf("New(nil) error = %v", err)
	}
	if _, err := deliveryevents.New(&fakeDeliveries{}, map[string]deliveryevents.Provider{"mailgun": nil}); err == nil {
		t.Fatal("New accepted a nil provider")
	}
}
