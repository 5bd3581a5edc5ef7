package infra_test

// This file holds the grants check: what each function's account holds
// and which of its variables name the database or a secret, as terraform
// apply would make them, against functions/wiring.Accesses.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// firestoreColumn is the matrix's column of access to the database,
// attachmentsColumn its column of access to the attachments' bucket; the
// others are named by the variable that carries a secret.
const (
	firestoreColumn   = "Firestore"
	attachmentsColumn = "Attachments"
)

// otherGrants are the grants a function's account may hold besides
// Firestore and its secrets, by entry point: role ids (a custom role's
// without its projects/P/roles/ prefix). A decision, not a fact of the code.
var otherGrants = map[string][]string{
	// The admin's health page reads the scheduler job.
	"Admin": {"introductionsSchedulerJobReader"},
}

// holding is one cell of the matrix: the IAM grants to the function's
// account that reach the column's resource, and the function's variables
// that name it.
type holding struct {
	grants []string // "role on what (resource address)"
	env    []string
}

// otherGrant is a grant outside the matrix's columns.
type otherGrant struct {
	role, label string
}

// grantMatrix is function × grant, as applied with every destination on.
type grantMatrix struct {
	functions []string // entry points, in wiring.Accesses' order
	columns   []string // firestoreColumn, then secret variables
	cells     map[string]map[string]holding
	other     map[string][]otherGrant
	want      map[string]map[string]bool // wiring.Accesses'
}

func (m *grantMatrix) add(function, column string, grant, env string) {
	if m.cells[function] == nil {
		m.cells[function] = map[string]holding{}
	}
	h := m.cells[function][column]
	if grant != "" {
		h.grants = append(h.grants, grant)
	}
	if env != "" {
		h.env = append(h.env, env)
	}
	m.cells[function][column] = h
}

// secretVariables returns the secret (key of local.secrets) each variable of
// local.secret_names and local.secret_env carries.
func (c *config) secretVariables() map[string]string {
	out := map[string]string{}
	for _, local := range []string{"secret_names", "secret_env"} {
		for v, e := range c.objectItems(c.locals[local]) {
			if s, ok := c.objectItems(e)["secret"]; ok {
				if val, diags := s.Value(nil); !diags.HasErrors() && val.Type() == cty.String {
					out[v] = val.AsString()
				}
			}
		}
	}
	return out
}

// instances evaluates b's for_each (or count) and returns each instance's
// address and its each (or count) scope; one instance without either.
func (a applied) instances(b *hclsyntax.Block) ([]string, []map[string]cty.Value, error) {
	name := blockName(b)[len("resource."):]
	if fe, ok := b.Body.Attributes["for_each"]; ok {
		v, err := a.evalWith(fe.Expr, nil)
		if err != nil || !v.CanIterateElements() {
			return nil, nil, fmt.Errorf("%s: cannot evaluate for_each: %v", name, err)
		}
		var addrs []string
		var scopes []map[string]cty.Value
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if v.Type().IsSetType() || v.Type().IsListType() || v.Type().IsTupleType() {
				k = e
			}
			addrs = append(addrs, fmt.Sprintf("%s[%q]", name, k.AsString()))
			scopes = append(scopes, map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": e})})
		}
		return addrs, scopes, nil
	}
	if ce, ok := b.Body.Attributes["count"]; ok {
		v, err := a.evalWith(ce.Expr, nil)
		if err != nil || v.Type() != cty.Number {
			return nil, nil, fmt.Errorf("%s: cannot evaluate count: %v", name, err)
		}
		n, _ := v.AsBigFloat().Int64()
		var addrs []string
		var scopes []map[string]cty.Value
		for i := range n {
			addrs = append(addrs, fmt.Sprintf("%s[%d]", name, i))
			scopes = append(scopes, map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(i)})})
		}
		return addrs, scopes, nil
	}
	return []string{name}, []map[string]cty.Value{nil}, nil
}

