package edits

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedNamesHaveDocs fails when the package or an exported name lacks
// a doc comment: the comments are where the guarantees and limits live.
func TestExportedNamesHaveDocs(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/whale-ls/whale-ls/edits")
	if err != nil {
		t.Fatal(err)
	}
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
