// Command devserver runs every route of every function of the service (the
// rows of each under functions/) on one origin, with the site's reference
// page at every other path. It is what `make run` starts; configuration
// comes from the environment (see README.md). It needs
// FIRESTORE_EMULATOR_HOST (make run starts the emulator) or real Google
// credentials.
//
// It listens on 127.0.0.1 and answers only requests addressed to a
// loopback name (loopbackOnly): the admin has no sign-in here, and a page
// on any other name that resolves to 127.0.0.1 (DNS rebinding) must reach
// nothing.
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
	"strconv"
	"strings"
	"syscall"
	"time"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/cloudlog"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/jsonapi"
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
	logger, requests := logs(stderr, isTerminal(stderr), cfg.LogLevel)
	if err != nil {
		return err
	}
	if cfg.FirestoreEmulatorHost == "" {
		logger.Warn("FIRESTORE_EMULATOR_HOST is unset: using real Firestore with your default credentials")
	}
	svc, err := introductions.Build(ctx, cfg, logger, dbparts.Overrides{})
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
	server := newServer(requests(handler(svc, cfg.Port)), devTimeouts)
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

// logs returns the dev server's logger and what wraps its handler. At a
// terminal (make run) the log is cloudlog's Console: one short line per
// request. Otherwise — output to a file or a pipe, as on Cloud Run — it is
// Cloud Logging JSON, and requests are not logged one by one.
func logs(stderr io.Writer, terminal bool, level slog.Leveler) (*slog.Logger, func(http.Handler) http.Handler) {
	if terminal {
		c := cloudlog.NewConsole(stderr, level)
		return c.Logger(), c.Requests
	}
	return cloudlog.New(stderr, level), func(h http.Handler) http.Handler { return h }
}

// isTerminal reports whether w is a terminal: a character device (which
// /dev/null also is, harmlessly).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// handler is everything the dev server answers on port: every route of
// svc and the site's page, for loopback names only.
func handler(svc *dbparts.Service, port int) http.Handler {
	return loopbackOnly(svc.Mux(sitepage.Handler()), port)
}

// loopbackOnly passes next the requests whose Host is a loopback name —
// 127.0.0.1, localhost or [::1], with or without port, in any case — and
// answers any other 421 HOST_NOT_SERVED before routing. Origin and
// Sec-Fetch-Site cannot stop DNS rebinding (a page on the attacker's name,
// re-resolved to 127.0.0.1, is same-origin with itself); its Host names
// the attacker, which this refuses.
func loopbackOnly(next http.Handler, port int) http.Handler {
	names := map[string]bool{}
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		names[name] = true
		names[name+":"+strconv.Itoa(port)] = true
	}
	refusal := intake.Errorf(intake.CodeHostNotServed, "The dev server answers only 127.0.0.1, localhost and [::1].")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !names[strings.ToLower(r.Host)] {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			jsonapi.WriteError(w, r, nil, refusal)
			return
		}
		next.ServeHTTP(w, r)
	})
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
// An attachment's upload extends its own read deadline (drafts.UploadTime).
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
