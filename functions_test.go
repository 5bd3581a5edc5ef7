package introductions

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
)

// TestMain doubles as the Functions Framework server of one entry point when
// the registration test starts this binary again with FUNCTION_TARGET set.
func TestMain(m *testing.M) {
	if os.Getenv("INTRODUCTIONS_SERVE_FUNCTION") != "" {
		if err := funcframework.StartHostPort("127.0.0.1", os.Getenv("PORT")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestEveryEntryPointIsRegistered starts the real Functions Framework with
// FUNCTION_TARGET set to each entry point, as Cloud Run does, and checks
// that our handler (not the framework's "no matching function") answers.
func TestEveryEntryPointIsRegistered(t *testing.T) {
	probes := map[string]struct {
		method, path string
		status       int
		want         string
	}{
		"Challenge":    {"GET", "/api/introductions/challenge", 200, `"maxnumber"`},
		"Forms":        {"GET", "/api/forms/introduction", 200, `"formVersion"`},
		"Drafts":       {"GET", "/api/introductions", 405, `"METHOD_NOT_ALLOWED"`},
		"Confirmation": {"GET", "/api/introductions/x/confirmation", 405, `"METHOD_NOT_ALLOWED"`},
	}
	if len(probes) != len(EntryPoints) {
		t.Fatalf("%d entry points registered, %d probed", len(EntryPoints), len(probes))
	}
	for name, p := range probes {
		t.Run(name, func(t *testing.T) {
			if _, ok := EntryPoints[name]; !ok {
				t.Fatalf("%s is not an entry point", name)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
			ln.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "INTRODUCTIONS_SERVE_FUNCTION=1", "FUNCTION_TARGET="+name, "PORT="+port,
				"FIRESTORE_EMULATOR_HOST=127.0.0.1:1", "FIRESTORE_PROJECT=registration-test", "HMAC_SECRET=")
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			var resp *http.Response
			for i := 0; i < 100; i++ {
				req, _ := http.NewRequest(p.method, "http://127.0.0.1:"+port+p.path, nil)
				if resp, err = http.DefaultClient.Do(req); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("the function did not start: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != p.status || !strings.Contains(string(body), p.want) {
				t.Fatalf("%s %s: %d %s", p.method, p.path, resp.StatusCode, body)
			}
		})
	}
}
