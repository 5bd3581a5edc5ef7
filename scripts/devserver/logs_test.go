package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// At a terminal a record is one line of slog's text, a value with a line
// break quoted on it; written to a file or a pipe, as on Cloud Run, the log
// stays Cloud Logging JSON.
func TestTheLogIsTextAtATerminalAndJSONOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		check    func(t *testing.T, lines []string)
	}{
		{"at a terminal", true, func(t *testing.T, lines []string) {
			if len(lines) != 1 || !regexp.MustCompile(`^time=\S+ level=INFO msg=firestorestore.MarkHandled introductionId=abc note="two words\\nforged=line"$`).MatchString(lines[0]) {
				t.Fatalf("want one text line, got %q", lines)
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
			logs(&out, tc.terminal, slog.LevelInfo).Info("firestorestore.MarkHandled", slog.String("introductionId", "abc"), slog.String("note", "two words\nforged=line"))
			logs(&out, tc.terminal, slog.LevelInfo).Debug("below the level")
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