// evalStrings evaluates b's attribute name in scope as a string or a
// collection of strings.
func (a applied) evalStrings(b *hclsyntax.Block, name string, scope map[string]cty.Value) ([]string, error) {
	attr, ok := b.Body.Attributes[name]
	if !ok {
		return nil, nil
	}
	v, err := a.evalWith(attr.Expr, scope)
	if err != nil {
		return nil, err
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}, nil
	}
	var out []string
	if v.CanIterateElements() {
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.Type() == cty.String {
				out = append(out, e.AsString())
			}
		}
	}
	return out, nil
}

// grants builds the matrix from c evaluated with every destination on:
// every IAM member or binding whose member is a function's account, and
// each function's environment. Problems are what could not be read.
func grants(c *config, k code) (grantMatrix, []string) {
	m := grantMatrix{columns: []string{firestoreColumn, attachmentsColumn}, cells: map[string]map[string]holding{}, other: map[string][]otherGrant{}, want: map[string]map[string]bool{}}
	for _, acc := range k.accesses {
		m.functions = append(m.functions, acc.Function)
		m.want[acc.Function] = map[string]bool{firestoreColumn: acc.Firestore, attachmentsColumn: acc.Attachments}
		for _, s := range acc.Secrets {
			m.want[acc.Function][s] = true
			if !slices.Contains(m.columns, s) {
				m.columns = append(m.columns, s)
			}
		}
	}
	fns, err := c.functions()
	if err != nil {
		return m, []string{err.Error()}
	}
	for _, key := range slices.Sorted(maps.Keys(fns)) {
		if ep := fns[key].entryPoint; !slices.Contains(m.functions, ep) {
			m.functions = append(m.functions, ep)
		}
	}
	secretVars := c.secretVariables()
	for _, v := range slices.Sorted(maps.Keys(secretVars)) {
		if !slices.Contains(m.columns, v) {
			m.columns = append(m.columns, v)
		}
	}
	a, err := apply(c, withDestinations(sampleVariables()))
	if err != nil {
		return m, []string{err.Error()}
	}
	project := a.vars["project_id"].AsString()
	accountOf := map[string]string{} // IAM member -> entry point
	for key, f := range fns {
		accountOf["serviceAccount:"+accountEmail(project, "introductions-"+key)] = f.entryPoint
	}
	secretKeyOf := map[string]string{} // secret id -> key of local.secrets
	for key, e := range c.objectItems(c.locals["secrets"]) {
		if v, diags := e.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
			secretKeyOf[v.AsString()] = key
		}
	}
	// The columns a secret's grant reaches: the variables that carry it, or
	// the secret itself when none does.
	secretColumns := func(id string) []string {
		var cols []string
		for v, s := range secretVars {
			if s == secretKeyOf[id] {
				cols = append(cols, v)
			}
		}
		if len(cols) == 0 {
			col := "secret " + id
			if !slices.Contains(m.columns, col) {
				m.columns = append(m.columns, col)
			}
			cols = []string{col}
		}
		slices.Sort(cols)
		return cols
	}
	allSecrets := func() []string {
		var cols []string
		for _, col := range m.columns {
			if col != firestoreColumn && col != attachmentsColumn {
				cols = append(cols, col)
			}
		}
		return cols
	}
	customPermissions := map[string][]string{} // custom role name -> permissions
	for _, b := range c.resources("google_project_iam_custom_role") {
		id, _ := literal(b, "role_id")
		if ps, err := a.evalStrings(b, "permissions", nil); err == nil {
			customPermissions["projects/"+project+"/roles/"+id] = ps
		}
	}
	has := func(role, prefix string) bool {
		return slices.ContainsFunc(customPermissions[role], func(p string) bool { return strings.HasPrefix(p, prefix) })
	}
	basic := func(role string) bool {
		return slices.Contains([]string{"roles/owner", "roles/editor", "roles/viewer"}, role)
	}
	reachesFirestore := func(role string) bool {
		return strings.HasPrefix(role, "roles/datastore.") || strings.HasPrefix(role, "roles/firebase") || basic(role) || has(role, "datastore.")
	}
	reachesSecrets := func(role string) bool {
		return strings.HasPrefix(role, "roles/secretmanager.") || role == "roles/owner" || has(role, "secretmanager.")
	}

	var problems []string
	for _, b := range c.blocks {
		if b.Type != "resource" || len(b.Labels) != 2 {
			continue
		}
		typ := b.Labels[0]
		memberAttr := "member"
		switch {
		case strings.HasSuffix(typ, "_iam_member"):
		case strings.HasSuffix(typ, "_iam_binding"):
			memberAttr = "members"
		case strings.HasSuffix(typ, "_iam_policy"):
			problems = append(problems, fmt.Sprintf("%s: the grants of an IAM policy are not read here; grant with an _iam_member", blockName(b)))
			continue
		default:
			continue
		}
		addrs, scopes, err := a.instances(b)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for i, scope := range scopes {
			members, err := a.evalStrings(b, memberAttr, scope)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: cannot tell whom it grants to: %v", addrs[i], err))
				continue
			}
			for _, member := range members {
				ep, ok := accountOf[member]
				if !ok {
					continue
				}
				roles, err := a.evalStrings(b, "role", scope)
				if err != nil || len(roles) != 1 {
					problems = append(problems, fmt.Sprintf("%s: cannot tell which role it grants %s: %v", addrs[i], ep, err))
					continue
				}
				role := roles[0]
				switch {
				case typ == "google_storage_bucket_iam_member" && strings.HasPrefix(role, "roles/storage.") &&
					hasRefPrefix(refs(b, "bucket"), "google_storage_bucket.attachments."):
					m.add(ep, attachmentsColumn, fmt.Sprintf("%s on the attachments' bucket (%s)", role, addrs[i]), "")
				case strings.HasPrefix(typ, "google_secret_manager_secret_iam_"):
					ids, err := a.evalStrings(b, "secret_id", scope)
					if err != nil || len(ids) != 1 {
						problems = append(problems, fmt.Sprintf("%s: cannot tell which secret it grants %s: %v", addrs[i], ep, err))
						continue
					}
					for _, col := range secretColumns(ids[0]) {
						m.add(ep, col, fmt.Sprintf("%s on %s (%s)", role, ids[0], addrs[i]), "")
					}
				case reachesFirestore(role) || (typ == "google_project_iam_member" && reachesSecrets(role)):
					if reachesFirestore(role) {
						m.add(ep, firestoreColumn, fmt.Sprintf("%s on the project (%s)", role, addrs[i]), "")
					}
					if typ == "google_project_iam_member" && reachesSecrets(role) {
						for _, col := range allSecrets() {
							m.add(ep, col, fmt.Sprintf("%s on every secret of the project (%s)", role, addrs[i]), "")
						}
					}
				default:
					id := strings.TrimPrefix(role, "projects/"+project+"/roles/")
					m.other[ep] = append(m.other[ep], otherGrant{id, fmt.Sprintf("%s on %s (%s)", id, strings.TrimPrefix(strings.TrimSuffix(typ, "_iam_member"), "google_"), addrs[i])})
				}
			}
		}
	}
	for key, f := range fns {
		env, secretEnv, err := a.env(key)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, v := range slices.Sorted(maps.Keys(env)) {
			if strings.HasPrefix(v, "FIRESTORE_") {
				m.add(f.entryPoint, firestoreColumn, "", v)
			}
			if v == "ATTACHMENT_BUCKET" {
				m.add(f.entryPoint, attachmentsColumn, "", v)
			}
		}
		for _, v := range append(slices.Sorted(maps.Keys(env)), secretEnv...) {
			if _, ok := secretVars[v]; ok {
				m.add(f.entryPoint, v, "", v)
			}
		}
	}
	return m, problems
}

