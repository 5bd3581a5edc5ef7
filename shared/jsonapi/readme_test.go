package jsonapi

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

// TestEveryCodeIsInTheReadmeTable reads the table of refusals of functions/README.md and
// checks that every problem code this package answers with stands in the
// row of its HTTP status, and that it lists no other.
func TestEveryCodeIsInTheReadmeTable(t *testing.T) {
	readme, err := os.ReadFile("../../functions/README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d{3}) \\| (.*) \\|$")
	code := regexp.MustCompile("`([A-Z][A-Z_]+)`")
	documented := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		status, _ := strconv.Atoi(m[1])
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			documented[c[1]] = status
		}
	}
	if len(documented) == 0 {
		t.Fatal("no table of refusals found in functions/README.md")
	}
	for c, status := range statusOf {
		if got, ok := documented[string(c)]; !ok || got != status {
			t.Errorf("code %s (status %d): functions/README.md table row %d (listed %v)", c, status, got, ok)
		}
	}
	for c := range documented {
		if _, ok := statusOf[intake.Code(c)]; !ok {
			t.Errorf("functions/README.md documents %s, which no refusal answers", c)
		}
	}
}
