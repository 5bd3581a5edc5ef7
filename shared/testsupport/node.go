package testsupport

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SkipOrFail skips the test, or fails it when CI is set.
func SkipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// RepoRoot returns the directory above the test's holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// AltchaClient returns node and scripts/js/altcha-solve.mjs, an independent
// ALTCHA client reading a challenge on stdin and writing the payload.
func AltchaClient(t testing.TB) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		SkipOrFail(t, "node is not installed: %v", err)
	}
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "scripts", "js", "node_modules", "altcha-lib", "package.json")); err != nil {
		SkipOrFail(t, "scripts/js/node_modules has no altcha-lib (make test runs npm ci there): %v", err)
	}
	return node, filepath.Join(root, "scripts", "js", "altcha-solve.mjs")
}