// checkGrants: each function's account holds exactly what its row of
// wiring.Accesses names, and its environment names exactly that: Firestore
// (roles/datastore.user and the FIRESTORE_ variables) where the row says
// Firestore, and for each secret the row names an accessor grant on that
// secret and the variable that carries it; nothing where the row does not.
// Other grants to the functions' accounts are only those of otherGrants.
// Whatever the code's rows say, Challenge and Forms hold no Firestore and
// Forms no secret.
func checkGrants(c *config, k code) []string {
	m, problems := grants(c, k)
	for _, acc := range k.accesses {
		if slices.Contains(withoutFirestore, acc.Function) && acc.Firestore {
			problems = append(problems, fmt.Sprintf("wiring.Accesses gives %s Firestore; it must hold none", acc.Function))
		}
		if slices.Contains(withoutSecrets, acc.Function) && len(acc.Secrets) > 0 {
			problems = append(problems, fmt.Sprintf("wiring.Accesses gives %s secrets %v; it must read none", acc.Function, acc.Secrets))
		}
	}
	for _, fn := range m.functions {
		if m.want[fn] == nil {
			problems = append(problems, fmt.Sprintf("%s is deployed, but wiring.Accesses has no row for it", fn))
			continue
		}
		for _, col := range m.columns {
			h, want := m.cells[fn][col], m.want[fn][col]
			what := "the secret " + col
			switch col {
			case firestoreColumn:
				what = "Firestore"
			case attachmentsColumn:
				what = "the attachments' bucket"
			}
			switch {
			case want && len(h.grants) == 0:
				problems = append(problems, fmt.Sprintf("%s: missing grant: wiring.Accesses gives it %s, and no IAM grant lets its account reach it", fn, what))
			case !want:
				for _, g := range h.grants {
					problems = append(problems, fmt.Sprintf("%s: extra grant %s: wiring.Accesses does not give it %s", fn, g, what))
				}
			}
			switch {
			case want && len(h.env) == 0:
				problems = append(problems, fmt.Sprintf("%s: its environment lacks the variables of %s, which wiring.Accesses gives it", fn, what))
			case !want:
				for _, v := range h.env {
					problems = append(problems, fmt.Sprintf("%s: its environment sets %s, but wiring.Accesses does not give it %s", fn, v, what))
				}
			}
		}
		for _, g := range m.other[fn] {
			if !slices.Contains(otherGrants[fn], g.role) {
				problems = append(problems, fmt.Sprintf("%s: extra grant %s: neither Firestore nor a secret, and not among its otherGrants", fn, g.label))
			}
		}
	}
	for fn, roles := range otherGrants {
		for _, r := range roles {
			if !slices.ContainsFunc(m.other[fn], func(g otherGrant) bool { return g.role == r }) {
				problems = append(problems, fmt.Sprintf("%s: otherGrants lists %s, which its account is not granted", fn, r))
			}
		}
	}
	return problems
}

