package importrules

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ownersite/introductions"

// pure lists the packages that must not reach a cloud SDK or gRPC, even
// through another package. Add a new domain, logic or rule package here.
var pure = []string{
	"shared/altchapow",
	"shared/attachment",
	"shared/checks",
	"shared/cloudlog",
	"shared/config",
	"shared/contentrules",
	"shared/floodlimit",
	"shared/formregistry",
	"shared/intake",
	"shared/intakeflow",
	"shared/jsonapi",
	"shared/keyring",
	"shared/mailgun",
	"shared/delivery",
	"shared/retentionsweep",
	"shared/sitepage",
	"shared/smtpmail",
	"shared/spamsignals",
	"shared/strictjson",
	"shared/testsupport",
	"shared/textrules",
	"shared/webhook",
	"functions/confirmation",
	"functions/drafts",
	"functions/forms",
	"functions/delivery-events",
	"functions/admin",
	"functions/sweep",
}

// forbidden reports whether a pure package may not import path.
func forbidden(path string) bool {
	return strings.HasPrefix(path, "cloud.google.com/") ||
		path == "google.golang.org/grpc" || strings.HasPrefix(path, "google.golang.org/grpc/")
}

// graph maps an import path to the paths its non-test files import.
type graph map[string][]string

// violation returns the shortest import chain from pkg to a path for which
// bad is true, or nil when there is none.
func (g graph) violation(pkg string, bad func(string) bool) []string {
	prev := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if bad(p) {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range g[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

// load asks the go command for the imports of pkgs and everything they
// depend on (test files left out).
func load(t *testing.T, pkgs ...string) graph {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json=ImportPath,Imports"}, pkgs...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	g := graph{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		g[p.ImportPath] = p.Imports
	}
	return g
}

func TestPurePackagesImportNoCloudSDK(t *testing.T) {
	paths := make([]string, len(pure))
	for i, p := range pure {
		paths[i] = module + "/" + p
	}
	g := load(t, paths...)
	for _, p := range paths {
		if _, ok := g[p]; !ok {
			t.Errorf("%s is in the pure list but is not a package of the module", p)
			continue
		}
		if chain := g.violation(p, forbidden); chain != nil {
			t.Errorf("%s must not reach a cloud SDK or gRPC; it does through\n\t%s", p, strings.Join(chain, "\n\t-> "))
		}
	}
}

// light lists the packages a function without the database is built from:
// its entry package links them and nothing else of ours, so none may reach
// gRPC, protobuf or a Google Cloud client library, whose package init
// alone would double the function's start-up.
var light = []string{
	"functions/wiring",
	"functions/challenge/entry",
	"functions/forms/entry",
}

// TestLightFunctionsLinkWhatTheirRoutesUse: Challenge and Forms link at
// most 12 of the module's packages each, none of them the admin, the
// intake service, a delivery adapter or the Firestore store.
func TestLightFunctionsLinkWhatTheirRoutesUse(t *testing.T) {
	for _, entry := range light[1:] {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+entry).Output()
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for _, p := range strings.Fields(string(out)) {
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				ours = append(ours, rel)
			}
		}
		if len(ours) > 12 {
			t.Errorf("%s links %d of the module's packages, want at most 12: %q", entry, len(ours), ours)
		}
		for _, p := range []string{"functions/admin", "shared/intakeflow", "shared/delivery", "shared/webhook", "shared/smtpmail", "shared/mailgun", "shared/firestorestore", "functions/wiring/dbparts"} {
			if slices.Contains(ours, p) {
				t.Errorf("%s links %s", entry, p)
			}
		}
	}
}

// heavy reports whether a light package may not import path.
func heavy(path string) bool {
	for _, prefix := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "google.golang.org/api", "cloud.google.com/go/firestore", "cloud.google.com/go/secretmanager", "cloud.google.com/go/scheduler"} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}

