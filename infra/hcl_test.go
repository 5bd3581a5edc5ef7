// Package infra_test checks, offline, the Terraform configuration in infra/
// against the code it deploys: the entry points the root package registers,
// the environment the config reads, the collections the store writes and
// the queries it runs, what each function may touch (its grants and the
// variables naming them, printed as a matrix); and the invariants of a safe deployment (a named
// Firestore database, TTL policies, deny-all rules, public invoker on the
// public functions only, least-privilege accounts, secrets kept out of
// Terraform). Each check is a function from a parsed configuration and the
// code's facts to a list of problems; each runs against the real files and
// against broken copies of them, to show it notices what it is about.
package infra_test

// This file parses and evaluates the HCL; infra_test.go holds the checks.

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// config is a parsed Terraform configuration directory.
type config struct {
	files  map[string]string // every file by name: .tf, .rules
	blocks []*hclsyntax.Block
	locals map[string]hclsyntax.Expression
	// scope holds values for other roots than local (var, resources) when
	// a test evaluates the configuration as it would be applied.
	scope map[string]cty.Value
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
		if n := e.Name(); strings.HasSuffix(n, ".tf") || strings.HasSuffix(n, ".rules") || n == ".terraform.lock.hcl" {
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
	"can":      tryfunc.CanFunc,
	"regex":    stdlib.RegexFunc,
	"length":   stdlib.LengthFunc,
	"toset":    stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
	"merge":    stdlib.MergeFunc,
	"concat":   stdlib.ConcatFunc,
	"coalesce": stdlib.CoalesceFunc,
	"join":     stdlib.JoinFunc,
	"tostring": stdlib.MakeToFunc(cty.String),
	"contains": stdlib.ContainsFunc,
	"try":      tryfunc.TryFunc,
	"lookup":   lookupFunc,
}

// localValues evaluates what it can of the locals: literals and expressions
// over other locals. Object constructors are evaluated item by item, so that
// an item referring to a resource or variable drops out and the rest stays.
func (c *config) localValues() map[string]cty.Value {
	// Whole values first, in as many passes as the dependencies need; then
	// what is left, item by item.
	vals := map[string]cty.Value{}
	for changed := true; changed; {
		changed = false
		ctx := &hcl.EvalContext{Variables: c.variables(vals), Functions: tfFunctions}
		for name, expr := range c.locals {
			if _, done := vals[name]; done {
				continue
			}
			if v, diags := expr.Value(ctx); !diags.HasErrors() && v.IsWhollyKnown() {
				vals[name] = v
				changed = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		ctx := &hcl.EvalContext{Variables: c.variables(vals), Functions: tfFunctions}
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

// variables is the evaluation scope: c.scope and the locals.
func (c *config) variables(locals map[string]cty.Value) map[string]cty.Value {
	vars := maps.Clone(c.scope)
	if vars == nil {
		vars = map[string]cty.Value{}
	}
	vars["local"] = cty.ObjectVal(locals)
	return vars
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
	return c.evalWith(expr, nil)
}

// evalWith evaluates expr with the evaluable locals and extra in scope.
func (c *config) evalWith(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, error) {
	return c.evalIn(c.localValues(), expr, extra)
}

// evalIn evaluates expr with locals (as localValues returned them) and
// extra in scope.
func (c *config) evalIn(locals map[string]cty.Value, expr hcl.Expression, extra map[string]cty.Value) (cty.Value, error) {
	vars := c.variables(locals)
	maps.Copy(vars, extra)
	v, diags := expr.Value(&hcl.EvalContext{Variables: vars, Functions: tfFunctions})
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

// sourceOf returns the source text of b's attribute name.
func (c *config) sourceOf(b *hclsyntax.Block, name string) string {
	a, ok := b.Body.Attributes[name]
	if !ok {
		return ""
	}
	return c.exprSource(a.Expr)
}

// exprSource returns the source text of e.
func (c *config) exprSource(e hclsyntax.Expression) string {
	r := e.Range()
	return c.files[r.Filename][r.Start.Byte:r.End.Byte]
}

// block returns b's first nested block of type typ, or nil.
func block(b *hclsyntax.Block, typ string) *hclsyntax.Block {
	for _, ib := range b.Body.Blocks {
		if ib.Type == typ {
			return ib
		}
	}
	return nil
}

// resolve follows a reference to a whole local value ("local.x") to the
// local's expression.
func (c *config) resolve(e hclsyntax.Expression) hclsyntax.Expression {
	for i := 0; i < 10; i++ {
		tr, ok := e.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(tr.Traversal) != 2 || tr.Traversal.RootName() != "local" {
			return e
		}
		a, ok := tr.Traversal[1].(hcl.TraverseAttr)
		if !ok || c.locals[a.Name] == nil {
			return e
		}
		e = c.locals[a.Name]
	}
	return e
}

// objectItems returns the items of an object constructor (after resolving a
// local) whose keys are constants, by key.
func (c *config) objectItems(e hclsyntax.Expression) map[string]hclsyntax.Expression {
	items := map[string]hclsyntax.Expression{}
	obj, ok := c.resolve(e).(*hclsyntax.ObjectConsExpr)
	if !ok {
		return items
	}
	for _, it := range obj.Items {
		if k, diags := it.KeyExpr.Value(nil); !diags.HasErrors() && k.Type() == cty.String {
			items[k.AsString()] = it.ValueExpr
		}
	}
	return items
}

// staticKeys returns the keys an object-valued expression can have, read
// from its source: the constant keys of object constructors, through
// merge(), conditionals, locals and for expressions over an object
// constructor (which may drop some at plan time: a key is "can have").
func (c *config) staticKeys(e hclsyntax.Expression) []string {
	var keys []string
	switch e := c.resolve(e).(type) {
	case *hclsyntax.ObjectConsExpr:
		keys = slices.Collect(maps.Keys(c.objectItems(e)))
	case *hclsyntax.FunctionCallExpr:
		if e.Name == "merge" {
			for _, a := range e.Args {
				keys = append(keys, c.staticKeys(a)...)
			}
		}
	case *hclsyntax.ConditionalExpr:
		keys = append(c.staticKeys(e.TrueResult), c.staticKeys(e.FalseResult)...)
	case *hclsyntax.ForExpr:
		keys = c.staticKeys(e.CollExpr)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// lookupFunc is Terraform's lookup(map, key, default).
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "map", Type: cty.DynamicPseudoType},
		{Name: "key", Type: cty.String},
		{Name: "default", Type: cty.DynamicPseudoType},
	},
	Type: func(args []cty.Value) (cty.Type, error) { return args[2].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		m, key := args[0], args[1].AsString()
		if !m.IsNull() && (m.Type().IsMapType() || m.Type().IsObjectType()) {
			if v, ok := m.AsValueMap()[key]; ok {
				return v, nil
			}
		}
		return args[2], nil
	},
})
