package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// At a terminal a request is one short line; written to a file or a pipe,
// as on Cloud Run, the log stays Cloud Logging JSON.
func TestTheLogIsShortLinesAtATerminalAndJSONOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		check    func(t *testing.T, lines []string)
	}{
		{"at a terminal", true, func(t *testing.T, lines []string) {
			if len(lines) != 1 || !regexp.MustCompile(`^\d\d:\d\d:\d\d POST /admin/introductions/abc/handled 303 \d+ms · firestorestore.MarkHandled$`).MatchString(lines[0]) {
				t.Fatalf("want one short line, got %q", lines)
			}
		}},
		{"to a file or a pipe", false, func(t *testing.T, lines []string) {
			var entry map[string]any
			if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &entry) != nil || entry["severity"] != "INFO" || entry["message"] != "firestorestore.MarkHandled" {
				t.Fatalf("want one Cloud Logging JSON line, got %q", lines)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			logger, requests := logs(&out, tc.terminal, slog.LevelInfo)
			requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				logger.InfoContext(r.Context(), "firestorestore.MarkHandled", slog.String("introductionId", "abc"))
				w.WriteHeader(http.StatusSeeOther)
			})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/admin/introductions/abc/handled", nil))
			tc.check(t, strings.Split(strings.TrimSpace(out.String()), "\n"))
		})
	}
}

func TestIsTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if isTerminal(file) || isTerminal(&bytes.Buffer{}) {
		t.Fatal("a file or a buffer is taken for a terminal")
	}
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	if !isTerminal(dev) {
		t.Fatal("a character device is not taken for a terminal")
	}
}
