package edits

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestExportedNamesHaveDocs fails when the package or an exported name lacks
// a doc comment: the comments are where the guarantees and limits live.
func TestExportedNamesHaveDocs(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.New(pkgs["edits"], "edits", 0)
	if strings.TrimSpace(p.Doc) == "" {
		t.Error("package edits has no doc comment")
	}
	check := func(kind, name, text string) {
		if ast.IsExported(name) && strings.TrimSpace(text) == "" {
			t.Errorf("%s %s has no doc comment", kind, name)
		}
	}
	for _, f := range p.Funcs {
		check("func", f.Name, f.Doc)
	}
	for _, ty := range p.Types {
		check("type", ty.Name, ty.Doc)
		for _, f := range append(ty.Funcs, ty.Methods...) {
			if f.Name != "Error" {
				check("func", ty.Name+"."+f.Name, f.Doc)
			}
		}
		for _, v := range append(ty.Consts, ty.Vars...) {
			check("const", strings.Join(v.Names, ","), v.Doc)
		}
	}
	for _, v := range append(p.Consts, p.Vars...) {
		check("const", strings.Join(v.Names, ","), v.Doc)
	}
}
