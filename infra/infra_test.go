// Package infra_test checks, offline, the invariants of the Terraform
// configuration in infra/ (SPEC §8): a named Firestore database, a TTL policy
// on expireAt for every collection, deny-all security rules, public invoker
// on the four intake functions only, the HMAC secret readable by the runtime
// account alone, terraform fmt, and scripts/deploy.sh agreeing with it all.
//
// Each check is a function from a parsed configuration to a list of problems.
// The checks run against the real files, and against mutated copies of them
// to show that each check notices the breakage it is about.
package infra_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// ttlCollections are the collections the service writes; each must have a
// TTL policy on expireAt (SPEC §6).
var ttlCollections = []string{
	"introductions",
	"transcripts",
	"spentChallenges",
	"rateCounters",
	"idempotencyKeys",
	"ledger",
}

// publicEntryPoints are the only functions anyone may invoke (SPEC §1).
var publicEntryPoints = []string{"Challenge", "Confirmation", "Drafts", "Forms"}

// requiredEnv are the variables every function is configured with.
var requiredEnv = []string{"FIRESTORE_PROJECT", "FIRESTORE_DATABASE", "ALLOWED_ORIGINS", "HMAC_SECRET"}

const hmacSecretID = "intake-hmac-key"

// config is a parsed Terraform configuration directory.
type config struct {
	files  map[string]string // every file by name: .tf, .rules
	blocks []*hclsyntax.Block
	locals map[string]hclsyntax.Expression
}

// parseConfig parses the .tf files among files.
func parseConfig(files map[string]string) (*config, error) {
	c := &config{files: files, locals: map[string]hclsyntax.Expression{}}
	p := hclparse.NewParser()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".tf") {
			continue
		}
		f, diags := p.ParseHCL([]byte(files[name]), name)
		if diags.HasErrors() {
			return nil, diags
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			c.blocks = append(c.blocks, b)
			if b.Type == "locals" {
				for n, a := range b.Body.Attributes {
					c.locals[n] = a.Expr
				}
			}
		}
	}
	return c, nil
}

// readDir reads the configuration files of dir.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".tf") || strings.HasSuffix(n, ".rules") {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			files[n] = string(b)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no Terraform files in %s", dir)
	}
	return files
}

// resources returns the resource blocks of type typ.
func (c *config) resources(typ string) []*hclsyntax.Block {
	var bs []*hclsyntax.Block
	for _, b := range c.blocks {
		if b.Type == "resource" && len(b.Labels) == 2 && b.Labels[0] == typ {
			bs = append(bs, b)
		}
	}
	return bs
}

// resource returns the resource typ.name, or nil.
func (c *config) resource(typ, name string) *hclsyntax.Block {
	for _, b := range c.resources(typ) {
		if b.Labels[1] == name {
			return b
		}
	}
	return nil
}

// variable returns the variable block name, or nil.
func (c *config) variable(name string) *hclsyntax.Block {
	for _, b := range c.blocks {
		if b.Type == "variable" && len(b.Labels) == 1 && b.Labels[0] == name {
			return b
		}
	}
	return nil
}

// tfFunctions are the Terraform functions the checks evaluate.
var tfFunctions = map[string]function.Function{
	"can":    tryfunc.CanFunc,
	"regex":  stdlib.RegexFunc,
	"length": stdlib.LengthFunc,
	"toset":  stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
	"merge":  stdlib.MergeFunc,
	"concat": stdlib.ConcatFunc,
}

// localValues evaluates what it can of the locals: literals and expressions
// over other locals. Object constructors are evaluated item by item, so that
// an item referring to a resource or variable drops out and the rest stays.
func (c *config) localValues() map[string]cty.Value {
	vals := map[string]cty.Value{}
	for changed := true; changed; {
		changed = false
		ctx := &hcl.EvalContext{
			Variables: map[string]cty.Value{"local": cty.ObjectVal(vals)},
			Functions: tfFunctions,
		}
		for name, expr := range c.locals {
			if _, done := vals[name]; done {
				continue
			}
			if v, ok := partialValue(expr, ctx); ok {
				vals[name] = v
				changed = true
			}
		}
	}
	return vals
}

