package infra_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring"
	introconfig "github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/firestorestore"
)

// code is what the checks learn from the code the configuration deploys.
type code struct {
	// entryPoints are the entry points the root package registers, by
	// function key (each entry package's directory and archive).
	entryPoints map[string]string
	// configVariables are the environment variables shared/config reads.
	configVariables []string
	// readme is shared/config/README.md, where a variable infra/ does not
	// set must be documented.
	readme string
	// collections are the collections the store writes, expireAt the field
	// each document expires by, queries the queries the store runs.
	collections []string
	expireAt    string
	queries     []firestorestore.IndexedQuery
	// accesses are what each function may touch (Firestore, secrets by
	// variable): infra/ grants exactly that.
	accesses []wiring.Access
	// logged are the attribute keys of each log call, by its message
	// (loggedAttrs): the log-based metrics filter on them.
	logged map[string][][]string
}

func realCode(t *testing.T) code {
	t.Helper()
	readme, err := os.ReadFile("../shared/config/README.md")
	if err != nil {
		t.Fatal(err)
	}
	logged, err := loggedAttrs("..")
	if err != nil {
		t.Fatal(err)
	}
	return code{
		logged:          logged,
		entryPoints:     entryPoints(),
		configVariables: introconfig.Variables(),
		readme:          string(readme),
		collections:     firestorestore.Collections,
		expireAt:        firestorestore.ExpireAtField,
		queries:         firestorestore.Queries,
		accesses:        wiring.Accesses(),
	}
}

// Policy: what is public and who may call the private functions. These are
// decisions, not facts to read from the code.
var (
	// publicEntryPoints may be invoked by anyone: the site's page calls the
	// intake functions, the mail provider posts signed delivery events.
	publicEntryPoints = []string{"Challenge", "Confirmation", "DeliveryEvents", "Drafts", "Forms"}
	// privateInvokers are the only invokers of the private functions.
	privateInvokers = map[string][]string{"Sweep": {"scheduler"}, "Admin": {"owner"}}
	// handoffEntryPoints deliver to the owner's destinations: they get the
	// handoff's settings (which secrets they read is wiring.Accesses').
	handoffEntryPoints = []string{"Admin", "Confirmation", "Sweep"}
	// envEverywhere is set on every function; envOn on some. The variables
	// naming the database and the secrets follow wiring.Accesses (the
	// grants check).
	envEverywhere = []string{"ALLOWED_ORIGINS"}
	envOn         = map[string][]string{"SCHEDULER_JOB": {"Admin"}, "OWNER_LANGUAGE": {"Admin"}, "OWNER_TIME_ZONE": {"Admin"}, "ADMIN_URL": handoffEntryPoints}
	// withoutFirestore and withoutSecrets hold no Firestore access and read
	// no secret, whatever wiring.Accesses says: the smallest public
	// functions, so that a flaw in one reaches no visitor's data.
	withoutFirestore = []string{"Challenge", "Forms"}
	withoutSecrets   = []string{"Forms"}
)

// Declared here before the code that uses them lands on main (other work
// of the same issue adds them): an entry point or a variable in these lists
// may be declared by infra/ without the code registering or reading it yet.
// Once the code does, the test logs that the name can leave the list.
var (
	awaitingEntryPoints = []string{}
	awaitingVariables   = []string{}
)

const (
	hmacSecretID   = "intake-hmac-key"
	pepperSecretID = "intake-hash-pepper"
)

// fnDecl is one entry of local.functions, evaluated.
type fnDecl struct {
	key, entryPoint        string
	public, firestore      bool
	invokers, env, secrets []string
	memory, cpu            string
	concurrency, max       int
	timeout                int
}

// functions evaluates local.functions.
func (c *config) functions() (map[string]fnDecl, error) {
	e, ok := c.locals["functions"]
	if !ok {
		return nil, fmt.Errorf("no local.functions")
	}
	v, err := c.eval(e)
	if err != nil {
		return nil, fmt.Errorf("local.functions: %v", err)
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, fmt.Errorf("local.functions is not an object")
	}
	strs := func(v cty.Value) []string {
		var out []string
		if v.IsNull() || !v.CanIterateElements() {
			return nil
		}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.Type() == cty.String {
				out = append(out, e.AsString())
			}
		}
		return out
	}
	out := map[string]fnDecl{}
	for key, f := range v.AsValueMap() {
		if !f.Type().IsObjectType() {
			return nil, fmt.Errorf("local.functions[%q] is not an object", key)
		}
		get := func(name string) cty.Value {
			if !f.Type().HasAttribute(name) {
				return cty.NullVal(cty.DynamicPseudoType)
			}
			return f.GetAttr(name)
		}
		str := func(name string) string {
			if v := get(name); !v.IsNull() && v.Type() == cty.String {
				return v.AsString()
			}
			return ""
		}
		flag := func(name string) bool {
			v := get(name)
			return !v.IsNull() && v.IsKnown() && v.Type() == cty.Bool && v.True()
		}
		num := func(name string) int {
			if v := get(name); !v.IsNull() && v.Type() == cty.Number {
				n, _ := v.AsBigFloat().Int64()
				return int(n)
			}
			return 0
		}
		out[key] = fnDecl{
			key: key, entryPoint: str("entry_point"), public: flag("public"), firestore: flag("firestore"),
			invokers: strs(get("invokers")), env: strs(get("env")), secrets: strs(get("secrets")),
			memory: str("memory"), cpu: str("cpu"), concurrency: num("concurrency"), max: num("max_instances"), timeout: num("timeout_seconds"),
		}
	}
	return out, nil
}

// byEntryPoint returns the function whose entry point is name.
func byEntryPoint(fns map[string]fnDecl, name string) (fnDecl, bool) {
	for _, f := range fns {
		if f.entryPoint == name {
			return f, true
		}
	}
	return fnDecl{}, false
}

// functionResource returns the one google_cloudfunctions2_function.
func (c *config) functionResource() (*hclsyntax.Block, error) {
	fns := c.resources("google_cloudfunctions2_function")
	if len(fns) != 1 {
		return nil, fmt.Errorf("%d google_cloudfunctions2_function resources, want 1 over local.functions", len(fns))
	}
	if r := refs(fns[0], "for_each"); !slices.Equal(r, []string{"local.functions"}) {
		return nil, fmt.Errorf("%s: for_each %v, want local.functions", blockName(fns[0]), r)
	}
	return fns[0], nil
}

// forEachKeys evaluates b's for_each and returns its keys (or, for a set,
// its elements).
func (c *config) forEachKeys(b *hclsyntax.Block) ([]string, error) {
	fe, ok := b.Body.Attributes["for_each"]
	if !ok {
		return nil, fmt.Errorf("%s has no for_each", blockName(b))
	}
	v, err := c.eval(fe.Expr)
	if err != nil || !v.CanIterateElements() {
		return nil, fmt.Errorf("%s: cannot evaluate for_each: %v", blockName(b), err)
	}
	var keys []string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if v.Type().IsSetType() || v.Type().IsListType() || v.Type().IsTupleType() {
			k = e
		}
		keys = append(keys, k.AsString())
	}
	slices.Sort(keys)
	return keys, nil
}

// forEachValues evaluates b's for_each as a map of objects.
func (c *config) forEachValues(b *hclsyntax.Block) (map[string]cty.Value, error) {
	fe, ok := b.Body.Attributes["for_each"]
	if !ok {
		return nil, fmt.Errorf("%s has no for_each", blockName(b))
	}
	v, err := c.eval(fe.Expr)
	if err != nil || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, fmt.Errorf("%s: cannot evaluate for_each as a map: %v", blockName(b), err)
	}
	return v.AsValueMap(), nil
}

func attrString(v cty.Value, name string) string {
	if v.Type().IsObjectType() && v.Type().HasAttribute(name) {
		if a := v.GetAttr(name); !a.IsNull() && a.Type() == cty.String {
			return a.AsString()
		}
	}
	return ""
}

