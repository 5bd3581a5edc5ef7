package introductions

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
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

// TestTheReadmesTablesAreWhole fails when a Markdown table of any README
// of the repository is interrupted: every run of lines starting with "|"
// outside a code block must be a whole table — a header, its |---| line,
// and rows of as many cells — so a paragraph or a blank line in a table's
// middle, which turns its rest into a paragraph of pipes, is caught.
func TestTheReadmesTablesAreWhole(t *testing.T) {
	readmes := allReadmes(t)
	if len(readmes) < 10 {
		t.Fatalf("found %d READMEs: %v", len(readmes), readmes)
	}
	for _, name := range readmes {
		for _, p := range tableProblems(string(readFile(t, name))) {
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

// TestTheReadmeIsAFrontDoor: at most 2,500 words; the first screen names
// the Go version go.mod asks for; it has the layout, the request's path,
// the glossary of the service's own words and where to read next, and
// every file it sends the reader to exists. The sections that moved out
// live where it says.
func TestTheReadmeIsAFrontDoor(t *testing.T) {
	readme := string(readFile(t, "README.md"))
	if n := len(strings.Fields(readme)); n > 2500 {
		t.Errorf("README.md has %d words, the budget is 2,500", n)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindStringSubmatch(string(readFile(t, "go.mod")))
	if goVersion == nil {
		t.Fatal("go.mod names no go version")
	}
	first, _, _ := strings.Cut(readme, "\n## ")
	if !strings.Contains(first, "Go "+goVersion[1]) || !strings.Contains(first, "`go "+goVersion[1]+goVersion[2]+"`") {
		t.Errorf("the README's first screen does not name Go %s (go.mod: go %s%s)", goVersion[1], goVersion[1], goVersion[2])
	}
	for _, heading := range []string{"## The layout", "## One request's path", "## Words this service uses", "## Where to read next"} {
		if !strings.Contains(readme, "\n"+heading+"\n") {
			t.Errorf("the README has no %q section", heading)
		}
	}
	for _, word := range []string{"draft", "attempt", "ledger entry", "envelope", "handoff", "decoy", "tally", "flood layer"} {
		if !regexp.MustCompile("(?m)^\\| " + word + " \\| .+ \\|$").MatchString(readme) {
			t.Errorf("the glossary does not define %q", word)
		}
	}
	for _, f := range regexp.MustCompile("`([a-z]+(?:/[A-Za-z0-9_.-]+)+\\.(?:md|json))`").FindAllStringSubmatch(section(t, readme, "## Where to read next"), -1) {
		if _, err := os.Stat(f[1]); err != nil {
			t.Errorf("the README sends the reader to %s: %v", f[1], err)
		}
	}
	for file, heading := range map[string]string{
		"shared/formregistry/README.md": "## Changing the form",
		"shared/delivery/README.md":     "## When a delivery fails",
		"infra/README.md":               "## Deploying, from an empty project",
		"scripts/README.md":             "## Measuring",
		"functions/README.md":           "## The API",
	} {
		if !strings.Contains(string(readFile(t, file)), "\n"+heading+"\n") {
			t.Errorf("%s has no %q section", file, heading)
		}
	}
}

// TestTheLayoutTableIsTrue: every path the README's layout table names
// exists, and every top-level directory, every functions/* and every
// shared/* directory is named. A bare name in the first column belongs to
// the directory the nearest row above named (`functions/`, `shared/`).
func TestTheLayoutTableIsTrue(t *testing.T) {
	rows := tableRows(section(t, string(readFile(t, "README.md")), "## The layout"))
	if len(rows) < 10 {
		t.Fatalf("the layout table has %d rows", len(rows))
	}
	named := map[string]bool{}
	parent := ""
	for _, cells := range rows {
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[0], -1) {
			p := strings.TrimSuffix(m[1], "/")
			if strings.Contains(p, "/") || strings.HasSuffix(m[1], "/") || strings.Contains(p, ".") {
				if strings.HasSuffix(m[1], "/") {
					parent = p + "/"
				}
			} else {
				p = parent + p
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("the layout names %s: %v", p, err)
			}
			named[p] = true
		}
	}
	var want []string
	for _, dir := range []string{".", "functions", "shared"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			// bin/ holds make bench's binaries, ignored by git.
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" && !(dir == "." && e.Name() == "bin") {
				want = append(want, filepath.ToSlash(filepath.Join(dir, e.Name())))
			}
		}
	}
	for _, d := range want {
		if !named[d] {
			t.Errorf("the layout table does not name %s", d)
		}
	}
}

// TestTheRequestPathIsTrue: the packages of the README's request diagram
// are the rows of the table under it, in the order the diagram first names
// them, and each row is a Go package of the repository.
func TestTheRequestPathIsTrue(t *testing.T) {
	sec := section(t, string(readFile(t, "README.md")), "## One request's path")
	_, diagram, ok := strings.Cut(sec, "```text\n")
	diagram, _, ok2 := strings.Cut(diagram, "```")
	if !ok || !ok2 {
		t.Fatal("the request's path has no ```text diagram")
	}
	var table []string
	for _, cells := range tableRows(sec) {
		p := strings.Trim(cells[0], "` ")
		table = append(table, p)
		if gos, _ := filepath.Glob(filepath.Join(p, "*.go")); len(gos) == 0 {
			t.Errorf("the request's path names %s, which holds no Go package", p)
		}
	}
	packages := map[string]string{}
	for _, p := range table {
		packages[path.Base(p)] = p
	}
	for _, dir := range []string{"functions", "shared"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if _, seen := packages[e.Name()]; e.IsDir() && !seen {
				packages[e.Name()] = "" // a package the table lacks
			}
		}
	}
	var order []string
	seen := map[string]bool{}
	for _, word := range regexp.MustCompile(`[a-z]+`).FindAllString(diagram, -1) {
		p, isPackage := packages[word]
		if !isPackage || seen[word] {
			continue
		}
		seen[word] = true
		if p == "" {
			t.Errorf("the diagram names %s, which the table under it lacks", word)
			continue
		}
		order = append(order, p)
	}
	if !slices.Equal(order, table) {
		t.Errorf("the table lists\n%v\nbut the diagram names, in order,\n%v", table, order)
	}
}