func partialValue(expr hclsyntax.Expression, ctx *hcl.EvalContext) (cty.Value, bool) {
	if v, diags := expr.Value(ctx); !diags.HasErrors() && v.IsWhollyKnown() {
		return v, true
	}
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return cty.NilVal, false
	}
	attrs := map[string]cty.Value{}
	for _, item := range obj.Items {
		k, diags := item.KeyExpr.Value(ctx)
		if diags.HasErrors() || k.Type() != cty.String {
			continue
		}
		if v, ok := partialValue(item.ValueExpr, ctx); ok {
			attrs[k.AsString()] = v
		}
	}
	return cty.ObjectVal(attrs), true
}

// eval evaluates expr with the evaluable locals in scope.
func (c *config) eval(expr hcl.Expression) (cty.Value, error) {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"local": cty.ObjectVal(c.localValues())},
		Functions: tfFunctions,
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return v, nil
}

// literal returns the string value of b's attribute name when it is a
// constant, or "" and false.
func literal(b *hclsyntax.Block, name string) (string, bool) {
	a, ok := b.Body.Attributes[name]
	if !ok {
		return "", false
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// refs returns the references of b's attribute name as dotted strings
// ("var.x", "google_secret_manager_secret.hmac.id"), ignoring index steps.
func refs(b *hclsyntax.Block, name string) []string {
	a, ok := b.Body.Attributes[name]
	if !ok {
		return nil
	}
	return exprRefs(a.Expr)
}

func exprRefs(e hcl.Expression) []string {
	var out []string
	for _, tr := range e.Variables() {
		parts := []string{tr.RootName()}
		for _, step := range tr[1:] {
			if s, ok := step.(hcl.TraverseAttr); ok {
				parts = append(parts, s.Name)
			}
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}

// hasRefPrefix reports whether any of rs starts with prefix.
func hasRefPrefix(rs []string, prefix string) bool {
	return slices.ContainsFunc(rs, func(r string) bool { return strings.HasPrefix(r, prefix) })
}

// refersTo reports whether any of rs is the object ref or one of its
// attributes.
func refersTo(rs []string, ref string) bool {
	return slices.ContainsFunc(rs, func(r string) bool { return r == ref || strings.HasPrefix(r, ref+".") })
}

// stringLiteral is a constant string somewhere in the configuration.
type stringLiteral struct {
	block *hclsyntax.Block // top-level block holding it
	attr  string           // dotted path of the attribute within the block
	value string
}

// literals returns every constant string in the configuration, including
// the constant parts of templates.
func (c *config) literals() []stringLiteral {
	var out []stringLiteral
	var walk func(top *hclsyntax.Block, body *hclsyntax.Body, path string)
	walk = func(top *hclsyntax.Block, body *hclsyntax.Body, path string) {
		for name, a := range body.Attributes {
			hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
				if l, ok := n.(*hclsyntax.LiteralValueExpr); ok && l.Val.Type() == cty.String && l.Val.IsKnown() && !l.Val.IsNull() {
					out = append(out, stringLiteral{top, path + name, l.Val.AsString()})
				}
				return nil
			})
		}
		for _, b := range body.Blocks {
			walk(top, b.Body, path+b.Type+".")
		}
	}
	for _, b := range c.blocks {
		walk(b, b.Body, "")
	}
	return out
}

func blockName(b *hclsyntax.Block) string {
	return strings.Join(append([]string{b.Type}, b.Labels...), ".")
}

// checkDatabase: one Firestore database, FIRESTORE_NATIVE, delete-protected,
// named from a variable whose default and validation refuse "(default)", and
// every other Firestore resource refers to it rather than naming a database.
func checkDatabase(c *config) []string {
	var problems []string
	dbs := c.resources("google_firestore_database")
	if len(dbs) != 1 {
		return []string{fmt.Sprintf("%d google_firestore_database resources, want 1", len(dbs))}
	}
	db := dbs[0]
	dbRef := "google_firestore_database." + db.Labels[1]

	if v, _ := literal(db, "type"); v != "FIRESTORE_NATIVE" {
		problems = append(problems, fmt.Sprintf("database type %q, want FIRESTORE_NATIVE", v))
	}
	if v, _ := literal(db, "delete_protection_state"); v != "DELETE_PROTECTION_ENABLED" {
		problems = append(problems, fmt.Sprintf("delete_protection_state %q, want DELETE_PROTECTION_ENABLED", v))
	}

	a, ok := db.Body.Attributes["name"]
	if !ok {
		return append(problems, "database has no name")
	}
	tr, diags := hcl.AbsTraversalForExpr(a.Expr)
	if diags.HasErrors() || len(tr) != 2 || tr.RootName() != "var" {
		return append(problems, "database name is not exactly a variable reference (var.<name>)")
	}
	varName := tr[1].(hcl.TraverseAttr).Name
	vb := c.variable(varName)
	if vb == nil {
		return append(problems, fmt.Sprintf("variable %q naming the database is not declared", varName))
	}
	def, ok := literal(vb, "default")
	if !ok || def == "" || def == "(default)" {
		problems = append(problems, fmt.Sprintf("variable %s default %q: want a named database", varName, def))
	}
	accepts := func(name string) (bool, error) {
		var validations []*hclsyntax.Block
		for _, b := range vb.Body.Blocks {
			if b.Type == "validation" {
				validations = append(validations, b)
			}
		}
		if len(validations) == 0 {
			return true, nil
		}
		ctx := &hcl.EvalContext{
			Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{varName: cty.StringVal(name)})},
			Functions: tfFunctions,
		}
		for _, b := range validations {
			v, diags := b.Body.Attributes["condition"].Expr.Value(ctx)
			if diags.HasErrors() {
				return false, diags
			}
			if v.False() {
				return false, nil
			}
		}
		return true, nil
	}
	if ok, err := accepts("(default)"); err != nil || ok {
		problems = append(problems, fmt.Sprintf("variable %s accepts \"(default)\" (err %v)", varName, err))
	}
	if ok, err := accepts(def); err != nil || !ok {
		problems = append(problems, fmt.Sprintf("variable %s rejects its own default %q (err %v)", varName, def, err))
	}

	for _, b := range c.blocks {
		if b.Type != "resource" || !strings.HasPrefix(b.Labels[0], "google_firestore_") || b == db {
			continue
		}
		if _, ok := b.Body.Attributes["database"]; !ok || !refersTo(refs(b, "database"), dbRef) {
			problems = append(problems, fmt.Sprintf("%s: database must refer to %s", blockName(b), dbRef))
		}
	}
	for _, l := range c.literals() {
		if l.block.Type != "variable" && strings.Contains(l.value, "(default)") {
			problems = append(problems, fmt.Sprintf("%s.%s names the (default) database", blockName(l.block), l.attr))
		}
	}
	return problems
}

