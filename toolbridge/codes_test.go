package toolbridge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryPackagesCodesAreInTheList: every string constant named Code… in
// the module's shipped Go files is one of Codes, so that a package cannot
// invent a result code the editors and the README do not know.
func TestEveryPackagesCodesAreInTheList(t *testing.T) {
	t.Parallel()
	seen := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					code, _ := strconv.Unquote(lit.Value)
					seen++
					if !slices.Contains(Codes, code) {
						t.Errorf("%s: %s = %q is not in toolbridge.Codes; add it there (and to the README's list of codes) or use one that is", path, name.Name, code)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(Codes) {
		t.Errorf("found %d Code constants in the module, fewer than the %d in Codes: the walk missed files", seen, len(Codes))
	}
}