// String prints the matrix as a table: a cell is "role" where the
// function's account is granted the column's resource, "env" where its
// environment names it, "-" for neither, and ends in " !" where that
// differs from wiring.Accesses.
func (m grantMatrix) String() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "function\t"+strings.Join(m.columns, "\t")+"\tother grants")
	for _, fn := range m.functions {
		row := []string{fn}
		for _, col := range m.columns {
			h := m.cells[fn][col]
			var parts []string
			if len(h.grants) > 0 {
				parts = append(parts, "role")
			}
			if len(h.env) > 0 {
				parts = append(parts, "env")
			}
			cell := strings.Join(parts, "+")
			if cell == "" {
				cell = "-"
			}
			if want := m.want[fn][col]; want != (len(h.grants) > 0) || want != (len(h.env) > 0) {
				cell += " !"
			}
			row = append(row, cell)
		}
		var other []string
		for _, g := range m.other[fn] {
			other = append(other, g.role)
		}
		if len(other) == 0 {
			other = []string{"-"}
		}
		row = append(row, strings.Join(other, ", "))
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
	return b.String()
}

// TestGrantMatrix prints function × grant as infra/ applies it (every
// destination on): "role" where the function's account is granted the
// database or the secret, "env" where its environment names it; " !" marks
// a cell that differs from wiring.Accesses. It fails when checkGrants finds
// a problem, which TestInvariants/grants names one by one; make test prints
// the matrix either way.
func TestGrantMatrix(t *testing.T) {
	c, err := parseConfig(readDir(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	k := realCode(t)
	m, _ := grants(c, k)
	t.Logf("function × grant (role: IAM grant to its account; env: variables naming it; ! differs from wiring.Accesses)\n%s", m)
	if problems := checkGrants(c, k); len(problems) > 0 {
		t.Errorf("%d grants or variables differ from wiring.Accesses; TestInvariants/grants names each", len(problems))
	}
}