// checkTTL: a TTL policy on expireAt for exactly the collections listed,
// keeping the field's single-field indexes the sweep queries need.
func checkTTL(want []string) func(c *config) []string {
	return func(c *config) []string {
		var problems []string
		covered := map[string]bool{}
		for _, b := range c.resources("google_firestore_field") {
			if !slices.ContainsFunc(b.Body.Blocks, func(b *hclsyntax.Block) bool { return b.Type == "ttl_config" }) {
				continue
			}
			if f, _ := literal(b, "field"); f != "expireAt" {
				problems = append(problems, fmt.Sprintf("%s: TTL on field %q, want expireAt", blockName(b), f))
				continue
			}
			for _, ib := range b.Body.Blocks {
				if ib.Type == "index_config" && len(ib.Body.Attributes)+len(ib.Body.Blocks) == 0 {
					problems = append(problems, fmt.Sprintf("%s: empty index_config removes the expireAt index the sweep queries", blockName(b)))
				}
			}
			var collections []string
			if col, ok := literal(b, "collection"); ok {
				collections = []string{col}
			} else if r := refs(b, "collection"); len(r) == 1 && (r[0] == "each.key" || r[0] == "each.value") {
				fe, ok := b.Body.Attributes["for_each"]
				if !ok {
					problems = append(problems, fmt.Sprintf("%s: collection from each.* without for_each", blockName(b)))
					continue
				}
				v, err := c.eval(fe.Expr)
				if err != nil || !(v.Type().IsSetType() || v.Type().IsListType() || v.Type().IsTupleType()) {
					problems = append(problems, fmt.Sprintf("%s: cannot evaluate for_each as a set of collections: %v", blockName(b), err))
					continue
				}
				for it := v.ElementIterator(); it.Next(); {
					_, e := it.Element()
					collections = append(collections, e.AsString())
				}
			} else {
				problems = append(problems, fmt.Sprintf("%s: collection is neither a constant nor each.key", blockName(b)))
				continue
			}
			for _, col := range collections {
				covered[col] = true
			}
		}
		for _, col := range want {
			if !covered[col] {
				problems = append(problems, fmt.Sprintf("no TTL policy on %s.expireAt", col))
			}
		}
		for _, col := range slices.Sorted(maps.Keys(covered)) {
			if !slices.Contains(want, col) {
				problems = append(problems, fmt.Sprintf("TTL policy on unknown collection %q (typo, or missing from the test's list)", col))
			}
		}
		return problems
	}
}

