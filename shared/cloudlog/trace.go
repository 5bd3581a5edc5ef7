package cloudlog

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

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
