// Command devserver runs every route of every function of the service on one
// origin, with the site's reference page at every other path: what `make
// run` starts, configured from the environment (shared/config/README.md).
// It listens on 127.0.0.1 and answers only requests addressed to a loopback
// name, so that DNS rebinding reaches nothing (the admin has no sign-in here).
// For tests only, DEVSERVER_CLOCK_STEP (a duration) makes each SIGUSR1 move
// the service's clock that far ahead.
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
	"sync/atomic"
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
	logger := logs(stderr, isTerminal(stderr), cfg.LogLevel)
	if err != nil {
		return err
	}
	if cfg.FirestoreEmulatorHost == "" {
		logger.Warn("FIRESTORE_EMULATOR_HOST is unset: using real Firestore with your default credentials")
	}
	var o dbparts.Overrides
	if v := getenv("DEVSERVER_CLOCK_STEP"); v != "" {
		step, err := time.ParseDuration(v)
		if err != nil || step <= 0 {
			return fmt.Errorf("DEVSERVER_CLOCK_STEP=%q: want a duration such as 2m", v)
		}
		o.Clock = steppedClock(step, logger)
	}
	svc, err := introductions.Build(ctx, cfg, logger, o)
	if err != nil {
		return err
	}
	defer svc.Close()
	svc.Sweeps.Start(intake.SweepByColdStart)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Port))
	if err != nil {
		return err
	}
	server := newServer(handler(svc, cfg.Port))
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
	if err := server.Shutdown(shutdown); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stepClock is the system's clock moved ahead by ahead nanoseconds.
type stepClock struct{ ahead atomic.Int64 }

func (c *stepClock) Now() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }

// steppedClock returns a clock that each SIGUSR1 moves step ahead (logged).
func steppedClock(step time.Duration, logger *slog.Logger) *stepClock {
	c, moves := &stepClock{}, make(chan os.Signal, 1)
	signal.Notify(moves, syscall.SIGUSR1)
	go func() {
		for range moves {
			ahead := time.Duration(c.ahead.Add(int64(step)))
			logger.Info("the clock moved ahead", slog.String("ahead", ahead.String()))
		}
	}()
	return c
}

// logs returns the dev server's logger: text lines at a terminal, Cloud Logging JSON otherwise.
func logs(stderr io.Writer, terminal bool, level slog.Leveler) *slog.Logger {
	if terminal {
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	}
	return cloudlog.New(stderr, level)
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// handler is every route of svc and the site's page, for loopback names only.
func handler(svc *dbparts.Service, port int) http.Handler {
	return loopbackOnly(svc.Mux(sitepage.Handler()), port)
}

// loopbackOnly passes next the requests whose Host is 127.0.0.1, localhost or [::1] (with or
// without port, any case) and answers any other 421 HOST_NOT_SERVED.
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

// newServer returns the dev server's HTTP server for h: slow clients are cut off, and Write is
// twice the longest store timeout, so a slow store answers 503.
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 15 * time.Second,
		WriteTimeout: 150 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10}
}
