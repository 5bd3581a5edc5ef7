package introductions

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTheReadmeNamesMakeRunsPorts checks that every port make run and the
// scripts it starts take from the environment (${NAME:-default}) is a row
// of the README's table of ports, with its default.
func TestTheReadmeNamesMakeRunsPorts(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	port := regexp.MustCompile(`\$\{((?:[A-Z_]+_)?PORT):-(\d+)\}`)
	found := 0
	for _, script := range []string{"scripts/run.sh", "scripts/emulator.sh", "scripts/maildev.sh"} {
		src, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range port.FindAllStringSubmatch(string(src), -1) {
			found++
			row := regexp.MustCompile("(?m)^\\| `" + m[1] + "` \\| `" + m[2] + "` \\|")
			if !row.Match(readme) {
				t.Errorf("%s reads %s (default %s), which the README's table of ports does not name", script, m[1], m[2])
			}
		}
	}
	if found < 4 {
		t.Fatalf("found %d ports in the scripts, want PORT, FIRESTORE_EMULATOR_PORT and MailDev's two", found)
	}
}

// TestTheReadmesTablesAreWhole fails when a Markdown table of the README
// (or another Markdown file next to the code) is interrupted: every run of
// lines starting with "|" outside a code block must be a whole table — a
// header, its |---| line, and rows of as many cells — so a paragraph or a
// blank line in a table's middle, which turns its rest into a paragraph
// of pipes, is caught.
func TestTheReadmesTablesAreWhole(t *testing.T) {
	for _, name := range []string{"README.md", "infra/README.md", "shared/sitepage/README.md", "functions/admin/README.md"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tableProblems(string(src)) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

func TestTableProblemsFindsAnInterruptedTable(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     int
	}{
		{"whole", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\ntext\n", 0},
		{"a paragraph in its middle", "| a | b |\n|---|---|\n| 1 | 2 |\n\nA paragraph.\n| 3 | 4 |\n", 1},
		{"a blank line in its middle", "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n", 1},
		{"a row short of cells", "| a | b |\n|---|---|\n| 1 |\n", 1},
		{"pipes in code", "```\n| not a table\n```\n", 0},
		{"an escaped pipe", "| a | b |\n|---|---|\n| x \\| y | 2 |\n", 0},
		{"a pipe in a code span splits it", "| a | b |\n|---|---|\n| `x | y` | 2 |\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tableProblems(tc.md); len(got) != tc.want {
				t.Fatalf("got %q, want %d problems", got, tc.want)
			}
		})
	}
}

// tableProblems lists the runs of table lines in md that are no whole table.
func tableProblems(md string) []string {
	var problems []string
	lines := strings.Split(md, "\n")
	separator := regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
	fenced := false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "|") {
			continue
		}
		start := i
		for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
			i++
		}
		run := lines[start:i]
		if len(run) < 2 || !separator.MatchString(strings.TrimSpace(run[1])) {
			problems = append(problems, fmt.Sprintf("line %d: table rows without a header and |---| line above them (is the table interrupted?): %.60q", start+1, run[0]))
			continue
		}
		want := cells(run[0])
		for j, row := range run[2:] {
			if n := cells(row); n != want {
				problems = append(problems, fmt.Sprintf("line %d: %d cells, the header has %d", start+3+j, n, want))
			}
		}
	}
	return problems
}

// cells counts a table row's cells: its unescaped pipes, less one. As on
// GitHub, a pipe splits cells inside a code span too, unless escaped.
func cells(row string) int {
	row = strings.TrimSpace(row)
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// TestTheReadmeServesANewcomer: the first screen names the Go version
// go.mod asks for; the README has the request's path, the glossary of the
// service's own words, how to change the form and what to do when a
// delivery fails.
func TestTheReadmeServesANewcomer(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("go.mod names no go version")
	}
	first, _, _ := strings.Cut(string(readme), "\n## ")
	if !strings.Contains(first, "Go "+string(goVersion[1])) || !strings.Contains(first, "`go "+string(goVersion[1])+string(goVersion[2])+"`") {
		t.Errorf("the README's first screen does not name Go %s (go.mod: go %s%s)", goVersion[1], goVersion[1], goVersion[2])
	}
	for _, heading := range []string{"## One request's path", "## Words this service uses", "## Changing the form", "## When a delivery fails"} {
		if !strings.Contains(string(readme), "\n"+heading+"\n") {
			t.Errorf("the README has no %q section", heading)
		}
	}
	for _, word := range []string{"draft", "attempt", "ledger entry", "envelope", "handoff", "decoy", "tally", "flood layer"} {
		if !regexp.MustCompile("(?m)^\\| " + word + " \\| .+ \\|$").Match(readme) {
			t.Errorf("the glossary does not define %q", word)
		}
	}
}
