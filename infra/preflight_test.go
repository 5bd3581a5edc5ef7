package infra_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// deployCopy copies what deploy.sh's dry run reads into a temporary
// directory laid out as the repository: the script, go.mod, the entry
// packages' directories and infra/'s inputs and example. What the
// pre-flight looks for beyond a fresh clone is added by the fixture's
// options. It returns the copy's root.
func deployCopy(t *testing.T, opts ...func(root string)) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"scripts/deploy.sh", "go.mod", "infra/variables.tf", "infra/terraform.tfvars.example"} {
		write(t, filepath.Join(root, f), string(must(os.ReadFile(filepath.Join("..", f)))))
	}
	os.Chmod(filepath.Join(root, "scripts/deploy.sh"), 0o755)
	for _, key := range entryKeys(t) {
		write(t, filepath.Join(root, "functions", key, "entry", "doc.go"), "package entry\n")
	}
	for _, o := range opts {
		o(root)
	}
	return root
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The fixture's options: each adds one thing the pre-flight checks.
var (
	withTfvars = func(root string) {
		b := must(os.ReadFile(filepath.Join(root, "infra/terraform.tfvars.example")))
		must(0, os.WriteFile(filepath.Join(root, "infra/terraform.tfvars"), b, 0o644))
	}
	withInit = func(root string) {
		must(0, os.MkdirAll(filepath.Join(root, "infra/.terraform/providers"), 0o755))
	}
	withLock = func(root string) {
		must(0, os.WriteFile(filepath.Join(root, "infra/.terraform.lock.hcl"), []byte("# lock\n"), 0o644))
	}
)

// gcloudStub is a gcloud that records its calls in calls and answers the
// pre-flight's two read-only questions: the pepper's version is ENABLED,
// and each secret has a version, but for the secrets named in without.
func gcloudStub(t *testing.T, without ...string) (bin, calls string) {
	t.Helper()
	bin = t.TempDir()
	calls = filepath.Join(bin, "gcloud-calls")
	var missing strings.Builder
	for _, s := range without {
		// No version: list answers nothing; describe fails.
		fmt.Fprintf(&missing, "secrets\\ versions\\ list\\ %s\\ *) ;;\n*--secret=%s\\ *) exit 1 ;;\n", s, s)
	}
	stub := fmt.Sprintf(`#!/bin/sh
echo "$*" >>%s
case "$*" in
%ssecrets\ versions\ describe*) echo ENABLED ;;
secrets\ versions\ list*) echo projects/p/secrets/s/versions/1 ;;
*) exit 2 ;;
esac
`, calls, missing.String())
	write(t, filepath.Join(bin, "gcloud"), stub)
	os.Chmod(filepath.Join(bin, "gcloud"), 0o755)
	return bin, calls
}