// publicBindingTypes are the only resource types allowed to grant allUsers,
// and then only through their member attribute.
var publicBindingTypes = []string{"google_cloud_run_service_iam_member", "google_cloud_run_v2_service_iam_member"}

// checkPublicAccess: allUsers/allAuthenticatedUsers appear only as the
// member of Cloud Run invoker bindings, and those bindings cover exactly the
// functions whose entry points are want.
func checkPublicAccess(want []string) func(c *config) []string {
	return func(c *config) []string {
		var problems []string
		bindings := map[*hclsyntax.Block]bool{}
		for _, l := range c.literals() {
			if !strings.Contains(l.value, "allUsers") && !strings.Contains(l.value, "allAuthenticatedUsers") {
				continue
			}
			if l.block.Type != "resource" || !slices.Contains(publicBindingTypes, l.block.Labels[0]) || l.attr != "member" {
				problems = append(problems, fmt.Sprintf("%s.%s grants %q", blockName(l.block), l.attr, l.value))
				continue
			}
			bindings[l.block] = true
		}

		fns := c.resources("google_cloudfunctions2_function")
		if len(fns) != 1 {
			return append(problems, fmt.Sprintf("%d google_cloudfunctions2_function resources, want 1 over a map of functions", len(fns)))
		}
		fnRef := "google_cloudfunctions2_function." + fns[0].Labels[1]
		fe, ok := fns[0].Body.Attributes["for_each"]
		if !ok {
			return append(problems, fnRef+" has no for_each over the functions")
		}
		all, err := c.eval(fe.Expr)
		if err != nil || !all.CanIterateElements() {
			return append(problems, fmt.Sprintf("%s: cannot evaluate for_each: %v", fnRef, err))
		}
		entryPoint := func(fn string) string {
			if !all.Type().IsObjectType() && !all.Type().IsMapType() {
				return ""
			}
			f := all.GetAttr(fn)
			if !f.Type().IsObjectType() || !f.Type().HasAttribute("entry_point") {
				return ""
			}
			return f.GetAttr("entry_point").AsString()
		}

		var public []string
		for b := range bindings {
			name := blockName(b)
			if role, _ := literal(b, "role"); role != "roles/run.invoker" {
				problems = append(problems, fmt.Sprintf("%s: public role %q, want roles/run.invoker", name, role))
			}
			svc := "service"
			if b.Labels[0] == "google_cloud_run_v2_service_iam_member" {
				svc = "name"
			}
			if !refersTo(refs(b, svc), fnRef) {
				problems = append(problems, fmt.Sprintf("%s: %s must refer to %s[each.key]", name, svc, fnRef))
			}
			bfe, ok := b.Body.Attributes["for_each"]
			if !ok {
				problems = append(problems, name+": a public binding must iterate over the public functions")
				continue
			}
			v, err := c.eval(bfe.Expr)
			if err != nil || !v.CanIterateElements() {
				problems = append(problems, fmt.Sprintf("%s: cannot evaluate for_each: %v", name, err))
				continue
			}
			for it := v.ElementIterator(); it.Next(); {
				k, _ := it.Element()
				public = append(public, entryPoint(k.AsString()))
			}
		}
		slices.Sort(public)
		if !slices.Equal(public, want) {
			problems = append(problems, fmt.Sprintf("public functions %q, want exactly %q", public, want))
		}
		return problems
	}
}

