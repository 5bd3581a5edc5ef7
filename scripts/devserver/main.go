// Command devserver runs every route of every function of the service (the
// route table of functions/wiring) on one origin, with the site's reference
// page at every other path. It is what `make run` starts; configuration
// comes from the environment (see README.md). It needs
// FIRESTORE_EMULATOR_HOST (make run starts the emulator) or real Google
// credentials.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/sitepage"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devserver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	cfg, err := config.Load(getenv)
	logger := cloudlog.New(stderr, cfg.LogLevel)
	if err != nil {
		return err
	}
	if cfg.FirestoreEmulatorHost == "" {
		logger.Warn("FIRESTORE_EMULATOR_HOST is unset: using real Firestore with your default credentials")
	}
	svc, err := wiring.Build(ctx, cfg, logger, wiring.Overrides{})
	if err != nil {
		return err
	}
	defer svc.Close()
	// Starting the dev server is a cold start: it sweeps in the background.
	svc.Sweeps.Start(intake.SweepByColdStart)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Port))
	if err != nil {
		return err
	}
	server := newServer(svc.Mux(sitepage.Handler()), devTimeouts)
	logger.Info("serving", slog.String("url", "http://"+ln.Addr().String()+"/"), slog.String("admin", "http://"+ln.Addr().String()+"/admin/"),
		slog.String("project", cfg.Project), slog.String("database", cfg.Database))
	fmt.Fprintf(stderr, "\n  the form:          http://%s/\n  the owner's admin: http://%s/admin/  (loopback only, no sign-in)\n\n", ln.Addr(), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- server.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := server.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// timeouts bound how long one connection may hold the server.
type timeouts struct {
	// ReadHeader and Read bound reading a request's headers and whole
	// body: a client sending one byte every few seconds is cut off.
	ReadHeader, Read time.Duration
	// Write bounds a request from the end of its headers to the end of the
	// answer; Idle bounds a kept-alive connection between requests.
	Write, Idle time.Duration
}

// devTimeouts are the dev server's. The threat is a slow client (one byte
// every few seconds, or a connection held idle) holding connections open
// indefinitely. Deployed functions do not go through this server: Cloud
// Run's front end bounds every request by the service's request timeout
// and buffers request bodies, so these guard the dev server only. Write is
// above the store's operation timeout (FIRESTORE_TIMEOUT, at most a minute)
// twice over, so a slow store answers 503 rather than a cut connection.
var devTimeouts = timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: 150 * time.Second, Idle: 60 * time.Second}

// newServer returns the dev server's HTTP server for h with t.
func newServer(h http.Handler, t timeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
	}
}
