package introductions

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	for _, name := range wiring.Functions() {
		for _, pattern := range wiring.Patterns(name) {
			_, path, _ := strings.Cut(pattern, " ")
			path = strings.ReplaceAll(path, "{$}", "")
			path = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "x")
			probes[name] = append(probes[name], probe{"PATCH", path})
		}
	}
	registered := slices.Collect(maps.Values(EntryPoints))
	if len(probes) != len(registered) || len(probes) == 0 {
		t.Fatalf("%d entry points registered, %d functions in the route table", len(EntryPoints), len(probes))
	}
	for name, ps := range probes {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(registered, name) {
				t.Fatalf("%s is not an entry point", name)
			}
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

// TestEachFunctionHasItsEntryPackage: the entry packages are exactly the
// route table's functions, each in entrypoints/<its key in EntryPoints>
// (the directory scripts/deploy.sh makes the function's archive from),
// registering its own name.
func TestEachFunctionHasItsEntryPackage(t *testing.T) {
	if got, want := slices.Sorted(maps.Values(EntryPoints)), slices.Sorted(slices.Values(wiring.Functions())); !slices.Equal(got, want) {
		t.Fatalf("entry points %q, route table's functions %q", got, want)
	}
	dirs, err := filepath.Glob("entrypoints/*")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for key := range EntryPoints {
		want = append(want, filepath.Join("entrypoints", key))
	}
	if slices.Sort(want); !slices.Equal(dirs, want) {
		t.Fatalf("entry package directories %q, want %q", dirs, want)
	}
	for key, name := range EntryPoints {
		src, err := os.ReadFile(filepath.Join("entrypoints", key, key+".go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "const Name = "+strconv.Quote(name)+"\n") {
			t.Errorf("entrypoints/%s does not register %s as its Name", key, name)
		}
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