// checkFunctions: each function runs the configured Go runtime with the
// required environment, names the database and the HMAC secret by
// reference, and has 128Mi to 256Mi of memory.
func checkFunctions(c *config) []string {
	var problems []string
	for _, b := range c.resources("google_cloudfunctions2_function") {
		name := blockName(b)
		var build, service *hclsyntax.Block
		for _, ib := range b.Body.Blocks {
			switch ib.Type {
			case "build_config":
				build = ib
			case "service_config":
				service = ib
			}
		}
		if build == nil || service == nil {
			problems = append(problems, name+": build_config and service_config are required")
			continue
		}
		if r := refs(build, "runtime"); !slices.Contains(r, "var.go_runtime") {
			problems = append(problems, fmt.Sprintf("%s: runtime %v, want var.go_runtime", name, r))
		}
		env, ok := service.Body.Attributes["environment_variables"]
		if !ok {
			problems = append(problems, name+": no environment_variables")
			continue
		}
		envExpr := hcl.Expression(env.Expr)
		if r := exprRefs(env.Expr); len(r) == 1 && strings.HasPrefix(r[0], "local.") {
			envExpr = c.locals[strings.TrimPrefix(r[0], "local.")]
		}
		items := map[string]hcl.Expression{}
		if obj, ok := envExpr.(*hclsyntax.ObjectConsExpr); ok {
			for _, it := range obj.Items {
				if k, diags := it.KeyExpr.Value(nil); !diags.HasErrors() && k.Type() == cty.String {
					items[k.AsString()] = it.ValueExpr
				}
			}
		}
		for _, k := range requiredEnv {
			if _, ok := items[k]; !ok {
				problems = append(problems, fmt.Sprintf("%s: environment variable %s missing", name, k))
			}
		}
		if e, ok := items["FIRESTORE_DATABASE"]; ok && !hasRefPrefix(exprRefs(e), "google_firestore_database.") && !hasRefPrefix(exprRefs(e), "var.firestore_database") {
			problems = append(problems, name+": FIRESTORE_DATABASE must come from the database resource or its variable")
		}
		if e, ok := items["HMAC_SECRET"]; ok && !hasRefPrefix(exprRefs(e), "google_secret_manager_secret.") {
			problems = append(problems, name+": HMAC_SECRET must be the secret resource's name")
		}
		fe, ok := b.Body.Attributes["for_each"]
		if !ok {
			continue // reported by checkPublicAccess
		}
		all, err := c.eval(fe.Expr)
		if err != nil || !all.Type().IsObjectType() {
			problems = append(problems, fmt.Sprintf("%s: cannot evaluate for_each: %v", name, err))
			continue
		}
		for fn, f := range all.AsValueMap() {
			mem := ""
			if f.Type().IsObjectType() && f.Type().HasAttribute("memory") {
				mem = f.GetAttr("memory").AsString()
			}
			if mib, ok := mebibytes(mem); !ok || mib < 128 || mib > 256 {
				problems = append(problems, fmt.Sprintf("%s[%q]: memory %q, want 128Mi to 256Mi", name, fn, mem))
			}
		}
	}
	return problems
}

// mebibytes converts a Cloud Run memory size ("256Mi", "1Gi", "256M") to MiB.
func mebibytes(s string) (float64, bool) {
	m := regexp.MustCompile(`^([0-9]+)(Mi|Gi|M|G)$`).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	scale := map[string]float64{"Mi": 1, "Gi": 1024, "M": 1e6 / (1 << 20), "G": 1e9 / (1 << 20)}[m[2]]
	return n * scale, true
}

