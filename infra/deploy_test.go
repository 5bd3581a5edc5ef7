package infra_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// run runs name with args in dir under env, with a timeout, and returns its
// standard output and error.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// recordingTools puts stubs of the named tools first on PATH: each records
// its arguments in dir/calls and exits with status.
func recordingTools(t *testing.T, status int, names ...string) (path, calls string) {
	t.Helper()
	bin := t.TempDir()
	calls = filepath.Join(bin, "calls")
	for _, n := range names {
		stub := fmt.Sprintf("#!/bin/sh\necho %s \"$@\" >>%s\nexit %d\n", n, calls, status)
		if err := os.WriteFile(filepath.Join(bin, n), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH"), calls
}

func deployScript(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "scripts", "deploy.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// splitCommand splits a line printed by deploy.sh's quote function.
func splitCommand(line string) []string {
	var args []string
	for _, f := range strings.Fields(line) {
		args = append(args, strings.ReplaceAll(strings.Trim(f, "'"), `'\''`, "'"))
	}
	return args
}

// entryKeys lists the entry packages, functions/<key>/entry: one archive each.
func entryKeys(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "functions", "*", "entry"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no entry packages: %v", err)
	}
	var keys []string
	for _, d := range dirs {
		keys = append(keys, filepath.Base(filepath.Dir(d)))
	}
	return keys
}

// TestDeployScriptRunsTerraform: the script is a thin wrapper: its dry run,
// once its pre-flight passes, lists each entry package's files and zips them into an archive of its
// own, then runs terraform apply in infra/ with the archives' directory as
// var.source_dir and the caller's options, calling nothing.
func TestDeployScriptRunsTerraform(t *testing.T) {
	bash := requireTool(t, "bash")
	script := deployScript(t)
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	keys := entryKeys(t)
	// A copy of the repository ready to deploy (TestDeployPreflight), whose
	// gcloud answers the pre-flight's questions.
	root := deployCopy(t, withTfvars, withInit, withLock)
	home := t.TempDir()
	write(t, filepath.Join(home, ".config/gcloud/application_default_credentials.json"), "{}")
	gbin, _ := gcloudStub(t)
	path, calls := recordingTools(t, 3, "terraform", "zip", "go")
	env := []string{"PATH=" + gbin + string(os.PathListSeparator) + path, "HOME=" + home, "TMPDIR=" + t.TempDir()}

	tests := []struct {
		name    string
		args    []string
		wantErr string // "" for success
	}{
		{name: "dry run", args: []string{"--dry-run"}},
		{name: "dry run with options", args: []string{"--dry-run", "-auto-approve", "-var-file=prod.tfvars"}},
		{name: "a function name", args: []string{"--dry-run", "sweep"}, wantErr: "unexpected argument sweep"},
		{name: "unknown flag", args: []string{"--dry-run", "--force"}, wantErr: "unknown flag"},
		{name: "stage without a directory", args: []string{"--stage"}, wantErr: "--stage needs a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := run(t, root, env, bash, append([]string{filepath.Join(root, "scripts/deploy.sh")}, tt.args...)...)
			if b, rerr := os.ReadFile(calls); rerr == nil {
				t.Fatalf("a tool was called: %s", b)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tt.wantErr) {
					t.Fatalf("err %v, stderr %q; want a failure mentioning %q", err, stderr, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) != 2*len(keys)+1 {
				t.Fatalf("dry run printed %d commands, want 2 for each of %d entry packages and terraform:\n%s", len(lines), len(keys), stdout)
			}
			var dir string
			for i, key := range keys {
				list, zipArgs := splitCommand(lines[2*i]), splitCommand(lines[2*i+1])
				if strings.Join(list[:5], " ") != "env GOOS=linux GOARCH=amd64 go list" || list[len(list)-1] != "./functions/"+key+"/entry" {
					t.Errorf("command %q, want go list of ./functions/%s/entry's files for linux", lines[2*i], key)
				}
				archive := zipArgs[len(zipArgs)-1]
				if zipArgs[0] != "zip" || filepath.Base(archive) != key+".zip" || (dir != "" && filepath.Dir(archive) != dir) {
					t.Errorf("command %q, want zip into <archives>/%s.zip", lines[2*i+1], key)
				}
				dir = filepath.Dir(archive)
			}
			apply := splitCommand(lines[len(lines)-1])
			if len(apply) < 4 || strings.Join(apply[:3], " ") != "terraform -chdir=infra apply" {
				t.Fatalf("last command %q, want terraform -chdir=infra apply …", lines[len(lines)-1])
			}
			var vars []string
			for _, a := range apply[3:] {
				if v, ok := strings.CutPrefix(a, "-var="); ok {
					name, value, _ := strings.Cut(v, "=")
					vars = append(vars, name)
					if c.variable(name) == nil {
						t.Errorf("deploy.sh sets -var=%s, which infra/ does not declare", name)
					}
					if name == "source_dir" && value != dir {
						t.Errorf("source_dir=%s, but the archives are in %s", value, dir)
					}
				}
			}
			if !slices.Equal(vars, []string{"source_dir"}) {
				t.Errorf("deploy.sh sets %v; it passes the archives only (everything else comes from terraform.tfvars)", vars)
			}
			for _, a := range tt.args[1:] {
				if !slices.Contains(apply, a) {
					t.Errorf("terraform apply lacks the caller's option %s", a)
				}
			}
		})
	}
}

// TestDeployScriptCannotDrift: the script names no function, entry point
// or function setting: what is deployed is infra/'s alone.
func TestDeployScriptCannotDrift(t *testing.T) {
	src, err := os.ReadFile(deployScript(t))
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for line := range strings.Lines(string(src)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			code = append(code, line)
		}
	}
	body := strings.Join(code, "")
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	fns, err := c.functions()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for key, f := range fns {
		names = append(names, f.entryPoint, "introductions-"+key)
	}
	names = append(names, "functions deploy", "run deploy", "--entry-point", "--memory", "--set-env-vars", "--allow-unauthenticated", "--service-account")
	for _, n := range names {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\b`).MatchString(body) {
			t.Errorf("scripts/deploy.sh names %q: function settings belong to infra/ alone", n)
		}
	}
}

// goPackageFiles lists, relative to the repository root, the files the
// build of the package pkg (e.g. "./functions/challenge/entry") needs: every Go
// and embedded file of each package of this module it imports, itself
// included.
func goPackageFiles(t *testing.T, pkg string) []string {
	t.Helper()
	goTool := requireTool(t, "go")
	root, _ := filepath.Abs("..")
	env := append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
	out, stderr, err := run(t, root, env, goTool, "list", "-deps", "-json=Dir,GoFiles,EmbedFiles,Module", pkg)
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	var files []string
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p struct {
			Dir                 string
			GoFiles, EmbedFiles []string
			Module              *struct{ Path string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "github.com/ownersite/introductions" {
			continue
		}
		rel, _ := filepath.Rel(root, p.Dir)
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
		}
	}
	if len(files) < 10 {
		t.Fatalf("go list found only %d files", len(files))
	}
	return files
}

// forbiddenUpload matches what must never leave the machine.
var forbiddenUpload = regexp.MustCompile(`^\.git|(^|/)(infra|\.terraform|node_modules|testdata|screenshots)/|\.tfstate|\.tfvars|_test\.go$|\.zip$`)

// TestDeployScriptPackagesEachFunction runs the script up to terraform (a
// stub that records its arguments) twice. Each entry package has an
// archive: the files its build needs, its own at the root, and nothing
// forbidden; the same files give the same bytes (infra/ names each object
// by its MD5); Challenge's and Forms' archives hold no code of the
// database's wiring or the Firestore adapter; and each archive, unzipped,
// builds as the buildpack builds it (its root package).
func TestDeployScriptPackagesEachFunction(t *testing.T) {
	bash := requireTool(t, "bash")
	goTool := requireTool(t, "go")
	requireTool(t, "zip")
	keys := entryKeys(t)
	path, calls := recordingTools(t, 0, "terraform")
	sums := map[string][]string{}
	for i := 0; i < 2; i++ {
		env := []string{"PATH=" + path, "HOME=" + os.Getenv("HOME"), "TMPDIR=" + t.TempDir()}
		for _, k := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
		if _, stderr, err := run(t, "..", env, bash, deployScript(t), "-auto-approve"); err != nil {
			t.Fatalf("deploy.sh: %v\n%s", err, stderr)
		}
		b, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal("terraform was not called")
		}
		os.Remove(calls)
		args := strings.Fields(strings.TrimSpace(string(b)))
		var dir string
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "-var=source_dir="); ok {
				dir = v
			}
		}
		if strings.Join(args[:3], " ") != "terraform -chdir=infra apply" || dir == "" || !slices.Contains(args, "-auto-approve") {
			t.Fatalf("terraform called with %q", args)
		}
		archives, _ := filepath.Glob(filepath.Join(dir, "*"))
		var want []string
		for _, key := range keys {
			want = append(want, filepath.Join(dir, key+".zip"))
		}
		if !slices.Equal(archives, want) {
			t.Fatalf("archives %q, want one per entry package %q", archives, want)
		}
		for _, key := range keys {
			data, err := os.ReadFile(filepath.Join(dir, key+".zip"))
			if err != nil {
				t.Fatal(err)
			}
			sums[key] = append(sums[key], fmt.Sprintf("%x", md5.Sum(data)))
			if i > 0 {
				continue
			}
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			src := t.TempDir()
			for _, f := range zr.File {
				names = append(names, f.Name)
				if forbiddenUpload.MatchString(f.Name) {
					t.Errorf("%s.zip holds %s", key, f.Name)
				}
				if (key == "challenge" || key == "forms") && (strings.HasPrefix(f.Name, "shared/firestorestore/") ||
					strings.HasPrefix(f.Name, "functions/wiring/dbparts/")) {
					t.Errorf("%s.zip holds %s: a function without the database links none of its wiring", key, f.Name)
				}
				extract(t, f, filepath.Join(src, f.Name))
			}
			for _, need := range append([]string{"go.mod", "go.sum"}, goPackageFiles(t, "./functions/"+key+"/entry")...) {
				if rest, ok := strings.CutPrefix(need, "functions/"+key+"/entry/"); ok {
					need = rest // the entry package is the root package
				}
				if !slices.Contains(names, need) {
					t.Errorf("%s.zip lacks %s, which its build needs", key, need)
				}
			}
			if _, stderr, err := run(t, src, os.Environ(), goTool, "build", "."); err != nil {
				t.Errorf("%s.zip's root package does not build: %v\n%s", key, err, stderr)
			}
		}
	}
	for key, s := range sums {
		if s[0] != s[1] {
			t.Errorf("two archives of %s's same files differ: %v", key, s)
		}
	}
}

// extract writes the archive's file f to path.
func extract(t *testing.T, f *zip.File, path string) {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIgnoreFiles: in a copy of the repository's .gcloudignore and
// .gitignore, what must stay home is neither uploaded by gcloud nor
// committed, and the provider lock file is committed.
func TestIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{".gcloudignore", ".gitignore"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stayHome := []string{
		"infra/.terraform/providers/p", "infra/terraform.tfstate", "infra/terraform.tfstate.backup",
		"infra/terraform.tfvars", "infra/prod.tfvars", "infra/tfplan", "scripts/js/node_modules/x/index.js",
		"introductions-source.zip",
	}
	notUploaded := append(slices.Clone(stayHome), "infra/main.tf", "infra/.terraform.lock.hcl", "shared/sitepage/screenshots/form.png",
		"shared/contentrules/testdata/verdicts.golden", "shared/x/x_test.go", "scripts/js/form.test.mjs", ".ci/run")
	uploaded := []string{"go.mod", "go.sum", "functions.go", "shared/x/x.go", "shared/formregistry/forms/introduction/1.json", "shared/sitepage/assets/index.html"}
	for _, f := range append(slices.Clone(notUploaded), uploaded...) {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("gcloudignore", func(t *testing.T) {
		gcloud := requireTool(t, "gcloud")
		env := append(os.Environ(), "CLOUDSDK_CONFIG="+t.TempDir())
		out, stderr, err := run(t, dir, env, gcloud, "meta", "list-files-for-upload", ".")
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		listed := strings.Fields(out)
		for _, f := range notUploaded {
			if slices.Contains(listed, f) {
				t.Errorf("gcloud would upload %s", f)
			}
		}
		for _, f := range uploaded {
			if !slices.Contains(listed, f) {
				t.Errorf("gcloud would not upload %s", f)
			}
		}
	})
	t.Run("gitignore", func(t *testing.T) {
		git := requireTool(t, "git")
		env := append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
		if _, stderr, err := run(t, dir, env, git, "init", "-q"); err != nil {
			t.Fatalf("git init: %v\n%s", err, stderr)
		}
		ignored := func(f string) bool {
			_, _, err := run(t, dir, env, git, "check-ignore", "-q", f)
			return err == nil
		}
		for _, f := range stayHome {
			if !ignored(f) {
				t.Errorf(".gitignore lets %s be committed", f)
			}
		}
		for _, f := range []string{"infra/.terraform.lock.hcl", "infra/main.tf", "go.sum"} {
			if ignored(f) {
				t.Errorf(".gitignore ignores %s, which is committed", f)
			}
		}
	})
}
