package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTheReadmeNamesEveryVariable: the first column of README.md's table
// names exactly the variables Load reads (Variables), each once.
func TestTheReadmeNamesEveryVariable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (`[A-Z][A-Z0-9_]*`(?:, `[A-Z][A-Z0-9_]*`)*) \\|")
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	var named []string
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			if slices.Contains(named, n[1]) {
				t.Errorf("README.md names %s twice", n[1])
			}
			named = append(named, n[1])
		}
	}
	read := Variables()
	for _, v := range read {
		if !slices.Contains(named, v) {
			t.Errorf("Load reads %s, which README.md's table does not name", v)
		}
	}
	for _, v := range named {
		if !slices.Contains(read, v) {
			t.Errorf("README.md's table names %s, which Load does not read", v)
		}
	}
	if len(read) < 30 {
		t.Fatalf("Variables() = %s", strings.Join(read, " "))
	}
}