// checkRules: the rules file the ruleset loads denies every read and write,
// and the release binds it to the named database.
func checkRules(c *config) []string {
	var problems []string
	rulesets := c.resources("google_firebaserules_ruleset")
	if len(rulesets) != 1 {
		return []string{fmt.Sprintf("%d google_firebaserules_ruleset resources, want 1", len(rulesets))}
	}
	rs := rulesets[0]
	var file string
	hclsyntax.VisitAll(rs.Body, func(n hclsyntax.Node) hcl.Diagnostics {
		if call, ok := n.(*hclsyntax.FunctionCallExpr); ok && call.Name == "file" && len(call.Args) == 1 {
			if tmpl, ok := call.Args[0].(*hclsyntax.TemplateExpr); ok {
				if l, ok := tmpl.Parts[len(tmpl.Parts)-1].(*hclsyntax.LiteralValueExpr); ok {
					file = strings.TrimPrefix(l.Val.AsString(), "/")
				}
			}
		}
		return nil
	})
	src, ok := c.files[file]
	if !ok {
		return []string{fmt.Sprintf("ruleset content is not file(\"${path.module}/<rules file>\") of a file here (got %q)", file)}
	}
	code := regexp.MustCompile(`(?m)//.*$`).ReplaceAllString(src, "")
	code = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(code, "")
	norm := strings.Join(strings.Fields(code), " ")
	if !strings.Contains(norm, "service cloud.firestore {") || !strings.Contains(norm, "match /databases/{database}/documents { match /{document=**} {") {
		problems = append(problems, file+": rules must match every document of every database")
	}
	allows := regexp.MustCompile(`\ballow\b[^;]*;`).FindAllString(norm, -1)
	if len(allows) == 0 {
		problems = append(problems, file+": no allow statement (want allow read, write: if false;)")
	}
	for _, a := range allows {
		if a != "allow read, write: if false;" {
			problems = append(problems, fmt.Sprintf("%s: %q, want only \"allow read, write: if false;\"", file, a))
		}
	}

	releases := c.resources("google_firebaserules_release")
	if len(releases) != 1 {
		return append(problems, fmt.Sprintf("%d google_firebaserules_release resources, want 1", len(releases)))
	}
	rel := releases[0]
	if !hasRefPrefix(refs(rel, "name"), "google_firestore_database.") || !strings.Contains(c.sourceOf(rel, "name"), "cloud.firestore/") {
		problems = append(problems, "release name must be cloud.firestore/<the named database>")
	}
	if !refersTo(refs(rel, "ruleset_name"), "google_firebaserules_ruleset."+rs.Labels[1]) {
		problems = append(problems, "release must use the deny-all ruleset")
	}
	return problems
}

// sourceOf returns the source text of b's attribute name.
func (c *config) sourceOf(b *hclsyntax.Block, name string) string {
	a, ok := b.Body.Attributes[name]
	if !ok {
		return ""
	}
	r := a.Expr.Range()
	return c.files[r.Filename][r.Start.Byte:r.End.Byte]
}

// checkSecretAccess: Secret Manager roles are granted only on the HMAC
// secret (never project-wide), and the runtime account can read it.
func checkSecretAccess(c *config) []string {
	var problems []string
	accessorOnHMAC := false
	for _, l := range c.literals() {
		if !strings.HasPrefix(l.value, "roles/secretmanager.") {
			continue
		}
		name := blockName(l.block)
		if l.block.Type != "resource" || l.block.Labels[0] != "google_secret_manager_secret_iam_member" || l.attr != "role" {
			problems = append(problems, fmt.Sprintf("%s.%s grants %s beyond a single secret", name, l.attr, l.value))
			continue
		}
		var secret *hclsyntax.Block
		for _, r := range refs(l.block, "secret_id") {
			if parts := strings.Split(r, "."); len(parts) >= 2 && parts[0] == "google_secret_manager_secret" {
				secret = c.resource(parts[0], parts[1])
			}
		}
		id := ""
		if secret != nil {
			id, _ = literal(secret, "secret_id")
		}
		if id != hmacSecretID {
			problems = append(problems, fmt.Sprintf("%s grants %s on secret %q, want only %s", name, l.value, id, hmacSecretID))
			continue
		}
		if l.value == "roles/secretmanager.secretAccessor" && hasRefPrefix(refs(l.block, "member"), "google_service_account.") {
			accessorOnHMAC = true
		}
	}
	if !accessorOnHMAC {
		problems = append(problems, "the runtime service account is not granted roles/secretmanager.secretAccessor on "+hmacSecretID)
	}
	for _, b := range c.resources("google_secret_manager_secret_version") {
		problems = append(problems, blockName(b)+": secret versions are added out of band, never from Terraform")
	}
	return problems
}

