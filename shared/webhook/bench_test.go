package webhook

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
)

// BenchmarkSend measures one signed delivery to a local receiver, beside a
// plain unsigned POST of the same body through a default client (the
// reference, measured in the same run): the difference is the sender's own
// cost (rendering, signing, the dial-time check).
func BenchmarkSend(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	d := confirmedDelivery("env-bench")
	b.Run("signed", func(b *testing.B) {
		s, err := New(config.Webhook{URL: srv.URL, Secret: testSecret, AllowPrivate: true},
			Options{Logger: slog.New(slog.DiscardHandler), Now: time.Now})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if res := s.Send(context.Background(), d); res.Status != "DELIVERED" {
				b.Fatal(res)
			}
		}
	})
	b.Run("reference-plain-post", func(b *testing.B) {
		body, _ := Payload(d)
		b.ReportAllocs()
		for b.Loop() {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(string(body)))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
