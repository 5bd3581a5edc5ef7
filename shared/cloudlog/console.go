package cloudlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Console is the log for a person at a terminal (the dev server under
// make run): one short line per request — time, method, path, status,
// duration and the messages of what the request logged below WARNING —
// and one line per record outside a request or at WARNING and above.
// Values are quoted when they hold a space, a quote, an equals sign or a
// control character, so no value can start a line of its own. Deployed
// functions write New's JSON instead.
type Console struct {
	w     io.Writer
	level slog.Leveler
	mu    sync.Mutex // one Write per line
	now   func() time.Time
}

// NewConsole returns a Console writing records at or above level (nil
// means slog.LevelInfo) to w.
func NewConsole(w io.Writer, level slog.Leveler) *Console {
	if level == nil {
		level = slog.LevelInfo
	}
	return &Console{w: w, level: level, now: time.Now}
}

// Logger returns the console's logger.
func (c *Console) Logger() *slog.Logger { return slog.New(&consoleHandler{c: c}) }

// Requests returns next with one console line written after each request.
// The line names the path, never the query, which may hold what a person
// typed.
func (c *Console) Requests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		begun := c.now()
		n := &notes{}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), notesKey{}, n)))
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s %s %s %d %dms", begun.Format("15:04:05"), printable(r.Method), quotedIfNeeded(r.URL.Path), sw.status, c.now().Sub(begun).Milliseconds())
		if msgs := n.take(); len(msgs) > 0 {
			b.WriteString(" · ")
			b.WriteString(strings.Join(msgs, ", "))
		}
		c.write(b.Bytes())
	})
}

func (c *Console) write(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Write(append(line, '\n'))
}

// notes collects the messages a request logs below WARNING, for its line.
type notes struct {
	mu   sync.Mutex
	msgs []string
}

type notesKey struct{}

func (n *notes) add(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.msgs) == 0 || n.msgs[len(n.msgs)-1] != msg {
		n.msgs = append(n.msgs, msg)
	}
}

func (n *notes) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.msgs
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.written {
		w.status, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type consoleHandler struct {
	c      *Console
	prefix string // the open groups, "a.b."
	attrs  []byte // " key=value" of WithAttrs
}

func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.c.level.Level()
}

func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := *h
	var b bytes.Buffer
	b.Write(h.attrs)
	for _, a := range attrs {
		appendAttr(&b, h.prefix, a)
	}
	out.attrs = b.Bytes()
	return &out
}

func (h *consoleHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	out := *h
	out.prefix += name + "."
	return &out
}

func (h *consoleHandler) Handle(ctx context.Context, r slog.Record) error {
	if n, ok := ctx.Value(notesKey{}).(*notes); ok && r.Level < slog.LevelWarn {
		n.add(printable(r.Message))
		return nil
	}
	var b bytes.Buffer
	t := r.Time
	if t.IsZero() {
		t = h.c.now()
	}
	fmt.Fprintf(&b, "%s %-7s %s", t.Format("15:04:05"), severity(r.Level), printable(r.Message))
	b.Write(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.prefix, a)
		return true
	})
	h.c.write(b.Bytes())
	return nil
}

// appendAttr writes " key=value", groups as "group.key=value".
func appendAttr(b *bytes.Buffer, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			appendAttr(b, prefix, g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(quotedIfNeeded(prefix + a.Key))
	b.WriteByte('=')
	b.WriteString(quotedIfNeeded(a.Value.String()))
}

// quotedIfNeeded returns s, or s quoted when it could be misread: empty,
// or holding a space, a quote, an equals sign or a non-printing character.
func quotedIfNeeded(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return r == '"' || r == '=' || unicode.IsSpace(r) || !unicode.IsPrint(r)
	}) {
		return strconv.Quote(s)
	}
	return s
}

// printable returns a message or a path as it is, or quoted when it holds
// a space other than ' ' or a non-printing character (a newline).
func printable(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r != ' ' && (unicode.IsSpace(r) || !unicode.IsPrint(r)) }) {
		return strconv.Quote(s)
	}
	return s
}