// namedCheck is one invariant of the configuration.
type namedCheck struct {
	name  string
	check func(*config) []string
}

var checks = []namedCheck{
	{"database", checkDatabase},
	{"ttl", checkTTL(ttlCollections)},
	{"public access", checkPublicAccess(publicEntryPoints)},
	{"functions", checkFunctions},
	{"rules", checkRules},
	{"secret access", checkSecretAccess},
}

func TestInvariants(t *testing.T) {
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range checks {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range tt.check(c) {
				t.Error(p)
			}
		})
	}
}

// TestChecksCatchBreakage applies one breakage to a copy of the real files
// and expects the named check to report it.
func TestChecksCatchBreakage(t *testing.T) {
	const publicSweep = `
    sweep = {
      entry_point     = "Sweep"
      public          = true
      invokers        = []
      memory          = "128Mi"
      max_instances   = 1
      service_account = google_service_account.intake.email
    }
    challenge = {`
	const privateSweepWithAllUsers = `
    sweep = {
      entry_point     = "Sweep"
      public          = false
      invokers        = ["allAuthenticatedUsers"]
      memory          = "128Mi"
      max_instances   = 1
      service_account = google_service_account.intake.email
    }
    challenge = {`
	tests := []struct {
		name     string
		file     string
		old, new string
		check    string
		want     string // substring of one reported problem
	}{
		{"database default is (default)", "variables.tf", `default     = "introductions"`, `default     = "(default)"`, "database", `default "(default)"`},
		{"validation dropped", "variables.tf", `var.firestore_database != "(default)" && can(`, `true || can(`, "database", `accepts "(default)"`},
		{"database named by a literal", "firestore.tf", `name                    = var.firestore_database`, `name                    = "(default)"`, "database", "not exactly a variable"},
		{"datastore mode", "firestore.tf", `"FIRESTORE_NATIVE"`, `"DATASTORE_MODE"`, "database", "FIRESTORE_NATIVE"},
		{"delete protection off", "firestore.tf", `"DELETE_PROTECTION_ENABLED"`, `"DELETE_PROTECTION_DISABLED"`, "database", "delete_protection_state"},
		{"TTL field renamed", "firestore.tf", `field      = "expireAt"`, `field      = "expiresAt"`, "ttl", "want expireAt"},
		{"ledger loses its TTL", "firestore.tf", `    "ledger",` + "\n", "", "ttl", "no TTL policy on ledger.expireAt"},
		{"collection typo", "firestore.tf", `"rateCounters"`, `"rateCounter"`, "ttl", `unknown collection "rateCounter"`},
		{"TTL field indexes removed", "firestore.tf", "  ttl_config {}\n", "  ttl_config {}\n  index_config {}\n", "ttl", "empty index_config"},
		{"sweep made public", "functions.tf", "\n    challenge = {", publicSweep, "public access", `"Sweep"`},
		{"drafts made private", "functions.tf", "entry_point     = \"Drafts\"\n      public          = true", "entry_point     = \"Drafts\"\n      public          = false", "public access", "want exactly"},
		{"allAuthenticatedUsers in an invoker list", "functions.tf", "\n    challenge = {", privateSweepWithAllUsers, "public access", "locals.functions grants"},
		{"allUsers reads the secret", "secrets.tf", `member    = "serviceAccount:${google_service_account.intake.email}"`, `member    = "allUsers"`, "public access", "google_secret_manager_secret_iam_member.intake_hmac_accessor.member"},
		{"public invoker with another role", "functions.tf", "role     = \"roles/run.invoker\"\n  member   = \"allUsers\"", "role     = \"roles/run.admin\"\n  member   = \"allUsers\"", "public access", "roles/run.admin"},
		{"HMAC_SECRET env missing", "functions.tf", "    HMAC_SECRET        = google_secret_manager_secret.hmac.id\n", "", "functions", "HMAC_SECRET missing"},
		{"FIRESTORE_DATABASE hard-coded", "functions.tf", "FIRESTORE_DATABASE = google_firestore_database.introductions.name", `FIRESTORE_DATABASE = "introductions"`, "functions", "FIRESTORE_DATABASE must come"},
		{"too much memory", "functions.tf", `memory          = "256Mi"`, `memory          = "1Gi"`, "functions", `memory "1Gi"`},
		{"rules allow reads", "firestore.rules", "allow read, write: if false;", "allow read: if true;\n      allow write: if false;", "rules", "allow read: if true;"},
		{"rules allow signed-in users", "firestore.rules", "if false;", "if request.auth != null;", "rules", "request.auth"},
		{"release on the default database", "firestore.tf", `"cloud.firestore/${google_firestore_database.introductions.name}"`, `"cloud.firestore"`, "rules", "release name"},
		{"accessor project-wide", "secrets.tf", `resource "google_secret_manager_secret_iam_member" "intake_hmac_accessor" {
  project   = var.project_id
  secret_id = google_secret_manager_secret.hmac.secret_id
`, `resource "google_project_iam_member" "intake_hmac_accessor" {
  project   = var.project_id
`, "secret access", "beyond a single secret"},
		{"accessor on another secret", "secrets.tf", `secret_id = "intake-hmac-key"`, `secret_id = "smtp-password"`, "secret access", `"smtp-password"`},
		{"key material in Terraform", "secrets.tf", "# The intake functions", "resource \"google_secret_manager_secret_version\" \"k\" {\n  secret      = google_secret_manager_secret.hmac.id\n  secret_data = \"x\"\n}\n\n# The intake functions", "secret access", "out of band"},
	}
	real := readDir(t, ".")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := maps.Clone(real)
			if !strings.Contains(files[tt.file], tt.old) {
				t.Fatalf("%s no longer contains %q: update this case", tt.file, tt.old)
			}
			files[tt.file] = strings.Replace(files[tt.file], tt.old, tt.new, 1)
			c, err := parseConfig(files)
			if err != nil {
				t.Fatalf("mutated configuration does not parse: %v", err)
			}
			i := slices.IndexFunc(checks, func(ch namedCheck) bool { return ch.name == tt.check })
			if i < 0 {
				t.Fatalf("no check named %q", tt.check)
			}
			problems := checks[i].check(c)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("check %q reported %q, want a problem containing %q", tt.check, problems, tt.want)
			}
		})
	}
}

