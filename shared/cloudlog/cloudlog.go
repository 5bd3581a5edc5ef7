// Package cloudlog makes log/slog write one JSON line per record with Cloud
// Logging's field names and the context's trace (WithTrace); a value cannot
// start a second entry or forge a field.
package cloudlog

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
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

// reserved are the top-level keys the handler writes itself; an attribute's is "attr.<key>".
var reserved = map[string]bool{
	keySeverity: true, keyMessage: true, keyTime: true, keySourceLocation: true,
	keyTrace: true, keySpanID: true, keyTraceSampled: true,
	slog.LevelKey: true, slog.MessageKey: true, slog.SourceKey: true,
}

// New returns a logger writing Cloud Logging JSON lines at or above level (nil: info) to w.
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(NewHandler(w, level))
}

// NewHandler returns the handler of New.
func NewHandler(w io.Writer, level slog.Leveler) slog.Handler {
	if level == nil {
		level = slog.LevelInfo
	}
	base := slog.NewJSONHandler(w, &slog.HandlerOptions{AddSource: true, Level: level, ReplaceAttr: replace})
	return &handler{base: base, inner: base}
}

// replace renames slog's keys to Cloud Logging's and writes values as it reads them.
func replace(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 {
		switch a.Key {
		case slog.LevelKey:
			return slog.String(keySeverity, severity(a.Value.Any().(slog.Level)))
		case slog.MessageKey:
			a.Key = keyMessage
			return a
		case slog.SourceKey:
			src, ok := a.Value.Any().(*slog.Source)
			if !ok {
				return slog.Attr{}
			}
			return slog.Group(keySourceLocation, "file", src.File, "line", strconv.Itoa(src.Line), "function", src.Function)
		}
	}
	switch v := a.Value; v.Kind() {
	case slog.KindDuration:
		a.Value = slog.StringValue(v.Duration().String())
	case slog.KindTime:
		a.Value = slog.StringValue(v.Time().UTC().Format(time.RFC3339Nano))
	case slog.KindFloat64:
		if f := v.Float64(); math.IsNaN(f) || math.IsInf(f, 0) {
			a.Value = slog.StringValue(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case slog.KindAny:
		if _, isErr := v.Any().(error); !isErr {
			if _, err := json.Marshal(v.Any()); err != nil {
				a.Value = slog.StringValue(fmt.Sprintf("%+v", v.Any()))
			}
		}
	}
	return a
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

// handler renames reserved attributes and adds the context's trace around slog's JSON handler.
type handler struct {
	base  slog.Handler // the JSON handler, before any WithGroup or WithAttrs
	goas  []groupOrAttrs
	inner slog.Handler // base with goas applied
}

// groupOrAttrs is one WithGroup (group != "") or WithAttrs call.
type groupOrAttrs struct {
	group string
	attrs []slog.Attr
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.base.Enabled(ctx, l) }

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	if !h.grouped() {
		attrs = renameReserved(attrs)
	}
	return h.with(groupOrAttrs{attrs: attrs})
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(groupOrAttrs{group: name})
}

func (h *handler) with(g groupOrAttrs) *handler {
	goas := append(slices.Clip(h.goas), g)
	return &handler{base: h.base, goas: goas, inner: apply(h.base, goas)}
}

func (h *handler) grouped() bool {
	return slices.ContainsFunc(h.goas, func(g groupOrAttrs) bool { return g.group != "" })
}

// apply replays WithGroup and WithAttrs calls on base.
func apply(base slog.Handler, goas []groupOrAttrs) slog.Handler {
	for _, g := range goas {
		if g.group != "" {
			base = base.WithGroup(g.group)
		} else {
			base = base.WithAttrs(g.attrs)
		}
	}
	return base
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	inner := h.inner
	if t, ok := ctx.Value(traceKey{}).(trace); ok {
		// The trace goes at the top level, before any open group.
		inner = apply(h.base.WithAttrs(t.attrs()), h.goas)
	}
	if !h.grouped() {
		plain := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool {
			plain.AddAttrs(renameReserved([]slog.Attr{a})...)
			return true
		})
		r = plain
	}
	return inner.Handle(ctx, r)
}

// renameReserved renames top-level attributes with a reserved key, inlined groups included.
func renameReserved(attrs []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		switch {
		case reserved[a.Key]:
			a.Key = "attr." + a.Key
		case a.Key == "" && a.Value.Kind() == slog.KindGroup:
			a.Value = slog.GroupValue(renameReserved(a.Value.Group())...)
		}
		out[i] = a
	}
	return out
}

// TraceHeader is the request header Cloud Run sets with the request's trace.
const TraceHeader = "X-Cloud-Trace-Context"

type traceKey struct{}

// trace is what WithTrace keeps in a context for the handler.
type trace struct {
	name    string // projects/<project>/traces/<TRACE_ID>
	spanID  string // 16 lowercase hex digits, or empty
	sampled bool
}

// WithTrace returns ctx carrying the trace of an X-Cloud-Trace-Context header, which records
// logged with it carry as Cloud Logging's trace, spanId and trace_sampled. A malformed header
// or project leaves ctx as it is.
func WithTrace(ctx context.Context, project, header string) context.Context {
	t, ok := parseTrace(project, header)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, t)
}

// parseTrace parses "TRACE_ID/SPAN_ID;o=OPTIONS", the span and options optional.
func parseTrace(project, header string) (trace, bool) {
	if !validProject(project) {
		return trace{}, false
	}
	ids, opts, hasOpts := strings.Cut(header, ";")
	traceID, spanID, hasSpan := strings.Cut(ids, "/")
	if !isTraceID(traceID) {
		return trace{}, false
	}
	t := trace{name: "projects/" + project + "/traces/" + strings.ToLower(traceID)}
	if hasSpan {
		n, err := strconv.ParseUint(spanID, 10, 64)
		if err != nil {
			return trace{}, false
		}
		if n != 0 {
			t.spanID = fmt.Sprintf("%016x", n)
		}
	}
	if hasOpts {
		switch opts {
		case "o=1":
			t.sampled = true
		case "o=0":
		default:
			return trace{}, false
		}
	}
	return t, true
}

// attrs are the trace's Cloud Logging fields.
func (t trace) attrs() []slog.Attr {
	attrs := []slog.Attr{slog.String(keyTrace, t.name)}
	if t.spanID != "" {
		attrs = append(attrs, slog.String(keySpanID, t.spanID))
	}
	return append(attrs, slog.Bool(keyTraceSampled, t.sampled))
}

func isTraceID(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 32 && strings.Trim(s, "0") != "" && err == nil
}

// validProject accepts Google Cloud project ids, domain-scoped ones included.
func validProject(p string) bool {
	return p != "" && len(p) <= 100 && strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789-.:") == ""
}
