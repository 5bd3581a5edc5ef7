package cloudlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/ownersite/introductions/shared/cloudlog"
)

// builtins are the fields the handler writes itself; tests about attributes
// drop them before comparing.
var builtins = []string{
	"severity", "message", "time",
	"logging.googleapis.com/sourceLocation",
	"logging.googleapis.com/trace",
	"logging.googleapis.com/spanId",
	"logging.googleapis.com/trace_sampled",
}

// decodeLines splits out into lines and decodes each as one JSON object.
func decodeLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var ms []map[string]any
	for line := range bytes.Lines(out) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("unterminated line %q", line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %q is not one JSON object: %v", line, err)
		}
		ms = append(ms, m)
	}
	return ms
}

func decodeOne(t *testing.T, out []byte) map[string]any {
	t.Helper()
	ms := decodeLines(t, out)
	if len(ms) != 1 {
		t.Fatalf("got %d lines, want 1: %q", len(ms), out)
	}
	return ms[0]
}

func TestBuiltinFields(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now()
	cloudlog.New(&buf, slog.LevelInfo).Info("challenge issued", "code", "OK")
	m := decodeOne(t, buf.Bytes())

	if got := m["severity"]; got != "INFO" {
		t.Errorf("severity = %v, want INFO", got)
	}
	if got := m["message"]; got != "challenge issued" {
		t.Errorf("message = %v, want %q", got, "challenge issued")
	}
	if got := m["code"]; got != "OK" {
		t.Errorf("code = %v, want OK", got)
	}
	for _, k := range []string{"msg", "level", "source"} {
		if _, ok := m[k]; ok {
			t.Errorf("slog's default key %q present, want Cloud Logging names only", k)
		}
	}
	ts, _ := m["time"].(string)
	tm, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t.Fatalf("time %q is not RFC 3339: %v", ts, err)
	}
	if tm.Before(before.Add(-time.Second)) || tm.After(time.Now().Add(time.Second)) {
		t.Errorf("time %v is not the time of the call (%v)", tm, before)
	}
	src, ok := m["logging.googleapis.com/sourceLocation"].(map[string]any)
	if !ok {
		t.Fatalf("sourceLocation missing or not an object: %v", m)
	}
	if f, _ := src["file"].(string); !strings.HasSuffix(f, "cloudlog_test.go") {
		t.Errorf("sourceLocation.file = %q, want this test file", f)
	}
	if fn, _ := src["function"].(string); !strings.HasSuffix(fn, ".TestBuiltinFields") {
		t.Errorf("sourceLocation.function = %q, want this test", fn)
	}
	if l, _ := src["line"].(string); l == "" || l == "0" {
		t.Errorf("sourceLocation.line = %q, want a line number", l)
	} else if _, err := strconv.Atoi(l); err != nil {
		t.Errorf("sourceLocation.line = %q: %v", l, err)
	}
	for _, k := range []string{"logging.googleapis.com/trace", "logging.googleapis.com/spanId"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present without a trace in the context", k)
		}
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		name     string
		handler  slog.Leveler
		level    slog.Level
		severity string // "" means nothing is written
	}{
		{"debug", slog.LevelDebug, slog.LevelDebug, "DEBUG"},
		{"below debug", slog.LevelDebug - 4, slog.LevelDebug - 2, "DEBUG"},
		{"info", slog.LevelInfo, slog.LevelInfo, "INFO"},
		{"between info and warn", slog.LevelInfo, slog.LevelInfo + 2, "INFO"},
		{"warn", slog.LevelInfo, slog.LevelWarn, "WARNING"},
		{"error", slog.LevelInfo, slog.LevelError, "ERROR"},
		{"above error", slog.LevelInfo, slog.LevelError + 4, "ERROR"},
		{"debug filtered at info", slog.LevelInfo, slog.LevelDebug, ""},
		{"warn filtered at error", slog.LevelError, slog.LevelWarn, ""},
		{"nil leveler means info", nil, slog.LevelDebug, ""},
		{"nil leveler writes info", nil, slog.LevelInfo, "INFO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			cloudlog.New(&buf, tt.handler).Log(context.Background(), tt.level, "m")
			if tt.severity == "" {
				if buf.Len() != 0 {
					t.Fatalf("wrote %q, want nothing", buf.Bytes())
				}
				return
			}
			if got := decodeOne(t, buf.Bytes())["severity"]; got != tt.severity {
				t.Errorf("severity = %v, want %s", got, tt.severity)
			}
		})
	}
}