// checkDatabase: one Firestore database, FIRESTORE_NATIVE, delete-protected,
// with point-in-time recovery,
// named from a variable whose default and validation refuse "(default)", and
// every other Firestore resource refers to it rather than naming a database.
func checkDatabase(c *config, _ code) []string {
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
	if v, _ := literal(db, "point_in_time_recovery_enablement"); v != "POINT_IN_TIME_RECOVERY_ENABLED" {
		problems = append(problems, fmt.Sprintf("point_in_time_recovery_enablement %q, want POINT_IN_TIME_RECOVERY_ENABLED (the privacy notice states its 7 days)", v))
	}
	if !preventsDestroy(db) {
		problems = append(problems, "the database lacks lifecycle { prevent_destroy = true }")
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

// preventsDestroy reports whether b has lifecycle { prevent_destroy = true }.
func preventsDestroy(b *hclsyntax.Block) bool {
	lc := block(b, "lifecycle")
	if lc == nil {
		return false
	}
	a, ok := lc.Body.Attributes["prevent_destroy"]
	if !ok {
		return false
	}
	v, diags := a.Expr.Value(nil)
	return !diags.HasErrors() && v.Type() == cty.Bool && v.True()
}

// ttlCollections returns the collections a TTL-policy field resource covers.
func (c *config) fieldCollections(b *hclsyntax.Block) ([]string, error) {
	if col, ok := literal(b, "collection"); ok {
		return []string{col}, nil
	}
	if r := refs(b, "collection"); len(r) == 1 && (r[0] == "each.key" || r[0] == "each.value") {
		return c.forEachKeys(b)
	}
	return nil, fmt.Errorf("%s: collection is neither a constant nor each.key", blockName(b))
}

// checkTTL: a TTL policy on the store's expiry field for exactly the
// collections the store writes, and no index_config on that field: the
// automatic single-field indexes stay, for the sweep's queries.
func checkTTL(c *config, k code) []string {
	var problems []string
	covered := map[string]bool{}
	for _, b := range c.resources("google_firestore_field") {
		if block(b, "ttl_config") == nil {
			continue
		}
		if f, _ := literal(b, "field"); f != k.expireAt {
			problems = append(problems, fmt.Sprintf("%s: TTL on field %q, want %s", blockName(b), f, k.expireAt))
			continue
		}
		if block(b, "index_config") != nil {
			problems = append(problems, fmt.Sprintf("%s: index_config replaces the automatic %s indexes the sweep queries", blockName(b), k.expireAt))
		}
		cols, err := c.fieldCollections(b)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, col := range cols {
			covered[col] = true
		}
	}
	for _, col := range k.collections {
		if !covered[col] {
			problems = append(problems, fmt.Sprintf("no TTL policy on %s.%s (firestorestore.Collections lists %s)", col, k.expireAt, col))
		}
	}
	for _, col := range slices.Sorted(maps.Keys(covered)) {
		if !slices.Contains(k.collections, col) {
			problems = append(problems, fmt.Sprintf("TTL policy on unknown collection %q (not in firestorestore.Collections)", col))
		}
	}
	return problems
}

// checkIndexes: every query the store runs has its index. A single-field
// query uses the automatic index, so no field resource may exempt that field
// (index_config); a query on several fields needs a composite index in
// local.composite_indexes with the same fields in the same order.
func checkIndexes(c *config, k code) []string {
	var problems []string
	exempted := map[string]bool{} // collection/field with an index_config
	for _, b := range c.resources("google_firestore_field") {
		if block(b, "index_config") == nil {
			continue
		}
		f, _ := literal(b, "field")
		cols, err := c.fieldCollections(b)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, col := range cols {
			exempted[col+"/"+f] = true
		}
	}
	var declared []cty.Value
	idx := c.resources("google_firestore_index")
	for _, b := range idx {
		if r := refs(b, "for_each"); !slices.Equal(r, []string{"local.composite_indexes"}) {
			problems = append(problems, fmt.Sprintf("%s: for_each %v, want local.composite_indexes", blockName(b), r))
			continue
		}
		if s, _ := literal(b, "query_scope"); s != "COLLECTION" {
			problems = append(problems, fmt.Sprintf("%s: query_scope %q, want COLLECTION", blockName(b), s))
		}
		vals, err := c.forEachValues(b)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, v := range vals {
			declared = append(declared, v)
		}
	}
	matches := func(v cty.Value, q firestorestore.IndexedQuery) bool {
		if attrString(v, "collection") != q.Collection || !v.Type().HasAttribute("fields") {
			return false
		}
		fields := v.GetAttr("fields")
		if !fields.CanIterateElements() || fields.LengthInt() != len(q.Fields) {
			return false
		}
		i := 0
		for it := fields.ElementIterator(); it.Next(); i++ {
			_, f := it.Element()
			want := q.Fields[i]
			if attrString(f, "path") != want.Path ||
				!f.Type().HasAttribute("descending") || f.GetAttr("descending").True() != want.Descending ||
				!f.Type().HasAttribute("array_contains") || f.GetAttr("array_contains").True() != want.ArrayContains {
				return false
			}
		}
		return true
	}
	for _, q := range k.queries {
		switch {
		case len(q.Fields) == 0:
			problems = append(problems, fmt.Sprintf("query %q has no fields", q.Name))
		case len(q.Fields) == 1:
			if exempted[q.Collection+"/"+q.Fields[0].Path] {
				problems = append(problems, fmt.Sprintf("query %q needs the automatic index on %s.%s, which an index_config replaces", q.Name, q.Collection, q.Fields[0].Path))
			}
		default:
			if len(idx) == 0 || !slices.ContainsFunc(declared, func(v cty.Value) bool { return matches(v, q) }) {
				problems = append(problems, fmt.Sprintf("query %q on %s needs a composite index on %v in local.composite_indexes", q.Name, q.Collection, q.Fields))
			}
		}
	}
	return problems
}

// publicBindingTypes are the only resource types allowed to grant allUsers,
// and then only through their member attribute.
var publicBindingTypes = []string{"google_cloud_run_service_iam_member", "google_cloud_run_v2_service_iam_member"}

// checkPublicAccess: allUsers/allAuthenticatedUsers appear only as the
// member of Cloud Run invoker bindings over the public functions, and those
// are exactly the public entry points.
func checkPublicAccess(c *config, _ code) []string {
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
	fnRes, err := c.functionResource()
	if err != nil {
		return append(problems, err.Error())
	}
	fns, err := c.functions()
	if err != nil {
		return append(problems, err.Error())
	}
	fnRef := "google_cloudfunctions2_function." + fnRes.Labels[1]
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
		keys, err := c.forEachKeys(b)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, k := range keys {
			public = append(public, fns[k].entryPoint)
		}
	}
	slices.Sort(public)
	if !slices.Equal(public, publicEntryPoints) {
		problems = append(problems, fmt.Sprintf("public functions %q, want exactly %q", public, publicEntryPoints))
	}
	for _, f := range fns {
		if f.public != slices.Contains(publicEntryPoints, f.entryPoint) {
			problems = append(problems, fmt.Sprintf("local.functions[%q].public = %v for %s", f.key, f.public, f.entryPoint))
		}
	}
	return problems
}

// checkPrivateInvokers: each private function is invoked only by its
// named invokers (the owner on the admin, the scheduler's account on the
// sweep), through one binding resource that resolves each symbolic invoker
// in local.invoker_members; public functions list no invokers.
func checkPrivateInvokers(c *config, _ code) []string {
	var problems []string
	fns, err := c.functions()
	if err != nil {
		return []string{err.Error()}
	}
	for _, f := range fns {
		want := privateInvokers[f.entryPoint]
		if f.public {
			want = nil
		}
		if !slices.Equal(f.invokers, want) {
			problems = append(problems, fmt.Sprintf("local.functions[%q] (%s) invokers %q, want %q", f.key, f.entryPoint, f.invokers, want))
		}
	}
	members := c.objectItems(c.locals["invoker_members"])
	if e, ok := members["owner"]; !ok || !slices.Contains(exprRefs(e), "var.owner_email") || !strings.HasPrefix(c.exprSource(e), `"user:`) {
		problems = append(problems, `local.invoker_members.owner must be "user:${var.owner_email}"`)
	}
	if e, ok := members["scheduler"]; !ok || !hasRefPrefix(exprRefs(e), "google_service_account.scheduler.") {
		problems = append(problems, "local.invoker_members.scheduler must be the scheduler's service account")
	}
	for k := range members {
		if k != "owner" && k != "scheduler" {
			problems = append(problems, fmt.Sprintf("local.invoker_members.%s: unknown invoker", k))
		}
	}
	var found bool
	for _, b := range c.resources("google_cloud_run_service_iam_member") {
		if slices.Contains(refs(b, "member"), "local.invoker_members") {
			found = true
			if r := refs(b, "for_each"); !slices.Equal(r, []string{"local.function_invokers"}) {
				problems = append(problems, fmt.Sprintf("%s: for_each %v, want local.function_invokers", blockName(b), r))
			}
			if role, _ := literal(b, "role"); role != "roles/run.invoker" {
				problems = append(problems, fmt.Sprintf("%s: role %q, want roles/run.invoker", blockName(b), role))
			}
		}
	}
	if !found {
		problems = append(problems, "no Cloud Run invoker binding resolves local.invoker_members")
	}
	// The scheduler's account is used by the invoker map and the job's
	// token only: no other grant.
	for _, b := range c.blocks {
		if b.Type != "resource" || b.Labels[0] == "google_cloud_scheduler_job" {
			continue
		}
		for name := range b.Body.Attributes {
			if hasRefPrefix(refs(b, name), "google_service_account.scheduler.") {
				problems = append(problems, fmt.Sprintf("%s.%s refers to the scheduler's account: its only grant is invoker on the sweep", blockName(b), name))
			}
		}
	}
	return problems
}

// checkEntryPoints: local.functions declares exactly the entry points the
// root package registers (and the awaited ones), once each, each under the
// key of the entry package that registers it (functions/<key>/entry, whose
// archive <key>.zip the function is built from).
func checkEntryPoints(c *config, k code) []string {
	var problems []string
	fns, err := c.functions()
	if err != nil {
		return []string{err.Error()}
	}
	var declared []string
	for _, key := range slices.Sorted(maps.Keys(fns)) {
		f := fns[key]
		if slices.Contains(declared, f.entryPoint) {
			problems = append(problems, fmt.Sprintf("entry point %s is declared twice", f.entryPoint))
		}
		declared = append(declared, f.entryPoint)
		switch ep, ok := k.entryPoints[key]; {
		case ok && ep != f.entryPoint:
			problems = append(problems, fmt.Sprintf("function %s deploys entry point %s, but its archive is made from functions/%s/entry, which registers %s", key, f.entryPoint, key, ep))
		case !ok && !slices.Contains(awaitingEntryPoints, f.entryPoint):
			problems = append(problems, fmt.Sprintf("local.functions deploys %s (entry point %s), but no entry package functions/%s/entry registers it", key, f.entryPoint, key))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.entryPoints)) {
		if _, ok := fns[key]; !ok {
			problems = append(problems, fmt.Sprintf("entry point %s is registered (functions/%s/entry) but has no function %s in local.functions", k.entryPoints[key], key, key))
		}
	}
	return problems
}

// checkFunctions: each function is built by the build account into the
// declared repository with the configured runtime, runs as its own account,
// and is sized: 128-256 MiB, a whole CPU when it takes concurrent requests,
// more than one request per instance for the public ones, a stated
// instance cap and timeout.
func checkFunctions(c *config, _ code) []string {
	var problems []string
	b, err := c.functionResource()
	if err != nil {
		return []string{err.Error()}
	}
	name := blockName(b)
	build, service := block(b, "build_config"), block(b, "service_config")
	if build == nil || service == nil {
		return []string{name + ": build_config and service_config are required"}
	}
	if r := refs(build, "runtime"); !slices.Contains(r, "var.go_runtime") {
		problems = append(problems, fmt.Sprintf("%s: runtime %v, want var.go_runtime", name, r))
	}
	if r := refs(build, "service_account"); !hasRefPrefix(r, "google_service_account.build.") {
		problems = append(problems, fmt.Sprintf("%s: build_config.service_account %v, want the build account", name, r))
	}
	if r := refs(build, "docker_repository"); !hasRefPrefix(r, "google_artifact_registry_repository.") {
		problems = append(problems, fmt.Sprintf("%s: build_config.docker_repository %v, want the declared repository", name, r))
	}
	if s := c.sourceOf(service, "service_account_email"); s != "google_service_account.function[each.key].email" {
		problems = append(problems, fmt.Sprintf("%s: service_account_email %q, want google_service_account.function[each.key].email", name, s))
	}
	for attr, want := range map[string]string{
		"available_memory": "each.value.memory", "available_cpu": "each.value.cpu",
		"max_instance_request_concurrency": "each.value.concurrency", "max_instance_count": "each.value.max_instances",
		"timeout_seconds": "each.value.timeout_seconds",
	} {
		if s := c.sourceOf(service, attr); s != want {
			problems = append(problems, fmt.Sprintf("%s: service_config.%s = %q, want %s", name, attr, s, want))
		}
	}
	accounts := c.resource("google_service_account", "function")
	if accounts == nil || !slices.Equal(refs(accounts, "for_each"), []string{"local.functions"}) {
		problems = append(problems, "google_service_account.function must exist with for_each = local.functions (one account per function)")
	}
	fns, err := c.functions()
	if err != nil {
		return append(problems, err.Error())
	}
	for _, f := range slices.Sorted(maps.Keys(fns)) {
		fn := fns[f]
		where := fmt.Sprintf("local.functions[%q]", f)
		if mib, ok := mebibytes(fn.memory); !ok || mib < 128 || mib > 256 {
			problems = append(problems, fmt.Sprintf("%s: memory %q, want 128Mi to 256Mi", where, fn.memory))
		}
		cpu, err := strconv.ParseFloat(fn.cpu, 64)
		if err != nil || cpu <= 0 || cpu > 1 {
			problems = append(problems, fmt.Sprintf("%s: cpu %q, want a stated CPU of at most 1", where, fn.cpu))
		}
		if fn.concurrency < 1 || (fn.public && fn.concurrency < 2) {
			problems = append(problems, fmt.Sprintf("%s: concurrency %d; the code is safe for concurrent requests: take more than one per instance", where, fn.concurrency))
		}
		if fn.concurrency > 1 && cpu < 1 {
			problems = append(problems, fmt.Sprintf("%s: concurrency %d needs a whole CPU, cpu is %q", where, fn.concurrency, fn.cpu))
		}
		if fn.max < 1 || fn.max > 10 {
			problems = append(problems, fmt.Sprintf("%s: max_instances %d, want a cap from 1 to 10", where, fn.max))
		}
		if fn.timeout < 1 || fn.timeout > 540 {
			problems = append(problems, fmt.Sprintf("%s: timeout_seconds %d, want 1 to 540", where, fn.timeout))
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

// functionEnv returns, per function key, the environment variables it can
// receive (plain and Secret Manager-backed) as local.function_environment
// and the function's secret_environment_variables compose them: its groups,
// the database's variables where it holds Firestore, the variables of its
// secrets; and the expressions of the plain ones.
func (c *config) functionEnv(fns map[string]fnDecl) (map[string][]string, map[string]hclsyntax.Expression, []string) {
	var problems []string
	groups := c.objectItems(c.locals["function_env"])
	values := map[string]hclsyntax.Expression{}
	for _, g := range groups {
		for k, e := range c.objectItems(g) {
			values[k] = e
		}
		if f, ok := c.resolve(g).(*hclsyntax.ForExpr); ok {
			for k, e := range c.objectItems(f.CollExpr) {
				values[k] = e
			}
		}
	}
	firestoreEnv := c.objectItems(c.locals["firestore_env"])
	maps.Copy(values, firestoreEnv)
	secretNames := c.objectItems(c.locals["secret_names"])
	for v, e := range secretNames {
		if name, ok := c.objectItems(e)["name"]; ok {
			values[v] = name
		}
	}
	secretEnv := c.objectItems(c.locals["secret_env"])
	env := map[string][]string{}
	for key, f := range fns {
		for _, g := range f.env {
			e, ok := groups[g]
			if !ok {
				problems = append(problems, fmt.Sprintf("local.functions[%q].env names unknown group %q of local.function_env", key, g))
				continue
			}
			env[key] = append(env[key], c.staticKeys(e)...)
		}
		if f.firestore {
			env[key] = append(env[key], slices.Collect(maps.Keys(firestoreEnv))...)
		}
		for _, s := range f.secrets {
			_, named := secretNames[s]
			_, backed := secretEnv[s]
			if !named && !backed {
				problems = append(problems, fmt.Sprintf("local.functions[%q].secrets names %s, which neither local.secret_names nor local.secret_env declares", key, s))
				continue
			}
			env[key] = append(env[key], s)
		}
		slices.Sort(env[key])
	}
	return env, values, problems
}

// checkEnvironment: the functions' environment agrees with shared/config.
// Every function gets the origins; the admin the scheduler job; the handoff
// functions the admin's URL (the database's and the secrets' variables
// follow wiring.Accesses: checkGrants). Every variable set
// is one the config reads, and every variable the config reads is set on a
// function or documented in shared/config/README.md. Values come from the resources
// (database, secrets, job) rather than restating names.
func checkEnvironment(c *config, k code) []string {
	fnRes, err := c.functionResource()
	if err != nil {
		return []string{err.Error()}
	}
	fns, err := c.functions()
	if err != nil {
		return []string{err.Error()}
	}
	service := block(fnRes, "service_config")
	if service == nil {
		return []string{"no service_config"}
	}
	var problems []string
	if s := c.sourceOf(service, "environment_variables"); s != "local.function_environment[each.key]" {
		problems = append(problems, fmt.Sprintf("environment_variables = %s, want local.function_environment[each.key]", s))
	}
	env, values, ps := c.functionEnv(fns)
	problems = append(problems, ps...)
	set := map[string]bool{}
	for key, vars := range env {
		f := fns[key]
		for _, v := range vars {
			set[v] = true
		}
		for _, v := range envEverywhere {
			if !slices.Contains(vars, v) {
				problems = append(problems, fmt.Sprintf("%s: environment variable %s missing", f.entryPoint, v))
			}
		}
		for v, on := range envOn {
			if slices.Contains(on, f.entryPoint) && !slices.Contains(vars, v) {
				problems = append(problems, fmt.Sprintf("%s: environment variable %s missing", f.entryPoint, v))
			}
			if !slices.Contains(on, f.entryPoint) && slices.Contains(vars, v) {
				problems = append(problems, fmt.Sprintf("%s gets %s, which only %v need", f.entryPoint, v, on))
			}
		}
	}
	for v := range set {
		if !slices.Contains(k.configVariables, v) && !slices.Contains(awaitingVariables, v) {
			problems = append(problems, fmt.Sprintf("environment variable %s is set but shared/config does not read it", v))
		}
	}
	for _, v := range k.configVariables {
		if !set[v] && !strings.Contains(k.readme, "`"+v+"`") {
			problems = append(problems, fmt.Sprintf("shared/config reads %s: set it on the functions that need it or document it in shared/config/README.md", v))
		}
	}
	refRule := func(v, prefix, why string) {
		if e, ok := values[v]; ok && !hasRefPrefix(exprRefs(e), prefix) {
			problems = append(problems, fmt.Sprintf("%s must come from %s (%s), not %s", v, prefix, why, c.exprSource(e)))
		}
	}
	refRule("FIRESTORE_DATABASE", "google_firestore_database.", "the database resource")
	refRule("HMAC_SECRET", "google_secret_manager_secret.secret", "the secret resource")
	refRule("HASH_PEPPER_SECRET", "google_secret_manager_secret.secret", "the secret resource")
	refRule("SCHEDULER_JOB", "local.scheduler_job", "the job's full name")
	if e, ok := values["HASH_PEPPER_SECRET"]; ok {
		if s := c.exprSource(e); !strings.Contains(s, `["hash_pepper"]`) || !strings.Contains(s, "/versions/${var.hash_pepper_version}") {
			problems = append(problems, fmt.Sprintf("HASH_PEPPER_SECRET = %s, want the pepper secret's pinned version var.hash_pepper_version", s))
		}
	}
	if e, ok := values["HMAC_SECRET"]; ok && !strings.Contains(c.exprSource(e), `["hmac"]`) {
		problems = append(problems, "HMAC_SECRET must name the hmac secret")
	}
	return problems
}

// checkSecrets: every secret survives destroy; no version is declared (key
// material stays out of Terraform); Secret Manager roles are granted only on
// single secrets, through the accessor resource over local.secret_access;
// only the HMAC key and the pepper are read through the API (their variables
// name them); each function's account reads exactly the secrets of the
// variables in its local.functions[*].secrets (which ones those are is
// checkGrants', against wiring.Accesses), and a Secret Manager-backed one is
// attached only when its destination is on.
func checkSecrets(c *config, _ code) []string {
	var problems []string
	secrets := c.resources("google_secret_manager_secret")
	ids := map[string]bool{}
	for _, b := range secrets {
		if !preventsDestroy(b) {
			problems = append(problems, blockName(b)+" lacks lifecycle { prevent_destroy = true }")
		}
		if r := refs(b, "for_each"); slices.Equal(r, []string{"local.secrets"}) {
			for _, e := range c.objectItems(c.locals["secrets"]) {
				if v, diags := e.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
					ids[v.AsString()] = true
				}
			}
		} else if id, ok := literal(b, "secret_id"); ok {
			ids[id] = true
		}
	}
	for _, id := range []string{hmacSecretID, pepperSecretID} {
		if !ids[id] {
			problems = append(problems, fmt.Sprintf("no secret %s", id))
		}
	}
	for _, b := range c.resources("google_secret_manager_secret_version") {
		problems = append(problems, blockName(b)+": secret versions are added out of band, never from Terraform")
	}
	for _, l := range c.literals() {
		if !strings.HasPrefix(l.value, "roles/secretmanager.") {
			continue
		}
		if l.block.Type != "resource" || l.block.Labels[0] != "google_secret_manager_secret_iam_member" || l.attr != "role" {
			problems = append(problems, fmt.Sprintf("%s.%s grants %s beyond a single secret", blockName(l.block), l.attr, l.value))
		} else if l.value != "roles/secretmanager.secretAccessor" {
			problems = append(problems, fmt.Sprintf("%s grants %s, want only roles/secretmanager.secretAccessor", blockName(l.block), l.value))
		}
	}
	fns, err := c.functions()
	if err != nil {
		return append(problems, err.Error())
	}
	secretIDs := map[string]string{}
	for key, e := range c.objectItems(c.locals["secrets"]) {
		if v, diags := e.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
			secretIDs[key] = v.AsString()
		}
	}
	secretOf := c.secretVariables()
	named := map[string]string{} // variable read through the API -> secret id
	for v := range c.objectItems(c.locals["secret_names"]) {
		named[v] = secretIDs[secretOf[v]]
	}
	if want := map[string]string{"HMAC_SECRET": hmacSecretID, "HASH_PEPPER_SECRET": pepperSecretID}; !maps.Equal(named, want) {
		problems = append(problems, fmt.Sprintf("local.secret_names, the secrets read through the API, are %v; want only %v", named, want))
	}
	want := map[string]bool{}
	for _, f := range fns {
		for _, v := range f.secrets {
			if s, ok := secretOf[v]; ok {
				want[f.key+" "+s] = true
			}
		}
	}
	var accessors []*hclsyntax.Block
	for _, b := range c.resources("google_secret_manager_secret_iam_member") {
		accessors = append(accessors, b)
	}
	if len(accessors) != 1 {
		return append(problems, fmt.Sprintf("%d google_secret_manager_secret_iam_member resources, want 1 over local.secret_access", len(accessors)))
	}
	a := accessors[0]
	if r := refs(a, "for_each"); !slices.Equal(r, []string{"local.secret_access"}) {
		problems = append(problems, fmt.Sprintf("%s: for_each %v, want local.secret_access", blockName(a), r))
	}
	if s := c.sourceOf(a, "secret_id"); s != "google_secret_manager_secret.secret[each.value.secret].secret_id" {
		problems = append(problems, fmt.Sprintf("%s: secret_id = %s", blockName(a), s))
	}
	if s := c.sourceOf(a, "member"); s != `"serviceAccount:${google_service_account.function[each.value.function].email}"` {
		problems = append(problems, fmt.Sprintf("%s: member = %s, want the function's own account", blockName(a), s))
	}
	pairs, err := c.forEachValues(a)
	if err != nil {
		return append(problems, err.Error())
	}
	got := map[string]bool{}
	for _, p := range pairs {
		got[attrString(p, "function")+" "+attrString(p, "secret")] = true
	}
	for p := range got {
		if !want[p] {
			problems = append(problems, fmt.Sprintf("local.secret_access grants %q, which no variable of that function needs", p))
		}
	}
	for p := range want {
		if !got[p] {
			problems = append(problems, fmt.Sprintf("local.secret_access lacks %q", p))
		}
	}
	// The function resource attaches each Secret Manager-backed variable
	// from its secret, and only when its destination is on.
	if fnRes, err := c.functionResource(); err == nil {
		var dyn *hclsyntax.Block
		if service := block(fnRes, "service_config"); service != nil {
			for _, ib := range service.Body.Blocks {
				if ib.Type == "dynamic" && len(ib.Labels) == 1 && ib.Labels[0] == "secret_environment_variables" {
					dyn = ib
				}
			}
		}
		if dyn == nil {
			problems = append(problems, "no dynamic secret_environment_variables block over local.secret_env")
		} else {
			if s := c.sourceOf(dyn, "for_each"); !strings.Contains(s, "local.secret_env") || !strings.Contains(s, "each.value.secrets") || !strings.Contains(s, ".enabled") {
				problems = append(problems, fmt.Sprintf("secret_environment_variables for_each = %s, want local.secret_env among each.value.secrets, filtered by .enabled", s))
			}
			if content := block(dyn, "content"); content == nil || !strings.HasPrefix(c.sourceOf(content, "secret"), "google_secret_manager_secret.secret[") {
				problems = append(problems, "secret_environment_variables must name the secret resource")
			}
		}
	}
	return problems
}

// allowedProjectRoles are the roles granted on the whole project, each with
// why it cannot be narrower. Everything else is granted on one resource.
var allowedProjectRoles = map[string]string{
	"roles/datastore.user":    "Firestore grants only on the project; conditioned to the database",
	"roles/logging.logWriter": "the build writes its log entries to the project",
	"roles/storage.objectAdmin": "the build reads the source from Cloud Run functions' own bucket, not declared here; " +
		"conditioned to the source buckets",
}

// checkIAM: project-level grants are additive (never authoritative), never
// basic roles, and only the allowed ones: Firestore conditioned to the named
// database, the build's log writer and conditioned source access, and the
// admin's custom role reading the scheduler job.
func checkIAM(c *config, _ code) []string {
	var problems []string
	for _, typ := range []string{"google_project_iam_binding", "google_project_iam_policy"} {
		for _, b := range c.resources(typ) {
			problems = append(problems, blockName(b)+": authoritative project IAM would remove the project's other grants")
		}
	}
	for _, l := range c.literals() {
		if slices.Contains([]string{"roles/owner", "roles/editor", "roles/viewer", "roles/cloudbuild.builds.builder", "roles/run.admin"}, l.value) {
			problems = append(problems, fmt.Sprintf("%s.%s grants %s", blockName(l.block), l.attr, l.value))
		}
		if strings.HasPrefix(l.value, "roles/cloudscheduler.") {
			problems = append(problems, fmt.Sprintf("%s.%s grants %s on the project: use the one-permission custom role", blockName(l.block), l.attr, l.value))
		}
	}
	dbRef := "google_firestore_database."
	customRoleGranted := false
	for _, b := range c.resources("google_project_iam_member") {
		name := blockName(b)
		role, ok := literal(b, "role")
		if !ok {
			if hasRefPrefix(refs(b, "role"), "google_project_iam_custom_role.scheduler_job_reader.") {
				customRoleGranted = true
				if r := refs(b, "member"); !hasRefPrefix(r, "google_service_account.function") || !strings.Contains(c.sourceOf(b, "member"), `["admin"]`) {
					problems = append(problems, fmt.Sprintf("%s: the scheduler job reader role goes to the admin's account only", name))
				}
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: role %s is neither a predefined role nor the scheduler job reader", name, c.sourceOf(b, "role")))
			continue
		}
		if _, ok := allowedProjectRoles[role]; !ok {
			problems = append(problems, fmt.Sprintf("%s: %s on the whole project; grant it on the resource", name, role))
			continue
		}
		cond := block(b, "condition")
		switch role {
		case "roles/datastore.user":
			if cond == nil || !hasRefPrefix(refs(cond, "expression"), dbRef) || !strings.Contains(c.sourceOf(cond, "expression"), `resource.name == \"projects/${var.project_id}/databases/`) {
				problems = append(problems, fmt.Sprintf("%s: roles/datastore.user must be conditioned to resource.name == the named database", name))
			}
		case "roles/storage.objectAdmin":
			if cond == nil || !strings.Contains(c.sourceOf(cond, "expression"), "gcf-v2-sources-") {
				problems = append(problems, fmt.Sprintf("%s: roles/storage.objectAdmin must be conditioned to the source buckets", name))
			}
			fallthrough
		case "roles/logging.logWriter":
			if !hasRefPrefix(refs(b, "member"), "google_service_account.build.") {
				problems = append(problems, fmt.Sprintf("%s: %s is the build account's", name, role))
			}
		}
	}
	if role := c.resource("google_project_iam_custom_role", "scheduler_job_reader"); role == nil {
		problems = append(problems, "no google_project_iam_custom_role.scheduler_job_reader")
	} else if v, err := c.eval(role.Body.Attributes["permissions"].Expr); err != nil || v.LengthInt() != 1 || !v.Index(cty.NumberIntVal(0)).RawEquals(cty.StringVal("cloudscheduler.jobs.get")) {
		problems = append(problems, fmt.Sprintf("the scheduler job reader role's permissions must be exactly cloudscheduler.jobs.get (%v)", err))
	}
	if !customRoleGranted {
		problems = append(problems, "the admin's account is not granted the scheduler job reader role")
	}
	// Datastore for the accounts of the functions that hold Firestore
	// (which ones: checkGrants).
	ds := slices.IndexFunc(c.resources("google_project_iam_member"), func(b *hclsyntax.Block) bool {
		r, _ := literal(b, "role")
		return r == "roles/datastore.user"
	})
	if ds < 0 {
		problems = append(problems, "the functions' accounts are not granted roles/datastore.user")
	} else if b := c.resources("google_project_iam_member")[ds]; !slices.Equal(refs(b, "for_each"), []string{"local.firestore_functions"}) {
		problems = append(problems, blockName(b)+": roles/datastore.user goes to the accounts of the functions that hold Firestore (for_each = local.firestore_functions)")
	}
	return problems
}

// checkBuild: the functions build from the declared bucket's archive, as
// the build account, which can write logs, push to the one repository and
// read the sources, and nothing more.
func checkBuild(c *config, _ code) []string {
	var problems []string
	fnRes, err := c.functionResource()
	if err != nil {
		return []string{err.Error()}
	}
	if build := block(fnRes, "build_config"); build != nil {
		var storage *hclsyntax.Block
		if src := block(build, "source"); src != nil {
			storage = block(src, "storage_source")
		}
		if storage == nil || !hasRefPrefix(refs(storage, "bucket"), "google_storage_bucket.sources.") || !strings.Contains(c.sourceOf(storage, "object"), "google_storage_bucket_object.source[each.key].") {
			problems = append(problems, "each function must build from its own google_storage_bucket_object.source[each.key] in google_storage_bucket.sources")
		}
	}
	archive := `"${var.source_dir}/${each.key}.zip"`
	if obj := c.resource("google_storage_bucket_object", "source"); obj == nil {
		problems = append(problems, "no google_storage_bucket_object.source")
	} else {
		if c.sourceOf(obj, "for_each") != "local.functions" {
			problems = append(problems, "google_storage_bucket_object.source must have for_each = local.functions: one archive per function")
		}
		if c.sourceOf(obj, "source") != archive {
			problems = append(problems, "google_storage_bucket_object.source must upload "+archive+", the archive deploy.sh makes from functions/<key>/entry")
		}
		if !strings.Contains(c.sourceOf(obj, "name"), "filemd5("+archive+")") || !strings.Contains(c.sourceOf(obj, "name"), "${each.key}") {
			problems = append(problems, "google_storage_bucket_object.source must be named by the function and filemd5("+archive+"), so a function's new code redeploys it and the same code does not")
		}
	}
	if bucket := c.resource("google_storage_bucket", "sources"); bucket == nil {
		problems = append(problems, "no google_storage_bucket.sources")
	} else if v, _ := literal(bucket, "public_access_prevention"); v != "enforced" {
		problems = append(problems, "google_storage_bucket.sources: public_access_prevention must be enforced")
	}
	grants := map[string]bool{}
	for _, b := range c.blocks {
		if b.Type != "resource" || !strings.HasSuffix(b.Labels[0], "_iam_member") {
			continue
		}
		if !hasRefPrefix(refs(b, "member"), "google_service_account.build.") {
			continue
		}
		role, _ := literal(b, "role")
		grants[b.Labels[0]+" "+role] = true
	}
	want := map[string]bool{
		"google_project_iam_member roles/logging.logWriter":                            true,
		"google_project_iam_member roles/storage.objectAdmin":                          true,
		"google_artifact_registry_repository_iam_member roles/artifactregistry.writer": true,
	}
	for g := range grants {
		if !want[g] {
			problems = append(problems, fmt.Sprintf("the build account is granted %s, beyond what a build needs", g))
		}
	}
	for g := range want {
		if !grants[g] {
			problems = append(problems, fmt.Sprintf("the build account lacks %s", g))
		}
	}
	return problems
}

// checkScheduler: one Cloud Scheduler job POSTs to the sweep's
// /internal/sweep with an OIDC token of the scheduler's account whose
// audience is the sweep's URL; it retries; its attempt deadline exceeds the
// sweep's timeout; the API is enabled; the admin's SCHEDULER_JOB names it.
func checkScheduler(c *config, _ code) []string {
	var problems []string
	jobs := c.resources("google_cloud_scheduler_job")
	if len(jobs) != 1 {
		return []string{fmt.Sprintf("%d google_cloud_scheduler_job resources, want 1", len(jobs))}
	}
	job := jobs[0]
	target := block(job, "http_target")
	if target == nil {
		return []string{"the scheduler job has no http_target"}
	}
	if m, _ := literal(target, "http_method"); m != "POST" {
		problems = append(problems, fmt.Sprintf("http_method %q, want POST", m))
	}
	sweepURL := `google_cloudfunctions2_function.function["sweep"].service_config[0].uri`
	if s := c.sourceOf(target, "uri"); s != `"${`+sweepURL+`}/internal/sweep"` {
		problems = append(problems, fmt.Sprintf("uri = %s, want the sweep's URL + /internal/sweep", s))
	}
	oidc := block(target, "oidc_token")
	if oidc == nil {
		problems = append(problems, "http_target has no oidc_token (Cloud Run IAM needs an identity token)")
	} else {
		if !hasRefPrefix(refs(oidc, "service_account_email"), "google_service_account.scheduler.") {
			problems = append(problems, "oidc_token.service_account_email must be the scheduler's account")
		}
		if s := c.sourceOf(oidc, "audience"); s != sweepURL {
			problems = append(problems, fmt.Sprintf("oidc_token.audience = %s, want the sweep's URL", s))
		}
	}
	if rc := block(job, "retry_config"); rc == nil {
		problems = append(problems, "the scheduler job has no retry_config")
	} else if v, err := c.eval(rc.Body.Attributes["retry_count"].Expr); err != nil || v.Type() != cty.Number || v.LessThan(cty.NumberIntVal(1)).True() {
		problems = append(problems, "retry_config.retry_count must be at least 1")
	}
	fns, err := c.functions()
	if err != nil {
		return append(problems, err.Error())
	}
	sweep, ok := byEntryPoint(fns, "Sweep")
	if !ok {
		problems = append(problems, "no Sweep function")
	} else if a, ok := job.Body.Attributes["attempt_deadline"]; !ok {
		problems = append(problems, "the scheduler job has no attempt_deadline")
	} else if v, err := c.eval(a.Expr); err != nil || v.Type() != cty.String {
		problems = append(problems, fmt.Sprintf("attempt_deadline: cannot evaluate: %v", err))
	} else if d, err := time.ParseDuration(v.AsString()); err != nil || d <= time.Duration(sweep.timeout)*time.Second || d > 30*time.Minute {
		problems = append(problems, fmt.Sprintf("attempt_deadline %s, want above the sweep's timeout (%ds) and at most 30m", v.AsString(), sweep.timeout))
	}
	if s := c.sourceOf(job, "name"); s != "local.scheduler_job_name" {
		problems = append(problems, fmt.Sprintf("job name = %s, want local.scheduler_job_name", s))
	}
	if s := c.sourceOf(job, "region"); s != "local.scheduler_region" {
		problems = append(problems, fmt.Sprintf("job region = %s, want local.scheduler_region", s))
	}
	if e, ok := c.locals["scheduler_job"]; !ok || c.exprSource(e) != `"projects/${var.project_id}/locations/${local.scheduler_region}/jobs/${local.scheduler_job_name}"` {
		problems = append(problems, "local.scheduler_job must be projects/${var.project_id}/locations/${local.scheduler_region}/jobs/${local.scheduler_job_name}")
	}
	services, err := c.eval(c.locals["services"])
	if err != nil || !services.CanIterateElements() {
		problems = append(problems, fmt.Sprintf("local.services: %v", err))
	} else {
		found := false
		for it := services.ElementIterator(); it.Next(); {
			_, s := it.Element()
			found = found || s.RawEquals(cty.StringVal("cloudscheduler.googleapis.com"))
		}
		if !found {
			problems = append(problems, "cloudscheduler.googleapis.com is not enabled")
		}
	}
	return problems
}

// apiResources are the resource types that call an API a new project has not
// enabled yet: each depends on google_project_service.enabled, so a first
// apply enables the APIs before using them.
var apiResources = []string{
	"google_service_account", "google_project_iam_member", "google_project_iam_custom_role",
	"google_secret_manager_secret", "google_storage_bucket", "google_artifact_registry_repository",
	"google_firestore_database", "google_cloud_scheduler_job", "google_cloudfunctions2_function",
	"google_logging_metric", "google_monitoring_notification_channel", "google_monitoring_alert_policy",
}

// checkAPIs: the APIs used are enabled (Resource Manager too, for the
// project grants), and every resource calling one waits for that.
func checkAPIs(c *config, _ code) []string {
	var problems []string
	services, err := c.eval(c.locals["services"])
	if err != nil || !services.CanIterateElements() {
		return []string{fmt.Sprintf("local.services: %v", err)}
	}
	var enabled []string
	for it := services.ElementIterator(); it.Next(); {
		_, s := it.Element()
		enabled = append(enabled, s.AsString())
	}
	for _, api := range []string{"cloudbuild", "cloudfunctions", "cloudresourcemanager", "cloudscheduler", "firebaserules", "firestore", "iam", "logging", "monitoring", "run", "secretmanager", "storage", "artifactregistry"} {
		if !slices.Contains(enabled, api+".googleapis.com") {
			problems = append(problems, fmt.Sprintf("%s.googleapis.com is not enabled", api))
		}
	}
	for _, typ := range apiResources {
		for _, b := range c.resources(typ) {
			if !slices.Contains(refs(b, "depends_on"), "google_project_service.enabled") {
				problems = append(problems, fmt.Sprintf("%s does not depend on google_project_service.enabled: a first apply may call its API before it is enabled", blockName(b)))
			}
		}
	}
	return problems
}

// checkProvider: the google provider is pinned to one major version
// (~> N.M), and a committed lock file, once there, holds a version inside it.
func checkProvider(c *config, _ code) []string {
	var constraint string
	for _, b := range c.blocks {
		if b.Type != "terraform" {
			continue
		}
		if rp := block(b, "required_providers"); rp != nil {
			if a, ok := rp.Body.Attributes["google"]; ok {
				if v, err := c.eval(a.Expr); err == nil && v.Type().IsObjectType() {
					constraint = attrString(v, "version")
				}
			}
		}
	}
	m := regexp.MustCompile(`^~> ?([0-9]+)\.[0-9]+$`).FindStringSubmatch(constraint)
	if m == nil {
		return []string{fmt.Sprintf("google provider version %q, want one major version pinned as ~> N.M", constraint)}
	}
	lock, ok := c.files[".terraform.lock.hcl"]
	if !ok {
		return nil
	}
	v := regexp.MustCompile(`(?m)^provider "[^"]*/hashicorp/google" \{\s*version\s*=\s*"([0-9]+)\.`).FindStringSubmatch(lock)
	if v == nil || v[1] != m[1] {
		return []string{fmt.Sprintf(".terraform.lock.hcl does not lock hashicorp/google at major version %s", m[1])}
	}
	return nil
}

// checkRules: the rules file the ruleset loads denies every read and write,
// and the release binds it to the named database.
func checkRules(c *config, _ code) []string {
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

// namedCheck is one invariant of the configuration.
type namedCheck struct {
	name  string
	check func(*config, code) []string
}

var checks = []namedCheck{
	{"database", checkDatabase},
	{"ttl", checkTTL},
	{"indexes", checkIndexes},
	{"public access", checkPublicAccess},
	{"private invokers", checkPrivateInvokers},
	{"entry points", checkEntryPoints},
	{"functions", checkFunctions},
	{"environment", checkEnvironment},
	{"secrets", checkSecrets},
	{"grants", checkGrants},
	{"attachments bucket", checkAttachmentsBucket},
	{"iam", checkIAM},
	{"build", checkBuild},
	{"scheduler", checkScheduler},
	{"apis", checkAPIs},
	{"provider", checkProvider},
	{"rules", checkRules},
	{"monitoring", checkMonitoring},
}

func TestInvariants(t *testing.T) {
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	k := realCode(t)
	for _, tt := range checks {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range tt.check(c, k) {
				t.Error(p)
			}
		})
	}
}

// TestAwaitedNamesAreDeclared: each awaited entry point is one infra/
// deploys, and each awaited variable one it sets, so the lists excuse
// nothing else. The log says when the code has caught up and a name can
// leave its list.
func TestAwaitedNamesAreDeclared(t *testing.T) {
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	fns, err := c.functions()
	if err != nil {
		t.Fatal(err)
	}
	env, _, problems := c.functionEnv(fns)
	for _, p := range problems {
		t.Error(p)
	}
	k := realCode(t)
	for _, ep := range awaitingEntryPoints {
		if _, ok := byEntryPoint(fns, ep); !ok {
			t.Errorf("awaitingEntryPoints lists %s, which local.functions does not deploy", ep)
		}
		if slices.Contains(slices.Collect(maps.Values(k.entryPoints)), ep) {
			t.Logf("entry point %s is now registered: it can leave awaitingEntryPoints", ep)
		}
	}
	for _, v := range awaitingVariables {
		set := false
		for _, vars := range env {
			set = set || slices.Contains(vars, v)
		}
		if !set {
			t.Errorf("awaitingVariables lists %s, which no function gets", v)
		}
		if slices.Contains(k.configVariables, v) {
			t.Logf("variable %s is now read by shared/config: it can leave awaitingVariables", v)
		}
	}
}

// breakage is one broken copy of the configuration or of the code's facts,
// and the problem a check must then report.
type breakage struct {
	name     string
	file     string // "" when only the code changes
	old, new string
	code     func(*code)
	check    string
	want     string // substring of one reported problem
}

// compositeIndex replaces the opening of local.composite_indexes, adding
// one entry before those it holds.
const compositeIndex = `composite_indexes = {
    envelopes_due = {
      collection = "envelopes"
      fields = [
        { path = "status", descending = false, array_contains = false },
        { path = "nextAttemptAt", descending = false, array_contains = false },
      ]
    }
`

var dueEnvelopes = firestorestore.IndexedQuery{Name: "due envelopes", Collection: "envelopes",
	Fields: []firestorestore.QueryField{{Path: "status"}, {Path: "nextAttemptAt"}}}

var breakages = []breakage{
	{name: "a metric counts a message the code does not write", file: "monitoring.tf", old: `messages    = ["delivery: attempted", "delivery: provider event"]`, new: `messages    = ["delivery: attempt", "delivery: provider event"]`, check: "monitoring", want: `counts "delivery: attempt", which no log call`},
	{name: "a metric filters on a field the code does not log", file: "monitoring.tf", old: `fields      = { status = "FAILED" }`, new: `fields      = { state = "FAILED" }`, check: "monitoring", want: "no log call of it names them all"},
	{name: "a metric filters on a status no envelope holds", file: "monitoring.tf", old: `fields      = { status = "FAILED" }`, new: `fields      = { status = "FAILURE" }`, check: "monitoring", want: `status "FAILURE"`},
	{name: "the code stops logging the status", code: func(k *code) {
		k.logged = maps.Clone(k.logged)
		k.logged["delivery: attempted"] = [][]string{{"sent"}}
	}, check: "monitoring", want: "no log call of it names them all"},
	{name: "alerts to someone else", file: "monitoring.tf", old: `email_address = local.alert_email`, new: `email_address = "ops@example.com"`, check: "monitoring", want: "must mail local.alert_email"},
	{name: "a delivery alert that waits for a second failure", file: "monitoring.tf", old: `"COMPARISON_GT"
      threshold_value = 0`, new: `"COMPARISON_GT"
      threshold_value = 1`, check: "monitoring", want: "alert delivery_failed: a condition that does not fire on the first event"},
	{name: "a sweep silent for two days", file: "monitoring.tf", old: `sweep_silence = "26h"`, new: `sweep_silence = "48h"`, check: "monitoring", want: "must be 26h"},
	{name: "no 5xx alert", file: "monitoring.tf", old: `resource "google_monitoring_alert_policy" "server_errors" {`, new: `resource "google_monitoring_alert_policy" "errors" {`, check: "monitoring", want: "no google_monitoring_alert_policy.server_errors"},
	{name: "an alert mails no one", file: "monitoring.tf", old: `display_name          = "Introductions: a delivery FAILED"
  combiner              = "OR"
  notification_channels = [google_monitoring_notification_channel.owner.id]`, new: `display_name          = "Introductions: a delivery FAILED"
  combiner              = "OR"
  notification_channels = []`, check: "monitoring", want: "alert delivery_failed does not mail"},
	{name: "database default is (default)", file: "variables.tf", old: `default     = "introductions"`, new: `default     = "(default)"`, check: "database", want: `default "(default)"`},
	{name: "validation dropped", file: "variables.tf", old: `var.firestore_database != "(default)" && can(`, new: `true || can(`, check: "database", want: `accepts "(default)"`},
	{name: "database named by a literal", file: "firestore.tf", old: `name                              = var.firestore_database`, new: `name                              = "(default)"`, check: "database", want: "not exactly a variable"},
	{name: "datastore mode", file: "firestore.tf", old: `"FIRESTORE_NATIVE"`, new: `"DATASTORE_MODE"`, check: "database", want: "FIRESTORE_NATIVE"},
	{name: "delete protection off", file: "firestore.tf", old: `"DELETE_PROTECTION_ENABLED"`, new: `"DELETE_PROTECTION_DISABLED"`, check: "database", want: "delete_protection_state"},
	{name: "no point-in-time recovery", file: "firestore.tf", old: `"POINT_IN_TIME_RECOVERY_ENABLED"`, new: `"POINT_IN_TIME_RECOVERY_DISABLED"`, check: "database", want: "point_in_time_recovery"},

	{name: "TTL field renamed", file: "firestore.tf", old: `field      = "expireAt"`, new: `field      = "expiresAt"`, check: "ttl", want: "want expireAt"},
	{name: "ledger loses its TTL", file: "firestore.tf", old: `    "ledger",` + "\n", new: "", check: "ttl", want: "no TTL policy on ledger.expireAt"},
	{name: "collection typo", file: "firestore.tf", old: `"rateCounters"`, new: `"rateCounter"`, check: "ttl", want: `unknown collection "rateCounter"`},
	{name: "the store writes a new collection", code: func(k *code) { k.collections = append(slices.Clone(k.collections), "auditTrail") }, check: "ttl", want: "no TTL policy on auditTrail.expireAt"},
	{name: "TTL field indexes replaced", file: "firestore.tf", old: "  ttl_config {}\n", new: "  ttl_config {}\n  index_config {}\n", check: "ttl", want: "index_config replaces"},

	{name: "composite query without index", code: func(k *code) { k.queries = append(slices.Clone(k.queries), dueEnvelopes) }, check: "indexes", want: `query "due envelopes" on envelopes needs a composite index`},
	{name: "composite index in the wrong order", file: "firestore.tf", old: "composite_indexes = {\n", new: strings.Replace(compositeIndex, `path = "status"`, `path = "statusX"`, 1),
		code: func(k *code) { k.queries = append(slices.Clone(k.queries), dueEnvelopes) }, check: "indexes", want: "needs a composite index"},
	{name: "expireAt exempted from indexing", file: "firestore.tf", old: "  ttl_config {}\n", new: "  ttl_config {}\n  index_config {}\n",
		code: func(k *code) {
			k.queries = append(slices.Clone(k.queries), firestorestore.IndexedQuery{Name: "expired drafts", Collection: "introductions", Fields: []firestorestore.QueryField{{Path: "expireAt"}}})
		}, check: "indexes", want: `query "expired drafts" needs the automatic index on introductions.expireAt`},

	{name: "sweep made public", file: "functions.tf", old: "entry_point     = \"Sweep\"\n      public          = false", new: "entry_point     = \"Sweep\"\n      public          = true", check: "public access", want: `"Sweep"`},
	{name: "drafts made private", file: "functions.tf", old: "entry_point     = \"Drafts\"\n      public          = true", new: "entry_point     = \"Drafts\"\n      public          = false", check: "public access", want: "want exactly"},
	{name: "allAuthenticatedUsers as an invoker", file: "functions.tf", old: `owner     = "user:${var.owner_email}"`, new: `owner     = "allAuthenticatedUsers"`, check: "public access", want: `invoker_members grants "allAuthenticatedUsers"`},
	{name: "allUsers reads a secret", file: "secrets.tf", old: `member    = "serviceAccount:${google_service_account.function[each.value.function].email}"`, new: `member    = "allUsers"`, check: "public access", want: "google_secret_manager_secret_iam_member.accessor.member"},
	{name: "public invoker with another role", file: "functions.tf", old: "role     = \"roles/run.invoker\"\n  member   = \"allUsers\"", new: "role     = \"roles/run.admin\"\n  member   = \"allUsers\"", check: "public access", want: "roles/run.admin"},

	{name: "the scheduler invokes the admin", file: "functions.tf", old: `invokers        = ["owner"]`, new: `invokers        = ["owner", "scheduler"]`, check: "private invokers", want: `(Admin) invokers ["owner" "scheduler"]`},
	{name: "the owner is a group", file: "functions.tf", old: `owner     = "user:${var.owner_email}"`, new: `owner     = "group:${var.owner_email}"`, check: "private invokers", want: "local.invoker_members.owner"},
	{name: "the scheduler's account is granted more", file: "iam.tf", old: `member  = "serviceAccount:${google_service_account.function["admin"].email}"`, new: `member  = "serviceAccount:${google_service_account.scheduler.email}"`, check: "private invokers", want: "its only grant is invoker on the sweep"},

	{name: "a function built from another function's archive", file: "functions.tf", old: `entry_point     = "Forms"`, new: `entry_point     = "Drafts"`, check: "entry points", want: "function forms deploys entry point Drafts, but its archive is made from functions/forms/entry"},
	{name: "a function without an entry package", code: func(k *code) { k.entryPoints = maps.Clone(k.entryPoints); delete(k.entryPoints, "sweep") }, check: "entry points", want: "no entry package functions/sweep/entry"},
	{name: "an entry point registered but not deployed", code: func(k *code) { k.entryPoints = maps.Clone(k.entryPoints); k.entryPoints["digest"] = "Digest" }, check: "entry points", want: "entry point Digest is registered"},
	{name: "a function deploys an unknown entry point", file: "functions.tf", old: `entry_point     = "Forms"`, new: `entry_point     = "Form"`, check: "entry points", want: "function forms deploys entry point Form, but its archive is made from functions/forms/entry, which registers Forms"},

	{name: "too much memory", file: "functions.tf", old: "memory          = \"256Mi\"\n      cpu             = \"1\"\n      concurrency     = 20\n      max_instances   = 5\n      timeout_seconds = 300 # an attachment's upload on a slow link (drafts.UploadTime)\n    }\n    confirmation", new: "memory          = \"1Gi\"\n      cpu             = \"1\"\n      concurrency     = 20\n      max_instances   = 5\n      timeout_seconds = 300\n    }\n    confirmation", check: "functions", want: `memory "1Gi"`},
	{name: "one request per instance", file: "functions.tf", old: "concurrency     = 40\n      max_instances   = 5", new: "concurrency     = 1\n      max_instances   = 5", check: "functions", want: "take more than one per instance"},
	{name: "concurrency on a fraction of a CPU", file: "functions.tf", old: "cpu             = \"1\"\n      concurrency     = 40\n      max_instances   = 5", new: "cpu             = \"0.5\"\n      concurrency     = 40\n      max_instances   = 5", check: "functions", want: "needs a whole CPU"},
	{name: "no instance cap", file: "functions.tf", old: "max_instances   = 3\n      timeout_seconds = 30\n    }\n    drafts", new: "max_instances   = 100\n      timeout_seconds = 30\n    }\n    drafts", check: "functions", want: "max_instances 100"},
	{name: "default build account", file: "functions.tf", old: "    service_account   = google_service_account.build.id\n", new: "", check: "functions", want: "build_config.service_account"},
	{name: "a shared runtime account", file: "functions.tf", old: "service_account_email            = google_service_account.function[each.key].email", new: `service_account_email            = google_service_account.function["drafts"].email`, check: "functions", want: "service_account_email"},

	{name: "origins missing", file: "functions.tf", old: "      ALLOWED_ORIGINS = join(\",\", var.site_origins)\n", new: "", check: "environment", want: "ALLOWED_ORIGINS missing"},
	{name: "FIRESTORE_DATABASE hard-coded", file: "functions.tf", old: "FIRESTORE_DATABASE = google_firestore_database.introductions.name", new: `FIRESTORE_DATABASE = "introductions"`, check: "environment", want: "FIRESTORE_DATABASE must come"},
	{name: "pepper follows the latest version", file: "secrets.tf", old: `/versions/${var.hash_pepper_version}"`, new: `/versions/latest"`, check: "environment", want: "pinned version"},
	{name: "the admin cannot find the job", file: "functions.tf", old: "      SCHEDULER_JOB   = local.scheduler_job\n", new: "", check: "environment", want: "Admin: environment variable SCHEDULER_JOB missing"},
	{name: "the sweep without the admin's URL", file: "functions.tf", old: `env             = ["base", "handoff"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 4`, new: `env             = ["base"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 4`, check: "environment", want: "Sweep: environment variable ADMIN_URL missing"},
	{name: "a variable name typo", file: "functions.tf", old: "FIRESTORE_PROJECT  = var.project_id", new: "FIRESTORE_PROJCT   = var.project_id", check: "environment", want: "FIRESTORE_PROJCT is set but shared/config does not read it"},
	{name: "the config reads an undocumented variable", code: func(k *code) { k.configVariables = append(slices.Clone(k.configVariables), "SWEEP_BATCH") }, check: "environment", want: "shared/config reads SWEEP_BATCH"},

	{name: "a secret can be destroyed", file: "secrets.tf", old: "  lifecycle {\n    prevent_destroy = true\n  }\n", new: "", check: "secrets", want: "prevent_destroy"},
	{name: "key material in Terraform", file: "secrets.tf", old: `resource "google_secret_manager_secret_iam_member"`, new: "resource \"google_secret_manager_secret_version\" \"k\" {\n  secret      = google_secret_manager_secret.secret[\"hmac\"].id\n  secret_data = \"x\"\n}\n\nresource \"google_secret_manager_secret_iam_member\"", check: "secrets", want: "out of band"},
	{name: "accessor project-wide", file: "secrets.tf", old: `resource "google_secret_manager_secret_iam_member" "accessor" {
  for_each = local.secret_access

  project   = var.project_id
  secret_id = google_secret_manager_secret.secret[each.value.secret].secret_id
`, new: `resource "google_project_iam_member" "accessor" {
  for_each = local.secret_access

  project   = var.project_id
`, check: "secrets", want: "beyond a single secret"},
	{name: "every account reads the SMTP password", file: "secrets.tf", old: `secret = local.secret_of[v] }`, new: `secret = "smtp_password" }`, check: "secrets", want: `grants "challenge smtp_password", which no variable of that function needs`},
	{name: "the SMTP password read through the API", file: "secrets.tf", old: "  secret_names = {\n", new: "  secret_names = {\n    SMTP_PASSWORD = { secret = \"smtp_password\", name = google_secret_manager_secret.secret[\"smtp_password\"].id }\n", check: "secrets", want: "local.secret_names, the secrets read through the API"},
	{name: "a secret attached while its destination is off", file: "functions.tf", old: "s if s.enabled && contains(each.value.secrets, v) }", new: "s if contains(each.value.secrets, v) }", check: "secrets", want: "filtered by .enabled"},

	{name: "every function holds Firestore", file: "iam.tf", old: "for_each = local.firestore_functions", new: "for_each = local.functions", check: "grants", want: `Challenge: extra grant roles/datastore.user on the project (google_project_iam_member.datastore_user["challenge"])`},
	{name: "the attachments are public", file: "attachments.tf", old: `public_access_prevention    = "enforced"`, new: `public_access_prevention    = "inherited"`, check: "attachments bucket", want: "public_access_prevention"},
	{name: "deleted attachments kept a week", file: "attachments.tf", old: "retention_duration_seconds = 0", new: "retention_duration_seconds = 604800", check: "attachments bucket", want: "soft_delete_policy.retention_duration_seconds"},
	{name: "no backstop past the retention", file: "attachments.tf", old: "age = local.introduction_retention_days + 1", new: "age = 365", check: "attachments bucket", want: "lifecycle age = 365"},
	{name: "a retention other than the code's", file: "attachments.tf", old: "introduction_retention_days = 180", new: "introduction_retention_days = 30", check: "attachments bucket", want: "must be the code's introduction retention, 180 days"},
	{name: "DeliveryEvents holds the attachments", file: "functions.tf", old: "entry_point     = \"DeliveryEvents\"\n      public          = true\n      invokers        = []\n      attachments     = false", new: "entry_point     = \"DeliveryEvents\"\n      public          = true\n      invokers        = []\n      attachments     = true", check: "grants", want: "DeliveryEvents: extra grant roles/storage.objectUser on the attachments' bucket"},
	{name: "the sweep cannot delete attachments", file: "functions.tf", old: "invokers        = [\"scheduler\"]\n      attachments     = true", new: "invokers        = [\"scheduler\"]\n      attachments     = false", check: "grants", want: "Sweep: missing grant: wiring.Accesses gives it the attachments' bucket"},
	{name: "Challenge holds Firestore", file: "functions.tf", old: "firestore       = false\n      secrets         = [\"HMAC_SECRET\"]", new: "firestore       = true\n      secrets         = [\"HMAC_SECRET\"]", check: "grants", want: "Challenge: its environment sets FIRESTORE_DATABASE"},
	{name: "Forms reads the HMAC key", file: "functions.tf", old: "firestore       = false\n      secrets         = []", new: "firestore       = false\n      secrets         = [\"HMAC_SECRET\"]", check: "grants", want: `Forms: extra grant roles/secretmanager.secretAccessor on intake-hmac-key (google_secret_manager_secret_iam_member.accessor["forms hmac"])`},
	{name: "Drafts reads the webhook secret", file: "functions.tf", old: "secrets         = [\"HMAC_SECRET\", \"HASH_PEPPER_SECRET\"]\n", new: "secrets         = [\"HMAC_SECRET\", \"HASH_PEPPER_SECRET\", \"WEBHOOK_SECRET\"]\n", check: "grants", want: "Drafts: extra grant roles/secretmanager.secretAccessor on intake-webhook-secret"},
	{name: "Drafts cannot hash", file: "functions.tf", old: "secrets         = [\"HMAC_SECRET\", \"HASH_PEPPER_SECRET\"]\n", new: "secrets         = [\"HMAC_SECRET\"]\n", check: "grants", want: "Drafts: missing grant: wiring.Accesses gives it the secret HASH_PEPPER_SECRET"},
	{name: "the sweep cannot send mail", file: "functions.tf", old: "secrets         = [\"WEBHOOK_SECRET\", \"SMTP_PASSWORD\"]\n      env             = [\"base\", \"handoff\"]\n      memory          = \"256Mi\"\n      cpu             = \"1\"\n      concurrency     = 4", new: "secrets         = [\"WEBHOOK_SECRET\"]\n      env             = [\"base\", \"handoff\"]\n      memory          = \"256Mi\"\n      cpu             = \"1\"\n      concurrency     = 4", check: "grants", want: "Sweep: missing grant: wiring.Accesses gives it the secret SMTP_PASSWORD"},
	{name: "a planted Firestore grant", file: "iam.tf", old: iamAnchor, new: plantedGrant("forms_reader", "roles/datastore.viewer", "forms") + iamAnchor, check: "grants", want: "Forms: extra grant roles/datastore.viewer on the project (google_project_iam_member.forms_reader)"},
	{name: "every secret readable by Challenge", file: "iam.tf", old: iamAnchor, new: plantedGrant("challenge_secrets", "roles/secretmanager.secretAccessor", "challenge") + iamAnchor, check: "grants", want: "Challenge: extra grant roles/secretmanager.secretAccessor on every secret of the project (google_project_iam_member.challenge_secrets)"},
	{name: "Forms may act as the build account", file: "iam.tf", old: iamAnchor, new: "resource \"google_service_account_iam_member\" \"forms_builds\" {\n  service_account_id = google_service_account.build.name\n  role               = \"roles/iam.serviceAccountUser\"\n  member             = \"serviceAccount:${google_service_account.function[\"forms\"].email}\"\n}\n" + iamAnchor, check: "grants", want: "Forms: extra grant roles/iam.serviceAccountUser"},
	{name: "a grant to an account the check cannot name", file: "iam.tf", old: iamAnchor, new: "resource \"google_project_iam_member\" \"unknown\" {\n  project = var.project_id\n  role    = \"roles/datastore.user\"\n  member  = \"serviceAccount:${google_service_account.other.email}\"\n}\n" + iamAnchor, check: "grants", want: "google_project_iam_member.unknown: cannot tell whom it grants to"},
	{name: "the key named in every environment", file: "functions.tf", old: "      ALLOWED_ORIGINS = join(\",\", var.site_origins)\n", new: "      ALLOWED_ORIGINS = join(\",\", var.site_origins)\n      HMAC_SECRET     = google_secret_manager_secret.secret[\"hmac\"].id\n", check: "grants", want: "Forms: its environment sets HMAC_SECRET, but wiring.Accesses does not give it the secret HMAC_SECRET"},
	{name: "the code lets Drafts send mail", code: func(k *code) {
		changeAccess(k, "Drafts", func(a *wiring.Access) { a.Secrets = append(a.Secrets, wiring.SecretSMTP) })
	}, check: "grants", want: "Drafts: missing grant: wiring.Accesses gives it the secret SMTP_PASSWORD"},
	{name: "the code gives Forms the store", code: func(k *code) { changeAccess(k, "Forms", func(a *wiring.Access) { a.Firestore = true }) }, check: "grants", want: "wiring.Accesses gives Forms Firestore; it must hold none"},
	{name: "the code gives Forms a secret", code: func(k *code) {
		changeAccess(k, "Forms", func(a *wiring.Access) { a.Secrets = []string{wiring.SecretHMAC} })
	}, check: "grants", want: "it must read none"},
	{name: "the code drops Challenge's row", code: func(k *code) {
		k.accesses = slices.DeleteFunc(slices.Clone(k.accesses), func(a wiring.Access) bool { return a.Function == "Challenge" })
	}, check: "grants", want: "Challenge is deployed, but wiring.Accesses has no row for it"},
	{name: "the admin loses its job reader", file: "iam.tf", old: `member  = "serviceAccount:${google_service_account.function["admin"].email}"`, new: `member  = "serviceAccount:${google_service_account.build.email}"`, check: "grants", want: "Admin: otherGrants lists introductionsSchedulerJobReader"},

	{name: "Firestore on every database", file: "iam.tf", old: "  condition {\n    title       = \"introductions-database-only\"", new: "  dynamic \"condition\" {\n    for_each = []\n    title       = \"introductions-database-only\"", check: "iam", want: "conditioned to resource.name"},
	{name: "the admin reads every scheduler job", file: "iam.tf", old: "role    = google_project_iam_custom_role.scheduler_job_reader.name", new: `role    = "roles/cloudscheduler.viewer"`, check: "iam", want: "roles/cloudscheduler.viewer on the project"},
	{name: "the custom role can run jobs", file: "iam.tf", old: `permissions = ["cloudscheduler.jobs.get"]`, new: `permissions = ["cloudscheduler.jobs.get", "cloudscheduler.jobs.run"]`, check: "iam", want: "exactly cloudscheduler.jobs.get"},
	{name: "an editor account", file: "build.tf", old: `role    = "roles/logging.logWriter"`, new: `role    = "roles/editor"`, check: "iam", want: "grants roles/editor"},

	{name: "the build as Cloud Build's builder", file: "build.tf", old: `role    = "roles/logging.logWriter"`, new: `role    = "roles/cloudbuild.builds.builder"`, check: "build", want: "beyond what a build needs"},
	{name: "the build reads every bucket", file: "build.tf", old: "  role    = \"roles/storage.objectAdmin\"\n  member  = \"serviceAccount:${google_service_account.build.email}\"\n\n  condition {", new: "  role    = \"roles/storage.objectAdmin\"\n  member  = \"serviceAccount:${google_service_account.build.email}\"\n\n  dynamic \"condition\" {\n    for_each = []", check: "iam", want: "conditioned to the source buckets"},
	{name: "a fixed source object", file: "build.tf", old: `name   = "introductions-${each.key}-${filemd5("${var.source_dir}/${each.key}.zip")}.zip"`, new: `name   = "introductions-${each.key}.zip"`, check: "build", want: "filemd5"},
	{name: "one archive for every function", file: "functions.tf", old: "object = google_storage_bucket_object.source[each.key].name", new: `object = google_storage_bucket_object.source["drafts"].name`, check: "build", want: "its own google_storage_bucket_object.source[each.key]"},
	{name: "an archive of another directory", file: "build.tf", old: `source = "${var.source_dir}/${each.key}.zip"`, new: `source = "${var.source_dir}/introductions.zip"`, check: "build", want: "the archive deploy.sh makes"},

	{name: "the scheduler calls without a token", file: "scheduler.tf", old: "    oidc_token {\n      service_account_email = google_service_account.scheduler.email\n      audience              = google_cloudfunctions2_function.function[\"sweep\"].service_config[0].uri\n    }\n", new: "", check: "scheduler", want: "no oidc_token"},
	{name: "the token for another audience", file: "scheduler.tf", old: `audience              = google_cloudfunctions2_function.function["sweep"].service_config[0].uri`, new: `audience              = google_cloudfunctions2_function.function["admin"].service_config[0].uri`, check: "scheduler", want: "audience"},
	{name: "a deadline shorter than the sweep", file: "scheduler.tf", old: `timeout_seconds + 30`, new: `timeout_seconds - 30`, check: "scheduler", want: "above the sweep's timeout"},
	{name: "no retries", file: "scheduler.tf", old: "retry_count          = 3", new: "retry_count          = 0", check: "scheduler", want: "retry_count"},
	{name: "the scheduler API off", file: "apis.tf", old: `    "cloudscheduler.googleapis.com",` + "\n", new: "", check: "scheduler", want: "cloudscheduler.googleapis.com"},

	{name: "an account created before the IAM API", file: "iam.tf", old: "  description  = \"Calls the Introductions sweep from Cloud Scheduler.\"\n\n  depends_on = [google_project_service.enabled]\n", new: "  description  = \"Calls the Introductions sweep from Cloud Scheduler.\"\n", check: "apis", want: "google_service_account.scheduler does not depend"},
	{name: "Resource Manager off", file: "apis.tf", old: `    "cloudresourcemanager.googleapis.com",` + "\n", new: "", check: "apis", want: "cloudresourcemanager"},

	{name: "provider unpinned", file: "versions.tf", old: `version = "~> 7.0"`, new: `version = ">= 6.0"`, check: "provider", want: "one major version"},
	{name: "lock file on another major", file: ".terraform.lock.hcl", old: "", new: "provider \"example.invalid/hashicorp/google\" {\n  version     = \"6.50.0\"\n  constraints = \"~> 6.0\"\n}\n", check: "provider", want: "major version 7"},

	{name: "rules allow reads", file: "firestore.rules", old: "allow read, write: if false;", new: "allow read: if true;\n      allow write: if false;", check: "rules", want: "allow read: if true;"},
	{name: "rules allow signed-in users", file: "firestore.rules", old: "if false;", new: "if request.auth != null;", check: "rules", want: "request.auth"},
	{name: "release on the default database", file: "firestore.tf", old: `"cloud.firestore/${google_firestore_database.introductions.name}"`, new: `"cloud.firestore"`, check: "rules", want: "release name"},
}

// iamAnchor is where a broken copy of iam.tf adds a resource.
const iamAnchor = "# The identity Cloud Scheduler signs"

// plantedGrant is a project grant of role to function key's account, as a
// broken copy adds it.
func plantedGrant(name, role, key string) string {
	return fmt.Sprintf("\nresource \"google_project_iam_member\" %q {\n  project = var.project_id\n  role    = %q\n  member  = \"serviceAccount:${google_service_account.function[%q].email}\"\n}\n", name, role, key)
}

// changeAccess changes function's row in a copy of k's accesses.
func changeAccess(k *code, function string, change func(*wiring.Access)) {
	k.accesses = slices.Clone(k.accesses)
	for i, a := range k.accesses {
		if a.Function == function {
			a.Secrets = slices.Clone(a.Secrets)
			change(&a)
			k.accesses[i] = a
		}
	}
}

// TestChecksCatchBreakage applies each breakage to a copy of the real files
// or of the code's facts and expects the named check to report it.
func TestChecksCatchBreakage(t *testing.T) {
	for _, ch := range checks {
		if !slices.ContainsFunc(breakages, func(b breakage) bool { return b.check == ch.name }) {
			t.Errorf("check %q has no breakage case: show it can fail", ch.name)
		}
	}
	real := readDir(t, ".")
	realFacts := realCode(t)
	for _, tt := range breakages {
		t.Run(tt.name, func(t *testing.T) {
			files := maps.Clone(real)
			if tt.file != "" {
				if !strings.Contains(files[tt.file], tt.old) {
					t.Fatalf("%s no longer contains %q: update this case", tt.file, tt.old)
				}
				files[tt.file] = strings.Replace(files[tt.file], tt.old, tt.new, 1)
				if tt.old == "" {
					files[tt.file] = tt.new
				}
			}
			k := realFacts
			if tt.code != nil {
				tt.code(&k)
			}
			c, err := parseConfig(files)
			if err != nil {
				t.Fatalf("mutated configuration does not parse: %v", err)
			}
			i := slices.IndexFunc(checks, func(ch namedCheck) bool { return ch.name == tt.check })
			if i < 0 {
				t.Fatalf("no check named %q", tt.check)
			}
			problems := checks[i].check(c, k)
			if len(problems) == 0 || !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("check %q reported %q, want a problem containing %q", tt.check, problems, tt.want)
			}
		})
	}
}

// TestCompositeIndexAccepted shows the intended way to serve a query on
// several fields: an entry in local.composite_indexes passes.
func TestCompositeIndexAccepted(t *testing.T) {
	files := readDir(t, ".")
	files["firestore.tf"] = strings.Replace(files["firestore.tf"], "composite_indexes = {\n", compositeIndex, 1)
	c, err := parseConfig(files)
	if err != nil {
		t.Fatal(err)
	}
	k := realCode(t)
	k.queries = append(slices.Clone(k.queries), dueEnvelopes)
	if p := checkIndexes(c, k); len(p) > 0 {
		t.Errorf("%q", p)
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

// entryPoints maps each function's key to its entry point.
func entryPoints() map[string]string {
	m := map[string]string{}
	for _, fn := range introductions.Functions {
		m[introductions.Key(fn.Name)] = fn.Name
	}
	return m
}