// TestDeployPreflight runs the dry run on copies of the repository, from a
// fresh clone to a project ready to deploy: each missing piece stops it
// with one sentence naming it and the command that fixes it, and gcloud is
// asked only once everything local is there, never to change anything.
func TestDeployPreflight(t *testing.T) {
	bash := requireTool(t, "bash")
	all := []func(string){withTfvars, withInit, withLock}
	tests := []struct {
		name      string
		opts      []func(string)
		adc       bool
		without   []string // secrets gcloud finds no version of
		edit      func(tfvars string) string
		want      []string // in the one sentence; nil: the pre-flight passes
		gcloudRan bool
	}{
		{name: "a fresh clone", want: []string{"infra/terraform.tfvars is missing", "cp infra/terraform.tfvars.example infra/terraform.tfvars"}},
		{name: "an input left out", opts: all, adc: true, edit: func(s string) string {
			return strings.Replace(strings.Replace(s, "owner_email ", "# owner_email ", 1), "smtp = {", "mail = {", 1)
		}, want: []string{"does not set owner_email smtp", "terraform.tfvars.example"}},
		{name: "before terraform init", opts: []func(string){withTfvars}, want: []string{"terraform init has not run", "terraform -chdir=infra init"}},
		{name: "no lock file", opts: []func(string){withTfvars, withInit}, want: []string{"infra/.terraform.lock.hcl is missing", "terraform -chdir=infra providers lock", "commit it"}},
		{name: "no credentials", opts: all, want: []string{"no application default credentials", "gcloud auth application-default login"}},
		{name: "no pepper", opts: all, adc: true, without: []string{"intake-hash-pepper"}, gcloudRan: true,
			want: []string{"intake-hash-pepper", "has no version 1", "gcloud secrets versions add intake-hash-pepper --project=my-site-intro"}},
		{name: "the SMTP password has no version", opts: all, adc: true, without: []string{"intake-smtp-password"}, gcloudRan: true,
			want: []string{"intake-smtp-password", "gcloud secrets versions add intake-smtp-password --project=my-site-intro"}},
		{name: "mail without login needs no password", opts: all, adc: true, without: []string{"intake-smtp-password"}, gcloudRan: true,
			edit: func(s string) string { return strings.Replace(s, "username =", "# username =", 1) }},
		{name: "ready", opts: all, adc: true, gcloudRan: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := deployCopy(t, tt.opts...)
			if tt.edit != nil {
				p := filepath.Join(root, "infra/terraform.tfvars")
				write(t, p, tt.edit(string(must(os.ReadFile(p)))))
			}
			home := t.TempDir()
			if tt.adc {
				write(t, filepath.Join(home, ".config/gcloud/application_default_credentials.json"), "{}")
			}
			gbin, gcalls := gcloudStub(t, tt.without...)
			path, calls := recordingTools(t, 3, "terraform", "zip", "go")
			env := []string{"PATH=" + gbin + string(os.PathListSeparator) + path, "HOME=" + home, "TMPDIR=" + t.TempDir()}
			stdout, stderr, err := run(t, root, env, bash, "scripts/deploy.sh", "--dry-run")
			if b, rerr := os.ReadFile(calls); rerr == nil {
				t.Fatalf("the dry run called a tool: %s", b)
			}
			asked, _ := os.ReadFile(gcalls)
			if (len(asked) > 0) != tt.gcloudRan {
				t.Errorf("gcloud asked: %q, want asked %v", asked, tt.gcloudRan)
			}
			for _, call := range strings.Split(strings.TrimSpace(string(asked)), "\n") {
				if call != "" && !strings.HasPrefix(call, "secrets versions list ") && !strings.HasPrefix(call, "secrets versions describe ") {
					t.Errorf("gcloud was asked %q: the pre-flight only reads secrets' versions", call)
				}
			}
			if tt.want == nil {
				if err != nil || !strings.Contains(stderr, "pre-flight passed") || !strings.Contains(stdout, "terraform -chdir=infra apply") {
					t.Fatalf("err %v, stderr %q, stdout %q; want the pre-flight to pass and the commands printed", err, stderr, stdout)
				}
				return
			}
			if err == nil {
				t.Fatalf("the dry run passed; want it to stop with %q", tt.want)
			}
			line := strings.TrimSpace(stderr)
			if strings.Count(line, "\n") != 0 || stdout != "" {
				t.Errorf("want one sentence on stderr and nothing on stdout, got stderr %q, stdout %q", stderr, stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("stderr %q lacks %q", line, w)
				}
			}
		})
	}
}

// TestTheExampleTfvarsSetsWhatIsRequired: the example parses as HCL, sets
// every input without a default (but the archives' directory, which
// deploy.sh passes) and the owner's email (smtp), and names only declared
// inputs.
func TestTheExampleTfvarsSetsWhatIsRequired(t *testing.T) {
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclparse.NewParser().ParseHCLFile("terraform.tfvars.example")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	set := f.Body.(*hclsyntax.Body).Attributes
	for name := range set {
		if c.variable(name) == nil {
			t.Errorf("the example sets %s, which infra/ does not declare", name)
		}
	}
	for _, b := range c.blocks {
		if b.Type != "variable" || b.Labels[0] == "source_dir" {
			continue
		}
		_, hasDefault := b.Body.Attributes["default"]
		if _, ok := set[b.Labels[0]]; !ok && (!hasDefault || b.Labels[0] == "smtp") {
			t.Errorf("the example does not set %s", b.Labels[0])
		}
	}
}

// TestTheLockFileIsMadeOneWay: infra/README.md (its deploying steps and
// its lock file section) and the pre-flight's sentence give the same
// command for the lock file.
func TestTheLockFileIsMadeOneWay(t *testing.T) {
	lock := regexp.MustCompile(`terraform -chdir=infra providers lock[^\n\x60\\]*`)
	var want string
	for _, f := range []string{"../scripts/deploy.sh", "README.md"} {
		got := lock.FindAllString(string(must(os.ReadFile(f))), -1)
		if len(got) == 0 {
			t.Errorf("%s does not say how the lock file is made", f)
		}
		for _, g := range got {
			g = strings.TrimSpace(g)
			if want == "" {
				want = g
			} else if g != want {
				t.Errorf("%s says %q, but %q elsewhere", f, g, want)
			}
		}
	}
}
