package altchapow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// TestInteropAltchaLibJS has a client we did not write, npm altcha-lib's
// v1 solver (scripts/js/altcha-solve.mjs), solve challenges we issue, and
// verifies its payloads.
func TestInteropAltchaLibJS(t *testing.T) {
	node, script := testsupport.AltchaClient(t)
	ring := newRing(t, map[string]byte{"3": 'c'}, "3")
	pow := newPoW(t, ring, t0, 21)

	tests := []struct {
		name      string
		params    url.Values
		camelCase bool // send "maxNumber" instead of "maxnumber"
	}{
		{name: "plain challenge", params: nil},
		{name: "challenge with extra params", params: url.Values{"form": {"introduction"}, "v": {"2026-11-30"}}},
		{name: "challenge with maxNumber", params: nil, camelCase: true},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pow.Issue(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			in, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if tt.camelCase {
				in = bytes.Replace(in, []byte(`"maxnumber"`), []byte(`"maxNumber"`), 1)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script)
			cmd.Stdin = bytes.NewReader(in)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("altcha-solve.mjs: %v\n%s", err, stderr.String())
			}
			payload := strings.TrimSuffix(string(out), "\n")

			spent, err := pow.Verify(payload)
			if err != nil {
				t.Fatalf("Verify(altcha-lib's payload %q) error: %v", payload, err)
			}
			if !spent.ExpireAt.Equal(t0.Add(10 * time.Minute)) {
				t.Errorf("ExpireAt = %v, want %v", spent.ExpireAt, t0.Add(10*time.Minute))
			}
			if seen[spent.Key] {
				t.Errorf("key %s named an earlier challenge", spent.Key)
			}
			seen[spent.Key] = true

			// The same payload is refused once the challenge has expired.
			late := newPoW(t, ring, t0.Add(time.Hour), 22)
			if _, err := late.Verify(payload); intake.CodeOf(err) != intake.CodePowExpired {
				t.Errorf("Verify() an hour later = %v, want %s", err, intake.CodePowExpired)
			}
		})
	}
}
