package introductions

import (
	"os"
	"regexp"
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
