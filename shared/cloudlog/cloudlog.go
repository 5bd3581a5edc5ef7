// Package cloudlog provides a log/slog handler that writes one JSON object
// per line using Google Cloud Logging's structured-log field names:
// severity, message, time, logging.googleapis.com/sourceLocation and, when
// the context carries a request's trace, logging.googleapis.com/trace,
// logging.googleapis.com/spanId and logging.googleapis.com/trace_sampled.
//
// Attribute values are always encoded as JSON values, never spliced into the
// message text, so a value holding newlines or quotes cannot start a second
// log entry or forge a field (SPEC §8). Callers still decide what they log:
// ids, codes, decisions and hashed keys, never personal data.
package cloudlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Cloud Logging's special field names.
const (
	keySeverity       = "severity"
	keyMessage        = "message"
	keyTime           = "time"
	keySourceLocation = "logging.googleapis.com/sourceLocation"
	keyTrace          = "logging.googleapis.com/trace"
	keySpanID         = "logging.googleapis.com/spanId"
	keyTraceSampled   = "logging.googleapis.com/trace_sampled"
)

// reserved are the top-level keys the handler writes itself. A top-level
// attribute with one of these keys is written as "attr.<key>" instead, so
// that no attribute can override severity, message or trace.
var reserved = map[string]bool{
	keySeverity: true, keyMessage: true, keyTime: true, keySourceLocation: true,
	keyTrace: true, keySpanID: true, keyTraceSampled: true,
}

// Handler is a slog.Handler writing Cloud Logging JSON lines. It is safe for
// concurrent use; each record is written with a single Write call.
type Handler struct {
	mu    *sync.Mutex // shared by every handler derived from the same NewHandler
	w     io.Writer
	level slog.Leveler
	goas  []groupOrAttrs // WithGroup/WithAttrs calls, oldest first
}

// groupOrAttrs is one WithGroup (group != "") or WithAttrs call.
type groupOrAttrs struct {
	group string
	attrs []slog.Attr
}

// NewHandler returns a Handler writing records at or above level to w. A nil
// level means slog.LevelInfo.
func NewHandler(w io.Writer, level slog.Leveler) *Handler {
	if level == nil {
		level = slog.LevelInfo
	}
	return &Handler{mu: new(sync.Mutex), w: w, level: level}
}

// New returns a logger backed by NewHandler(w, level).
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(NewHandler(w, level))
}

// Enabled reports whether records at level l are written.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

// WithAttrs returns a handler that adds attrs, inside any open groups, to
// every record.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(groupOrAttrs{attrs: attrs})
}

// WithGroup returns a handler that nests later attributes under name. A
// group that ends up with no attributes is omitted.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(groupOrAttrs{group: name})
}

func (h *Handler) with(g groupOrAttrs) *Handler {
	h2 := *h
	h2.goas = append(slices.Clip(h.goas), g)
	return &h2
}

// Handle writes r as one JSON line. It returns the writer's error, if any.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	buf := make([]byte, 0, 512)
	buf = append(buf, '{')
	buf = appendString(appendKey(buf, keySeverity), severity(r.Level))
	buf = appendString(appendKey(buf, keyMessage), r.Message)
	if !r.Time.IsZero() {
		buf = appendString(appendKey(buf, keyTime), r.Time.UTC().Format(time.RFC3339Nano))
	}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		buf = append(appendKey(buf, keySourceLocation), '{')
		buf = appendString(appendKey(buf, "file"), f.File)
		buf = appendString(appendKey(buf, "line"), strconv.Itoa(f.Line))
		buf = appendString(appendKey(buf, "function"), f.Function)
		buf = append(buf, '}')
	}
	if t, ok := ctx.Value(traceKey{}).(trace); ok {
		buf = appendString(appendKey(buf, keyTrace), t.name)
		if t.spanID != "" {
			buf = appendString(appendKey(buf, keySpanID), t.spanID)
		}
		buf = strconv.AppendBool(appendKey(buf, keyTraceSampled), t.sampled)
	}

	// Open groups are closed innermost first; an empty one is cut back out
	// together with its key.
	var open []int
	for _, g := range h.goas {
		if g.group != "" {
			open = append(open, len(buf))
			buf = append(appendKey(buf, g.group), '{')
			continue
		}
		for _, a := range g.attrs {
			buf = appendAttr(buf, a, len(open) == 0)
		}
	}
	r.Attrs(func(a slog.Attr) bool {
		buf = appendAttr(buf, a, len(open) == 0)
		return true
	})
	for i := len(open) - 1; i >= 0; i-- {
		if buf[len(buf)-1] == '{' {
			buf = buf[:open[i]]
		} else {
			buf = append(buf, '}')
		}
	}
	buf = append(buf, '}', '\n')

	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(buf)
	return err
}

// severity maps a slog level to Cloud Logging's severity names.
func severity(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "DEBUG"
	case l < slog.LevelWarn:
		return "INFO"
	case l < slog.LevelError:
		return "WARNING"
	default:
		return "ERROR"
	}
}

// appendAttr appends a as a JSON member, following slog's rules: an empty
// attribute and an empty group are omitted, a group with an empty key is
// inlined, and LogValuers are resolved.
func appendAttr(buf []byte, a slog.Attr, topLevel bool) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return buf
	}
	if topLevel && reserved[a.Key] {
		a.Key = "attr." + a.Key
	}
	if a.Value.Kind() != slog.KindGroup {
		return appendValue(appendKey(buf, a.Key), a.Value)
	}
	attrs := a.Value.Group()
	if a.Key == "" {
		for _, ga := range attrs {
			buf = appendAttr(buf, ga, topLevel)
		}
		return buf
	}
	start := len(buf)
	buf = append(appendKey(buf, a.Key), '{')
	body := len(buf)
	for _, ga := range attrs {
		buf = appendAttr(buf, ga, false)
	}
	if len(buf) == body {
		return buf[:start]
	}
	return append(buf, '}')
}

// appendKey appends a separating comma when needed, then "key":.
func appendKey(buf []byte, key string) []byte {
	if buf[len(buf)-1] != '{' {
		buf = append(buf, ',')
	}
	return append(appendString(buf, key), ':')
}

// appendValue appends v as a JSON value. Durations and times are strings;
// anything that does not marshal as JSON is written as its %+v text.
func appendValue(buf []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendString(buf, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(buf, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(buf, v.Uint64(), 10)
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return appendString(buf, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(buf, f, 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(buf, v.Bool())
	case slog.KindDuration:
		return appendString(buf, v.Duration().String())
	case slog.KindTime:
		return appendString(buf, v.Time().UTC().Format(time.RFC3339Nano))
	}
	x := v.Any()
	if err, ok := x.(error); ok {
		return appendString(buf, err.Error())
	}
	b, err := json.Marshal(x)
	if err != nil {
		return appendString(buf, fmt.Sprintf("%+v", x))
	}
	return append(buf, b...)
}

// appendString appends s as a JSON string. Control characters, quotes and
// invalid UTF-8 are escaped or replaced, so s can never end the line.
func appendString(buf []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(buf, b...)
}
