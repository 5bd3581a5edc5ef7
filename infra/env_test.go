package infra_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	introconfig "github.com/ownersite/introductions/shared/config"
)

// applied is the configuration evaluated as terraform apply would, for
// given variables, with stand-ins for what only Google Cloud knows (ids and
// emails follow Google's formats).
type applied struct {
	c    *config
	fn   *hclsyntax.Block
	vars map[string]cty.Value
	// locals are c's locals, evaluated once for the scope.
	locals map[string]cty.Value
}

// evalWith evaluates expr with a's locals and extra in scope.
func (a applied) evalWith(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, error) {
	return a.c.evalIn(a.locals, expr, extra)
}

func applyWith(t *testing.T, vars map[string]cty.Value) applied {
	t.Helper()
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	a, err := apply(c, vars)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// apply evaluates c for vars (every variable without a default must be
// among them); c itself is left as it was.
func apply(c *config, vars map[string]cty.Value) (applied, error) {
	all := map[string]cty.Value{}
	for _, b := range c.blocks {
		if b.Type != "variable" {
			continue
		}
		name := b.Labels[0]
		if v, ok := vars[name]; ok {
			all[name] = v
		} else if d, ok := b.Body.Attributes["default"]; ok {
			v, diags := d.Expr.Value(nil)
			if diags.HasErrors() {
				return applied{}, fmt.Errorf("variable %s default: %v", name, diags)
			}
			all[name] = v
		} else {
			return applied{}, fmt.Errorf("variable %s has no default and none is given", name)
		}
	}
	project := all["project_id"].AsString()
	secrets := map[string]cty.Value{}
	for key, e := range c.objectItems(c.locals["secrets"]) {
		id, _ := e.Value(nil)
		secrets[key] = cty.ObjectVal(map[string]cty.Value{
			"id": cty.StringVal("projects/" + project + "/secrets/" + id.AsString()), "secret_id": id,
		})
	}
	account := func(name string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"email": cty.StringVal(accountEmail(project, name))})
	}
	fns, err := c.functions()
	if err != nil {
		return applied{}, err
	}
	functionAccounts := map[string]cty.Value{}
	for key := range fns {
		functionAccounts[key] = account("introductions-" + key)
	}
	customRoles := map[string]cty.Value{}
	for _, b := range c.resources("google_project_iam_custom_role") {
		id, _ := literal(b, "role_id")
		customRoles[b.Labels[1]] = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("projects/" + project + "/roles/" + id)})
	}
	ac := *c
	ac.scope = map[string]cty.Value{
		"var": cty.ObjectVal(all),
		"google_firestore_database": cty.ObjectVal(map[string]cty.Value{
			"introductions": cty.ObjectVal(map[string]cty.Value{"name": all["firestore_database"]}),
		}),
		"google_secret_manager_secret": cty.ObjectVal(map[string]cty.Value{"secret": cty.ObjectVal(secrets)}),
		"google_service_account": cty.ObjectVal(map[string]cty.Value{
			"scheduler": account("introductions-scheduler"), "build": account("introductions-build"),
			"function": cty.ObjectVal(functionAccounts),
		}),
		"google_project_iam_custom_role": cty.ObjectVal(customRoles),
	}
	if b := ac.resource("google_storage_bucket", "attachments"); b != nil {
		if name, err := (applied{c: &ac}).evalWith(b.Body.Attributes["name"].Expr, nil); err == nil {
			ac.scope["google_storage_bucket"] = cty.ObjectVal(map[string]cty.Value{"attachments": cty.ObjectVal(map[string]cty.Value{"name": name})})
		}
	}
	fn, err := ac.functionResource()
	if err != nil {
		return applied{}, err
	}
	return applied{c: &ac, fn: fn, vars: all, locals: ac.localValues()}, nil
}

// accountEmail is the email of the service account id in project.
func accountEmail(project, id string) string {
	return id + "@" + project + ".iam.gserviceaccount.com"
}

// environment returns the plain and the Secret Manager-backed environment
// variables function key gets.
func (a applied) environment(t *testing.T, key string) (map[string]string, []string) {
	t.Helper()
	env, secretEnv, err := a.env(key)
	if err != nil {
		t.Fatal(err)
	}
	return env, secretEnv
}