func TestAttrsAndGroups(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want map[string]any
	}{
		{
			name: "record attrs",
			log:  func(l *slog.Logger) { l.Info("m", "id", "i1", "n", 3, "ok", true) },
			want: map[string]any{"id": "i1", "n": 3.0, "ok": true},
		},
		{
			name: "with attrs",
			log:  func(l *slog.Logger) { l.With("fn", "drafts").Info("m", "id", "i1") },
			want: map[string]any{"fn": "drafts", "id": "i1"},
		},
		{
			name: "with group then attrs",
			log:  func(l *slog.Logger) { l.WithGroup("req").With("id", "r1").Info("m", "code", "X") },
			want: map[string]any{"req": map[string]any{"id": "r1", "code": "X"}},
		},
		{
			name: "attrs before group stay outside",
			log:  func(l *slog.Logger) { l.With("fn", "forms").WithGroup("g").Info("m", "a", 1) },
			want: map[string]any{"fn": "forms", "g": map[string]any{"a": 1.0}},
		},
		{
			name: "nested groups",
			log:  func(l *slog.Logger) { l.WithGroup("a").WithGroup("b").Info("m", "c", "d") },
			want: map[string]any{"a": map[string]any{"b": map[string]any{"c": "d"}}},
		},
		{
			name: "empty trailing group omitted",
			log:  func(l *slog.Logger) { l.With("x", 1).WithGroup("empty").Info("m") },
			want: map[string]any{"x": 1.0},
		},
		{
			name: "group attr",
			log:  func(l *slog.Logger) { l.Info("m", slog.Group("rate", "key", "ip", "count", 10)) },
			want: map[string]any{"rate": map[string]any{"key": "ip", "count": 10.0}},
		},
		{
			name: "empty group attr omitted",
			log:  func(l *slog.Logger) { l.Info("m", slog.Group("none"), "a", "b") },
			want: map[string]any{"a": "b"},
		},
		{
			name: "inline group",
			log:  func(l *slog.Logger) { l.Info("m", slog.Group("", "a", "b")) },
			want: map[string]any{"a": "b"},
		},
		{
			name: "empty attr ignored",
			log:  func(l *slog.Logger) { l.Info("m", slog.Attr{}, "a", "b") },
			want: map[string]any{"a": "b"},
		},
		{
			name: "reserved top-level key cannot override severity",
			log:  func(l *slog.Logger) { l.Info("m", "severity", "ERROR", "message", "forged") },
			want: map[string]any{"attr.severity": "ERROR", "attr.message": "forged"},
		},
		{
			name: "slog's own keys cannot override severity or message",
			log:  func(l *slog.Logger) { l.With("level", "ERROR").Info("m", "msg", "forged", "source", "x", "time", "t") },
			want: map[string]any{"attr.level": "ERROR", "attr.msg": "forged", "attr.source": "x", "attr.time": "t"},
		},
		{
			name: "reserved key in an inline group is renamed",
			log:  func(l *slog.Logger) { l.Info("m", slog.Group("", "logging.googleapis.com/trace", "forged")) },
			want: map[string]any{"attr.logging.googleapis.com/trace": "forged"},
		},
		{
			name: "reserved key inside a group is left alone",
			log:  func(l *slog.Logger) { l.WithGroup("g").Info("m", "severity", "x") },
			want: map[string]any{"g": map[string]any{"severity": "x"}},
		},
		{
			name: "value kinds",
			log: func(l *slog.Logger) {
				l.Info("m",
					"dur", 1500*time.Millisecond,
					"at", time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
					"u", uint64(math.MaxUint64),
					"f", 0.5,
					"nan", math.NaN(),
					"err", errors.New("boom"),
					"list", []string{"a", "b"},
				)
			},
			want: map[string]any{
				"dur": "1.5s", "at": "2026-01-02T03:04:05.000000006Z",
				"u": float64(math.MaxUint64), "f": 0.5, "nan": "NaN",
				"err": "boom", "list": []any{"a", "b"},
			},
		},
		{
			name: "unmarshalable value falls back to text",
			log:  func(l *slog.Logger) { l.Info("m", "fn", func() {}) },
			want: map[string]any{"fn": "<func>"},
		},
		{
			name: "log valuer resolved",
			log:  func(l *slog.Logger) { l.Info("m", "v", hashed("k")) },
			want: map[string]any{"v": "hash:k"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(cloudlog.New(&buf, slog.LevelInfo))
			got := decodeOne(t, buf.Bytes())
			for _, k := range builtins {
				delete(got, k)
			}
			if fn, ok := got["fn"].(string); ok && strings.HasPrefix(fn, "0x") {
				got["fn"] = "<func>" // %+v of a func is its address
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("attributes = %v\nwant %v\nline: %s", got, tt.want, buf.Bytes())
			}
		})
	}
}