// TestPrivateFunctionAccepted shows the intended way to add a private
// function (sweep, admin): public = false with named invokers passes every
// check.
func TestPrivateFunctionAccepted(t *testing.T) {
	const privateSweep = `
    sweep = {
      entry_point     = "Sweep"
      public          = false
      invokers        = ["user:${var.owner_email}"]
      memory          = "128Mi"
      max_instances   = 1
      service_account = google_service_account.intake.email
    }
    challenge = {`
	files := readDir(t, ".")
	if !strings.Contains(files["functions.tf"], "\n    challenge = {") {
		t.Fatal("functions.tf no longer declares challenge first in local.functions: update this test")
	}
	files["functions.tf"] = strings.Replace(files["functions.tf"], "\n    challenge = {", privateSweep, 1)
	c, err := parseConfig(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range checks {
		for _, p := range ch.check(c) {
			t.Errorf("%s: %s", ch.name, p)
		}
	}
}

// requireTool returns the path of a tool, skipping the test when it is
// missing, except under CI where a missing tool fails.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not on PATH (required under CI)", name)
		}
		t.Skipf("%s is not on PATH", name)
	}
	return p
}

func TestTerraformFmt(t *testing.T) {
	tf := requireTool(t, "terraform")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tf, "fmt", "-check", "-recursive", "-diff", ".")
	cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("terraform fmt -check -recursive infra: %v\n%s", err, out)
	}
}