func TestLightFunctionsLinkNoGRPC(t *testing.T) {
	paths := make([]string, len(light))
	for i, p := range light {
		paths[i] = module + "/" + p
	}
	g := load(t, paths...)
	for _, p := range paths {
		if _, ok := g[p]; !ok {
			t.Errorf("%s is in the light list but is not a package of the module", p)
			continue
		}
		if chain := g.violation(p, heavy); chain != nil {
			t.Errorf("%s must not reach gRPC, protobuf or a cloud client library; it does through\n\t%s", p, strings.Join(chain, "\n\t-> "))
		}
	}
}

// TestArrowsPointDown checks the direction of the layers (root -> entry
// packages -> dbparts -> functions -> wiring -> shared): shared packages
// import nothing under functions/; the wiring imports no function and not
// dbparts; a function imports no other function, no entry package and not
// dbparts; dbparts imports no entry package; an entry package imports no
// other entry package.
func TestArrowsPointDown(t *testing.T) {
	g := load(t, module+"/...")
	upward := func(from string) func(string) bool {
		return func(to string) bool {
			if to == from || !strings.HasPrefix(to, module+"/") {
				return false
			}
			from, rel := strings.TrimPrefix(from, module+"/"), strings.TrimPrefix(to, module+"/")
			entry := strings.HasSuffix(rel, "/entry")
			switch {
			case strings.HasPrefix(from, "shared/"):
				return strings.HasPrefix(rel, "functions/")
			case from == "functions/wiring":
				return strings.HasPrefix(rel, "functions/")
			case from == "functions/wiring/dbparts" || strings.HasSuffix(from, "/entry"):
				return entry
			case strings.HasPrefix(from, "functions/"):
				return strings.HasPrefix(rel, "functions/") && rel != "functions/wiring" && !strings.HasPrefix(rel, from+"/")
			}
			return false
		}
	}
	for p := range g {
		for _, q := range g[p] {
			if upward(p)(q) {
				t.Errorf("%s imports %s: arrows run root -> entry packages -> dbparts -> functions -> wiring -> shared", p, q)
			}
		}
	}
}

// TestViolation is the test of the test: on a made-up graph it finds the
// chain through which a pure package reaches gRPC, and none where there is
// none.
func TestViolation(t *testing.T) {
	g := graph{
		"m/domain":  {"errors", "m/keys"},
		"m/keys":    {"crypto/hmac", "m/loader"},
		"m/loader":  {"cloud.google.com/go/secretmanager/apiv1"},
		"m/rules":   {"m/domain2"},
		"m/domain2": {"strings"},
		"m/rpc":     {"google.golang.org/grpc/status"},
		"m/cycle":   {"m/cycle2"},
		"m/cycle2":  {"m/cycle"},
	}
	for _, tc := range []struct {
		pkg  string
		want []string
	}{
		{"m/domain", []string{"m/domain", "m/keys", "m/loader", "cloud.google.com/go/secretmanager/apiv1"}},
		{"m/rpc", []string{"m/rpc", "google.golang.org/grpc/status"}},
		{"m/rules", nil},
		{"m/cycle", nil},
	} {
		if got := g.violation(tc.pkg, forbidden); !slices.Equal(got, tc.want) {
			t.Errorf("violation(%s) = %q, want %q", tc.pkg, got, tc.want)
		}
	}
	for path, want := range map[string]bool{
		"google.golang.org/grpc": true, "google.golang.org/grpcx": false,
		"google.golang.org/protobuf/proto": false, "cloud.google.com/go/firestore": true,
	} {
		if forbidden(path) != want {
			t.Errorf("forbidden(%q) = %v, want %v", path, !want, want)
		}
	}
	for path, want := range map[string]bool{
		"google.golang.org/protobuf/proto": true, "google.golang.org/api/option": true, "cloud.google.com/go/secretmanager/apiv1": true,
		"cloud.google.com/go/compute/metadata": false, "golang.org/x/oauth2/google": false, "google.golang.org/grpcx": false,
	} {
		if heavy(path) != want {
			t.Errorf("heavy(%q) = %v, want %v", path, !want, want)
		}
	}
}
