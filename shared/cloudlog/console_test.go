package cloudlog

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestConsoleWritesOneShortLinePerRequest(t *testing.T) {
	var out bytes.Buffer
	c := NewConsole(&out, nil)
	clock := time.Date(2026, 12, 2, 9, 30, 5, 0, time.UTC)
	c.now = func() time.Time { clock = clock.Add(12 * time.Millisecond); return clock }
	log := c.Logger()
	h := c.Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "firestorestore.confirm", slog.String("introductionId", "abc"))
		log.InfoContext(r.Context(), "delivery: attempted", slog.Bool("sent", true))
		log.DebugContext(r.Context(), "below the level")
		w.WriteHeader(http.StatusCreated)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/api/introductions/abc/confirmation?email=canary@example.org", nil))
	got := out.String()
	want := "09:30:05 POST /api/introductions/abc/confirmation 201 12ms · firestorestore.confirm, delivery: attempted\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if strings.Contains(got, "canary") || strings.Contains(got, "{") {
		t.Fatalf("the line holds the query or JSON: %q", got)
	}
}

func TestConsoleWarningsAndRecordsOutsideARequestHaveTheirOwnLine(t *testing.T) {
	var out bytes.Buffer
	c := NewConsole(&out, slog.LevelInfo)
	log := c.Logger().With(slog.String("function", "sweep"))
	h := c.Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.WarnContext(r.Context(), "admin: request failed", slog.String("code", "NOT_FOUND"))
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/admin/x", nil))
	log.LogAttrs(context.Background(), slog.LevelInfo, "sweep: done", slog.Group("counts", slog.Int("deleted", 3)), slog.String("note", "two words\nforged=line"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %d:\n%s", len(lines), out.String())
	}
	for i, want := range []string{
		"WARNING admin: request failed function=sweep code=NOT_FOUND",
		"GET /admin/x 200",
		`INFO    sweep: done function=sweep counts.deleted=3 note="two words\nforged=line"`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to hold %q", i, lines[i], want)
		}
	}
}
