package firestorestore

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCollectionsListsEveryCollectionConstant reads this package's source:
// every string constant documented as "<Name> holds <collection>/{…}" is a
// collection name and must be in Collections, which infra/ gives a TTL policy.
func TestCollectionsListsEveryCollectionConstant(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != gotoken.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if vs.Doc == nil || len(vs.Names) != 1 || len(vs.Values) != 1 {
					continue
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok || lit.Kind != gotoken.STRING {
					continue
				}
				value, _ := strconv.Unquote(lit.Value)
				if strings.HasPrefix(vs.Doc.Text(), vs.Names[0].Name+" holds "+value+"/") {
					declared = append(declared, value)
				}
			}
		}
	}
	if len(declared) < 6 {
		t.Fatalf("found only %d collection constants (%v): has the doc comment pattern changed?", len(declared), declared)
	}
	for _, c := range declared {
		if !slices.Contains(Collections, c) {
			t.Errorf("collection %q is declared but not in Collections (infra/ would give it no TTL policy)", c)
		}
	}
	for _, c := range Collections {
		if !slices.Contains(declared, c) {
			t.Errorf("Collections lists %q, which no documented constant declares", c)
		}
	}
}