type hashed string

func (h hashed) LogValue() slog.Value { return slog.StringValue("hash:" + string(h)) }

func TestTrace(t *testing.T) {
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name    string
		project string
		header  string
		trace   string // "" means no trace fields
		span    string
		sampled bool
	}{
		{"full header", "my-proj", id + "/1;o=1", "projects/my-proj/traces/" + id, "0000000000000001", true},
		{"large span id", "my-proj", id + "/18446744073709551615;o=1", "projects/my-proj/traces/" + id, "ffffffffffffffff", true},
		{"not sampled", "my-proj", id + "/255;o=0", "projects/my-proj/traces/" + id, "00000000000000ff", false},
		{"no options", "my-proj", id + "/255", "projects/my-proj/traces/" + id, "00000000000000ff", false},
		{"trace only", "my-proj", id, "projects/my-proj/traces/" + id, "", false},
		{"upper-case hex normalised", "my-proj", strings.ToUpper(id) + "/2", "projects/my-proj/traces/" + id, "0000000000000002", false},
		{"domain-scoped project", "example.com:p", id, "projects/example.com:p/traces/" + id, "", false},
		{"empty header", "my-proj", "", "", "", false},
		{"short trace id", "my-proj", "abc/1;o=1", "", "", false},
		{"non-hex trace id", "my-proj", strings.Repeat("g", 32) + "/1", "", "", false},
		{"all-zero trace id", "my-proj", strings.Repeat("0", 32) + "/1", "", "", false},
		{"non-numeric span", "my-proj", id + "/abc;o=1", "", "", false},
		{"negative span", "my-proj", id + "/-1", "", "", false},
		{"span overflows", "my-proj", id + "/18446744073709551616", "", "", false},
		{"unknown options", "my-proj", id + "/1;o=2", "", "", false},
		{"injection attempt", "my-proj", id + "/1;o=1\n{\"severity\":\"ERROR\"}", "", "", false},
		{"empty project", "", id + "/1;o=1", "", "", false},
		{"project with slash", "a/b", id + "/1;o=1", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			ctx := cloudlog.WithTrace(context.Background(), tt.project, tt.header)
			cloudlog.New(&buf, slog.LevelInfo).InfoContext(ctx, "m")
			m := decodeOne(t, buf.Bytes())
			gotTrace, hasTrace := m["logging.googleapis.com/trace"]
			if tt.trace == "" {
				if hasTrace {
					t.Fatalf("trace = %v, want none for header %q", gotTrace, tt.header)
				}
				return
			}
			if gotTrace != tt.trace {
				t.Errorf("trace = %v, want %s", gotTrace, tt.trace)
			}
			gotSpan, hasSpan := m["logging.googleapis.com/spanId"]
			if tt.span == "" && hasSpan || tt.span != "" && gotSpan != tt.span {
				t.Errorf("spanId = %v, want %q", gotSpan, tt.span)
			}
			if got := m["logging.googleapis.com/trace_sampled"]; got != tt.sampled {
				t.Errorf("trace_sampled = %v, want %v", got, tt.sampled)
			}
		})
	}
}

