package infra_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// deployedFunction is what scripts/deploy.sh must deploy for one public
// function, as infra/ declares it.
type deployedFunction struct {
	name, entryPoint, memory string
}

// publicFunctionsFromTerraform evaluates the public functions of infra/ and
// the default Go runtime.
func publicFunctionsFromTerraform(t *testing.T) ([]deployedFunction, string) {
	t.Helper()
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	fns := c.resources("google_cloudfunctions2_function")
	if len(fns) != 1 {
		t.Fatalf("%d function resources, want 1", len(fns))
	}
	all, err := c.eval(fns[0].Body.Attributes["for_each"].Expr)
	if err != nil {
		t.Fatal(err)
	}
	var out []deployedFunction
	for key, f := range all.AsValueMap() {
		if !f.GetAttr("public").True() {
			continue
		}
		ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
			"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(key), "value": f}),
		}}
		name, diags := fns[0].Body.Attributes["name"].Expr.Value(ctx)
		if diags.HasErrors() {
			t.Fatalf("function name: %v", diags)
		}
		out = append(out, deployedFunction{name.AsString(), f.GetAttr("entry_point").AsString(), f.GetAttr("memory").AsString()})
	}
	slices.SortFunc(out, func(a, b deployedFunction) int { return strings.Compare(a.name, b.name) })
	runtime, ok := literal(c.variable("go_runtime"), "default")
	if !ok {
		t.Fatal("variable go_runtime has no constant default")
	}
	return out, runtime
}

// splitCommand splits a line printed by deploy.sh's quote function.
func splitCommand(line string) []string {
	var args []string
	for _, f := range strings.Fields(line) {
		args = append(args, strings.ReplaceAll(strings.Trim(f, "'"), `'\''`, "'"))
	}
	return args
}

func TestDeployScript(t *testing.T) {
	bash := requireTool(t, "bash")
	script, err := filepath.Abs(filepath.Join("..", "scripts", "deploy.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	want, runtime := publicFunctionsFromTerraform(t)

	// A gcloud that records being called: a dry run must never call it.
	bin := t.TempDir()
	called := filepath.Join(bin, "called")
	stub := "#!/bin/sh\necho \"$@\" >>" + called + "\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "gcloud"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	baseEnv := map[string]string{
		"PATH":            bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":            t.TempDir(),
		"PROJECT_ID":      "proj-1",
		"REGION":          "europe-west1",
		"ALLOWED_ORIGINS": "https://example.com,https://www.example.com",
	}

	tests := []struct {
		name    string
		env     map[string]string // overrides; "" unsets
		args    []string
		want    []deployedFunction // nil: the run must fail
		wantErr string             // substring of stderr when failing
	}{
		{name: "dry run deploys every public function", args: []string{"--dry-run"}, want: want},
		{name: "dry run of one function", args: []string{"--dry-run", "forms"}, want: filter(want, "Forms")},
		{name: "project missing", env: map[string]string{"PROJECT_ID": ""}, args: []string{"--dry-run"}, wantErr: "PROJECT_ID"},
		{name: "region missing", env: map[string]string{"REGION": ""}, args: []string{"--dry-run"}, wantErr: "REGION"},
		{name: "origins missing", env: map[string]string{"ALLOWED_ORIGINS": ""}, args: []string{"--dry-run"}, wantErr: "ALLOWED_ORIGINS"},
		{name: "wildcard origin", env: map[string]string{"ALLOWED_ORIGINS": "*"}, args: []string{"--dry-run"}, wantErr: "ALLOWED_ORIGINS"},
		{name: "null origin", env: map[string]string{"ALLOWED_ORIGINS": "https://example.com,null"}, args: []string{"--dry-run"}, wantErr: "ALLOWED_ORIGINS"},
		{name: "origin with a path", env: map[string]string{"ALLOWED_ORIGINS": "https://example.com/form"}, args: []string{"--dry-run"}, wantErr: "ALLOWED_ORIGINS"},
		{name: "default database", env: map[string]string{"FIRESTORE_DATABASE": "(default)"}, args: []string{"--dry-run"}, wantErr: "FIRESTORE_DATABASE"},
		{name: "private function refused", args: []string{"--dry-run", "sweep"}, wantErr: "unknown function"},
		{name: "unknown flag", args: []string{"--dry-run", "--force"}, wantErr: "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := []string{}
			for k, v := range baseEnv {
				if o, ok := tt.env[k]; ok {
					v = o
				}
				if v != "" {
					env = append(env, k+"="+v)
				}
			}
			for k, v := range tt.env {
				if _, ok := baseEnv[k]; !ok && v != "" {
					env = append(env, k+"="+v)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, append([]string{script}, tt.args...)...)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()

			if _, serr := os.Stat(called); !errors.Is(serr, os.ErrNotExist) {
				b, _ := os.ReadFile(called)
				t.Fatalf("gcloud was called: %s", b)
			}
			if tt.want == nil {
				if err == nil {
					t.Fatalf("succeeded, want failure; stdout:\n%s", stdout.String())
				}
				if !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("stderr %q does not mention %q", stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\nstderr: %s", err, stderr.String())
			}
			var got []deployedFunction
			for line := range strings.Lines(stdout.String()) {
				args := splitCommand(line)
				if len(args) < 4 || strings.Join(args[:3], " ") != "gcloud functions deploy" {
					t.Errorf("unexpected output line %q", line)
					continue
				}
				flags := map[string]string{}
				for _, a := range args[4:] {
					k, v, _ := strings.Cut(a, "=")
					flags[k] = v
				}
				for _, f := range []string{"--gen2", "--trigger-http", "--allow-unauthenticated"} {
					if _, ok := flags[f]; !ok {
						t.Errorf("%s: no %s", args[3], f)
					}
				}
				for f, v := range map[string]string{
					"--source":          ".",
					"--runtime":         runtime,
					"--project":         "proj-1",
					"--region":          "europe-west1",
					"--service-account": "intake-functions@proj-1.iam.gserviceaccount.com",
				} {
					if flags[f] != v {
						t.Errorf("%s: %s=%q, want %q", args[3], f, flags[f], v)
					}
				}
				envVars := flags["--set-env-vars"]
				for _, kv := range []string{
					"FIRESTORE_PROJECT=proj-1", "FIRESTORE_DATABASE=introductions",
					"ALLOWED_ORIGINS=https://example.com,https://www.example.com",
					"HMAC_SECRET=projects/proj-1/secrets/" + hmacSecretID,
				} {
					if !slices.Contains(strings.Split(strings.TrimPrefix(envVars, "^|^"), "|"), kv) {
						t.Errorf("%s: --set-env-vars %q lacks %s", args[3], envVars, kv)
					}
				}
				got = append(got, deployedFunction{args[3], flags["--entry-point"], flags["--memory"]})
			}
			slices.SortFunc(got, func(a, b deployedFunction) int { return strings.Compare(a.name, b.name) })
			if !slices.Equal(got, tt.want) {
				t.Errorf("deploy.sh deploys %v, infra/ declares %v", got, tt.want)
			}
		})
	}
}

func filter(fs []deployedFunction, entryPoint string) []deployedFunction {
	return slices.DeleteFunc(slices.Clone(fs), func(f deployedFunction) bool { return f.entryPoint != entryPoint })
}