// env returns the plain and the Secret Manager-backed environment variables
// function key gets.
func (a applied) env(key string) (map[string]string, []string, error) {
	fns, err := a.evalWith(a.c.locals["functions"], nil)
	if err != nil {
		return nil, nil, err
	}
	each := map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(key), "value": fns.GetAttr(key)})}
	service := block(a.fn, "service_config")
	if service == nil || service.Body.Attributes["environment_variables"] == nil {
		return nil, nil, fmt.Errorf("%s: no service_config.environment_variables", blockName(a.fn))
	}
	v, err := a.evalWith(service.Body.Attributes["environment_variables"].Expr, each)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: environment_variables: %v", key, err)
	}
	env := map[string]string{}
	for k, val := range v.AsValueMap() {
		env[k] = val.AsString()
	}
	var secretEnv []string
	for _, ib := range service.Body.Blocks {
		if ib.Type == "dynamic" && ib.Labels[0] == "secret_environment_variables" {
			v, err := a.evalWith(ib.Body.Attributes["for_each"].Expr, each)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: secret_environment_variables: %v", key, err)
			}
			secretEnv = slices.Sorted(maps.Keys(v.AsValueMap()))
		}
	}
	return env, secretEnv, nil
}

// sampleVariables are the variables without a default, for a project with
// every destination off.
func sampleVariables() map[string]cty.Value {
	return map[string]cty.Value{
		"project_id":   cty.StringVal("proj-1"),
		"region":       cty.StringVal("europe-west1"),
		"site_origins": cty.ListVal([]cty.Value{cty.StringVal("https://example.com"), cty.StringVal("https://www.example.com")}),
		"owner_email":  cty.StringVal("owner@example.com"),
		"source_dir":   cty.StringVal("/tmp/introductions-deploy"),
	}
}

// withDestinations returns vars with every destination of the handoff on:
// the webhook, mail with a login, the mail provider's delivery events.
func withDestinations(vars map[string]cty.Value) map[string]cty.Value {
	on := maps.Clone(vars)
	on["webhook_url"] = cty.StringVal("https://hooks.example.com/introductions")
	on["mailgun_events"] = cty.True
	on["smtp"] = cty.ObjectVal(map[string]cty.Value{
		"host": cty.StringVal("smtp.example.com"), "port": cty.NumberIntVal(587), "username": cty.StringVal("mailer"),
		"tls": cty.StringVal("starttls"), "from": cty.StringVal("intro@example.com"), "to": cty.StringVal("owner@example.com"),
	})
	return on
}