// TestTheAPITablesAreTheRouteTable: every route of the route table
// (every function's rows) stands in the route tables of functions/README.md and
// functions/admin/README.md, and every route those tables name is served
// by a row of it.
func TestTheAPITablesAreTheRouteTable(t *testing.T) {
	mux := http.NewServeMux()
	served := map[string]bool{}
	for _, fn := range Functions {
		for _, pattern := range fn.Patterns() {
			served[pattern] = false
			mux.Handle(pattern, http.NotFoundHandler())
		}
	}
	route := regexp.MustCompile("`((?:GET|POST|PUT|DELETE|PATCH) /[^`\\s]*)")
	documented := 0
	for _, f := range []string{"functions/README.md", "functions/admin/README.md"} {
		for _, cells := range tableRows(string(readFile(t, f))) {
			for _, m := range route.FindAllStringSubmatch(cells[0], -1) {
				documented++
				method, target, _ := strings.Cut(m[1], " ")
				target, _, _ = strings.Cut(target, "?")
				target, _, _ = strings.Cut(target, "[")
				_, pattern := mux.Handler(httptest.NewRequest(method, target, nil))
				if pattern == "" {
					t.Errorf("%s names %s %s, which no row of the route table serves", f, method, target)
					continue
				}
				served[pattern] = true
			}
		}
	}
	if documented < 20 {
		t.Fatalf("found %d documented routes", documented)
	}
	for p, doc := range served {
		if !doc {
			t.Errorf("the route table serves %s, which neither functions/README.md nor functions/admin/README.md documents", p)
		}
	}
}

// allReadmes lists every README.md of the repository.
func allReadmes(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "README.md" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// section returns md's section under heading, up to the next heading of
// its level.
func section(t *testing.T, md, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no %q section", heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	return rest
}

// tableRows returns the cells of every body row of md's tables (header and
// |---| lines left out), outside code blocks.
func tableRows(md string) [][]string {
	var rows [][]string
	fenced := false
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|---") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|---") {
			continue // a header
		}
		rows = append(rows, strings.Split(strings.Trim(l, "|"), " | "))
	}
	return rows
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
