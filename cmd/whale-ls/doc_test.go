package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageAndExportedNameIsDocumented walks the module's Go packages
// and fails for a package without a package comment and for an exported
// top-level name (type, function, method, or a single const/var) without a
// doc comment.
func TestEveryPackageAndExportedNameIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := map[string][]string{} // folder → its non-test Go files
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	for dir, paths := range dirs {
		fset := token.NewFileSet()
		pkgs := map[string][]*ast.File{} // package name → its files
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				t.Errorf("parse %s: %v", p, err)
				continue
			}
			pkgs[f.Name.Name] = append(pkgs[f.Name.Name], f)
		}
		for name, files := range pkgs {
			hasDoc := false
			for _, f := range files {
				if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
					hasDoc = true
				}
				checkDecls(t, fset, f)
			}
			if !hasDoc {
				t.Errorf("package %s in %s has no package doc comment", name, dir)
			}
		}
	}
}

func checkDecls(t *testing.T, fset *token.FileSet, f *ast.File) {
	t.Helper()
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil && (!exportedReceiver(d.Recv) || wellKnownMethods[d.Name.Name]) {
				continue
			}
			t.Errorf("%s: exported func %s has no doc comment", fset.Position(d.Pos()), d.Name.Name)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
						t.Errorf("%s: exported type %s has no doc comment", fset.Position(s.Pos()), s.Name.Name)
					}
				case *ast.ValueSpec:
					// A documented const/var block documents its members.
					if d.Doc != nil || s.Doc != nil || s.Comment != nil || d.Lparen.IsValid() {
						continue
					}
					for _, n := range s.Names {
						if n.IsExported() {
							t.Errorf("%s: exported %s %s has no doc comment", fset.Position(n.Pos()), d.Tok, n.Name)
						}
					}
				}
			}
		}
	}
}

// wellKnownMethods implement standard interfaces whose contract is
// documented where the interface is.
var wellKnownMethods = map[string]bool{
	"Error": true, "Unwrap": true, "String": true, "Is": true, "As": true,
	"Read": true, "Write": true, "Close": true, "MarshalJSON": true, "UnmarshalJSON": true,
}

func exportedReceiver(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
