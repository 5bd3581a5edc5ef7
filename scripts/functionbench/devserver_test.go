package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/intakeflow"
)

// TestDevserverBenchRunsToItsEnd is make bench's start-up and memory step
// run once, small: the dev server built, one start timed, and one draft
// more than a source keeps before it owes escalated work. A feature that
// stops the benchmark fails here, not only in make bench.
func TestDevserverBenchRunsToItsEnd(t *testing.T) {
	emulatortest.Host(t)
	dir := t.TempDir()
	for _, pkg := range []string{"../devserver", "."} {
		if out, err := exec.Command("go", "build", "-o", dir, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	drafts := intakeflow.FreeDrafts + 1
	out, err := exec.Command(filepath.Join(dir, "functionbench"), "-devserver", filepath.Join(dir, "devserver"),
		"-drafts", fmt.Sprint(drafts), "-runs", "1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "start to first answer: devserver") || !strings.Contains(string(out), fmt.Sprintf("after %d drafts", drafts)) {
		t.Fatalf("functionbench -devserver: %v\n%s", err, out)
	}
}
