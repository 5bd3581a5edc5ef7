package introductions

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	"github.com/ownersite/introductions/functions/wiring"
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
// FUNCTION_TARGET set to each function of the route table, as Cloud Run
// does, and checks that our handler (not the framework's "no matching
// function") answers each of its routes: a PATCH, which no route takes, is
// answered 405 problem+json by the function's own route set.
func TestEveryEntryPointIsRegistered(t *testing.T) {
	type probe struct{ method, path string }
	probes := map[string][]probe{}
	for _, fn := range Functions {
		for _, pattern := range fn.Patterns() {
			_, path, _ := strings.Cut(pattern, " ")
			path = strings.ReplaceAll(path, "{$}", "")
			path = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "x")
			probes[fn.Name] = append(probes[fn.Name], probe{"PATCH", path})
		}
	}
	if len(probes) != len(Functions) || len(probes) != len(wiring.Accesses()) {
		t.Fatalf("%d functions, %d with routes, %d access rows", len(Functions), len(probes), len(wiring.Accesses()))
	}
	for name, ps := range probes {
		t.Run(name, func(t *testing.T) {
			port := freePort(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "INTRODUCTIONS_SERVE_FUNCTION=1", "FUNCTION_TARGET="+name, "PORT="+port,
				"FIRESTORE_EMULATOR_HOST=127.0.0.1:1", "FIRESTORE_PROJECT=registration-test", "HMAC_SECRET=")
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			for _, p := range ps {
				var resp *http.Response
				var err error
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
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 405 || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(body), `"METHOD_NOT_ALLOWED"`) {
					t.Fatalf("%s %s: %d %s", p.method, p.path, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestEachFunctionHasItsEntryPackage: the functions are exactly the rows
// of wiring.Accesses, in its order, and each has its folder
// functions/<key>/ whose entry package (the directory scripts/deploy.sh
// makes the function's archive from) registers it.
func TestEachFunctionHasItsEntryPackage(t *testing.T) {
	var names, want []string
	for _, fn := range Functions {
		names = append(names, fn.Name)
		want = append(want, filepath.Join("functions", Key(fn.Name), "entry"))
	}
	for i, a := range wiring.Accesses() {
		if i >= len(names) || names[i] != a.Function {
			t.Fatalf("functions %q, access rows %v", names, wiring.Accesses())
		}
	}
	dirs, err := filepath.Glob("functions/*/entry")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Sort(want); !slices.Equal(dirs, want) {
		t.Fatalf("entry package directories %q, want %q", dirs, want)
	}
	for _, fn := range Functions {
		src, err := os.ReadFile(filepath.Join("functions", Key(fn.Name), "entry", "entry.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "functions.HTTP(Function.Name, ") {
			t.Errorf("functions/%s/entry does not register its Function", Key(fn.Name))
		}
	}
	if Key("DeliveryEvents") != "delivery-events" || Key("Admin") != "admin" {
		t.Errorf("Key(DeliveryEvents) = %q, Key(Admin) = %q", Key("DeliveryEvents"), Key("Admin"))
	}
}

// TestPublicFunctionsOpenNoDatabase runs Challenge and Forms as the
// buildpack runs them, with FIRESTORE_EMULATOR_HOST pointing at a listener
// of the test's: each answers its route, and neither connects to the
// listener, while answering or in the two seconds after (when a
// background sweep would start).
func TestPublicFunctionsOpenNoDatabase(t *testing.T) {
	for name, path := range map[string]string{"Challenge": "/api/introductions/challenge", "Forms": "/api/forms/introduction"} {
		t.Run(name, func(t *testing.T) {
			database, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer database.Close()
			var connections atomic.Int32
			go func() {
				for {
					c, err := database.Accept()
					if err != nil {
						return
					}
					connections.Add(1)
					c.Close()
				}
			}()
			port := freePort(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "INTRODUCTIONS_SERVE_FUNCTION=1", "FUNCTION_TARGET="+name, "PORT="+port,
				"FIRESTORE_EMULATOR_HOST="+database.Addr().String(), "FIRESTORE_PROJECT=no-database-test", "HMAC_SECRET=")
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			var resp *http.Response
			for range 100 {
				if resp, err = http.Get("http://127.0.0.1:" + port + path); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("the function did not start: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d", path, resp.StatusCode)
			}
			time.Sleep(2 * time.Second)
			if n := connections.Load(); n != 0 {
				t.Fatalf("%s connected to the database %d times", name, n)
			}
		})
	}
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}