// TestEnvironmentAsApplied evaluates each function's environment for
// sample variables, with every destination off and then on, and loads the
// service's config from it as the function would.
func TestEnvironmentAsApplied(t *testing.T) {
	base := sampleVariables()
	on := withDestinations(base)
	noLogin := maps.Clone(base)
	noLogin["smtp"] = cty.ObjectVal(map[string]cty.Value{
		"host": cty.StringVal("smtp.example.com"), "port": cty.NullVal(cty.Number), "username": cty.NullVal(cty.String),
		"tls": cty.StringVal("tls"), "from": cty.StringVal("intro@example.com"), "to": cty.StringVal("owner@example.com"),
	})
	// Every function gets the origins; the rest by what it touches.
	with := func(parts ...map[string]string) map[string]string {
		m := map[string]string{"ALLOWED_ORIGINS": "https://example.com,https://www.example.com"}
		for _, e := range parts {
			maps.Copy(m, e)
		}
		return m
	}
	store := map[string]string{"FIRESTORE_PROJECT": "proj-1", "FIRESTORE_DATABASE": "introductions"}
	key := map[string]string{"HMAC_SECRET": "projects/proj-1/secrets/intake-hmac-key"}
	pepper := map[string]string{"HASH_PEPPER_SECRET": "projects/proj-1/secrets/intake-hash-pepper/versions/1"}
	adminURL := map[string]string{"ADMIN_URL": "https://europe-west1-proj-1.cloudfunctions.net/introductions-admin"}
	handoffOn := map[string]string{
		"ADMIN_URL": adminURL["ADMIN_URL"], "WEBHOOK_URL": "https://hooks.example.com/introductions",
		"SMTP_HOST": "smtp.example.com", "SMTP_PORT": "587", "SMTP_USERNAME": "mailer", "SMTP_TLS": "starttls",
		"NOTIFY_EMAIL_FROM": "intro@example.com", "NOTIFY_EMAIL_TO": "owner@example.com",
	}
	mailNoLogin := map[string]string{
		"ADMIN_URL": adminURL["ADMIN_URL"], "SMTP_HOST": "smtp.example.com", "SMTP_TLS": "tls",
		"NOTIFY_EMAIL_FROM": "intro@example.com", "NOTIFY_EMAIL_TO": "owner@example.com",
	}
	bucket := map[string]string{"ATTACHMENT_BUCKET": "proj-1-introductions-attachments"}
	job := map[string]string{"SCHEDULER_JOB": "projects/proj-1/locations/europe-west1/jobs/introductions-sweep", "OWNER_LANGUAGE": "en", "OWNER_TIME_ZONE": "UTC"}
	delivering := []string{"SMTP_PASSWORD", "WEBHOOK_SECRET"}

	type want struct {
		env       map[string]string
		secretEnv []string
	}
	tests := []struct {
		name string
		vars map[string]cty.Value
		want map[string]want
	}{
		{"destinations off", base, map[string]want{
			"challenge":       {with(key), nil},
			"forms":           {with(), nil},
			"drafts":          {with(store, key, pepper, bucket), nil},
			"confirmation":    {with(store, pepper, adminURL, bucket), nil},
			"delivery-events": {with(store), nil},
			"sweep":           {with(store, adminURL, bucket), nil},
			"admin":           {with(store, key, adminURL, job, bucket), nil},
		}},
		{"destinations on", on, map[string]want{
			"challenge":       {with(key), nil},
			"forms":           {with(), nil},
			"drafts":          {with(store, key, pepper, bucket), nil},
			"confirmation":    {with(store, pepper, handoffOn, bucket), delivering},
			"delivery-events": {with(store), []string{"MAILGUN_WEBHOOK_SIGNING_KEY"}},
			"sweep":           {with(store, handoffOn, bucket), delivering},
			"admin":           {with(store, key, handoffOn, job, bucket), delivering},
		}},
		{"mail without login", noLogin, map[string]want{
			"challenge":       {with(key), nil},
			"forms":           {with(), nil},
			"drafts":          {with(store, key, pepper, bucket), nil},
			"confirmation":    {with(store, pepper, mailNoLogin, bucket), nil},
			"delivery-events": {with(store), nil},
			"sweep":           {with(store, mailNoLogin, bucket), nil},
			"admin":           {with(store, key, mailNoLogin, job, bucket), nil},
		}},
	}
	// What the owner would have put in the secrets.
	secretValues := map[string]string{
		"WEBHOOK_SECRET":              "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"SMTP_PASSWORD":               "correct horse battery staple",
		"MAILGUN_WEBHOOK_SIGNING_KEY": "key-0123456789abcdef0123456789abcdef",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := applyWith(t, tt.vars)
			fns, err := a.c.functions()
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(fns)); !slices.Equal(got, slices.Sorted(maps.Keys(tt.want))) {
				t.Fatalf("functions %v, want %v", got, slices.Sorted(maps.Keys(tt.want)))
			}
			for key, w := range tt.want {
				env, secretEnv := a.environment(t, key)
				if !maps.Equal(env, w.env) {
					t.Errorf("%s: environment\n got %v\nwant %v", key, env, w.env)
				}
				if !slices.Equal(secretEnv, w.secretEnv) {
					t.Errorf("%s: Secret Manager-backed variables %v, want %v", key, secretEnv, w.secretEnv)
				}
				all := maps.Clone(env)
				for _, s := range secretEnv {
					all[s] = secretValues[s]
				}
				all["K_SERVICE"], all["K_REVISION"] = "introductions-"+key, "introductions-"+key+"-00001-abc"
				if _, err := introconfig.Load(func(name string) string { return all[name] }); err != nil {
					t.Errorf("%s: the service refuses the environment infra/ gives it: %v", key, err)
				}
			}
		})
	}
}

// TestEnvironmentAsAppliedCatchesBreakage: the config load above can fail:
// given a secret's bare id where its resource name belongs, it refuses.
func TestEnvironmentAsAppliedCatchesBreakage(t *testing.T) {
	a := applyWith(t, map[string]cty.Value{
		"project_id":   cty.StringVal("proj-1"),
		"region":       cty.StringVal("europe-west1"),
		"site_origins": cty.ListVal([]cty.Value{cty.StringVal("https://example.com")}),
		"owner_email":  cty.StringVal("owner@example.com"),
		"source_dir":   cty.StringVal("/tmp/a"),
	})
	a.c.scope["google_secret_manager_secret"] = cty.ObjectVal(map[string]cty.Value{"secret": cty.ObjectVal(map[string]cty.Value{
		"hmac":        cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("intake-hmac-key"), "secret_id": cty.StringVal("intake-hmac-key")}),
		"hash_pepper": cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("intake-hash-pepper"), "secret_id": cty.StringVal("intake-hash-pepper")}),
	})})
	a.locals = a.c.localValues()
	env, _ := a.environment(t, "drafts")
	_, err := introconfig.Load(func(name string) string { return env[name] })
	if err == nil {
		t.Fatalf("config accepted HMAC_SECRET=%q, a bare secret id", env["HMAC_SECRET"])
	}
	t.Logf("refused as expected: %v", err)
}