func TestTraceSurvivesGroups(t *testing.T) {
	var buf bytes.Buffer
	ctx := cloudlog.WithTrace(context.Background(), "p", "4bf92f3577b34da6a3ce929d0e0e4736/7;o=1")
	cloudlog.New(&buf, slog.LevelInfo).WithGroup("g").InfoContext(ctx, "m", "a", 1)
	m := decodeOne(t, buf.Bytes())
	if m["logging.googleapis.com/trace"] != "projects/p/traces/4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("trace not at the top level under a group: %s", buf.Bytes())
	}
}

func TestValuesCannotBreakTheLine(t *testing.T) {
	nasty := "line1\nline2\r\n\"quoted\"\t\\ \u2028 {\"severity\":\"ERROR\"} \x00\x1b[31m \xff"
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		key  string // field that must hold nasty
	}{
		{"attribute value", func(l *slog.Logger) { l.Info("m", "v", nasty) }, "v"},
		{"message", func(l *slog.Logger) { l.Info(nasty) }, "message"},
		{"attribute key", func(l *slog.Logger) { l.Info("m", nasty, "x") }, ""},
		{"with attrs value", func(l *slog.Logger) { l.With("v", nasty).Info("m") }, "v"},
		{"group name", func(l *slog.Logger) { l.WithGroup(nasty).Info("m", "a", 1) }, ""},
		{"error value", func(l *slog.Logger) { l.Info("m", "v", errors.New(nasty)) }, "v"},
	}
	// json.Marshal replaces the invalid byte with U+FFFD.
	want := strings.ToValidUTF8(nasty, "\uFFFD")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(cloudlog.New(&buf, slog.LevelInfo))
			if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 1 {
				t.Fatalf("wrote %d newlines, want 1: %q", n, buf.Bytes())
			}
			m := decodeOne(t, buf.Bytes())
			if m["severity"] != "INFO" {
				t.Errorf("severity = %v, want INFO", m["severity"])
			}
			if tt.key != "" && m[tt.key] != want {
				t.Errorf("%s = %q, want %q", tt.key, m[tt.key], want)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	var buf bytes.Buffer // not safe itself: the handler serialises writes
	base := cloudlog.New(&buf, slog.LevelInfo)
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		l := base.With("g", g) // derived handlers share the lock
		wg.Go(func() {
			for i := range each {
				l.Info("m", "i", i, "pad", strings.Repeat("x", 200))
			}
		})
	}
	wg.Wait()
	if ms := decodeLines(t, buf.Bytes()); len(ms) != goroutines*each {
		t.Errorf("got %d records, want %d", len(ms), goroutines*each)
	}
}

// TestSlogConformance runs the standard library's handler test suite, with
// Cloud Logging's names mapped back to slog's.
func TestSlogConformance(t *testing.T) {
	var buf bytes.Buffer
	slogtest.Run(t,
		func(*testing.T) slog.Handler {
			buf.Reset()
			return cloudlog.NewHandler(&buf, slog.LevelDebug)
		},
		func(t *testing.T) map[string]any {
			m := decodeOne(t, buf.Bytes())
			m[slog.LevelKey] = m["severity"]
			m[slog.MessageKey] = m["message"]
			delete(m, "severity")
			delete(m, "message")
			return m
		})
}
