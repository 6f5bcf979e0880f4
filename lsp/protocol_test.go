package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// editorOnly lists, per editor, whale/* methods that the server's list and
// the other editor may lack, each with the reason. Empty: every method is
// in all three lists.
var editorOnly = map[string]map[string]string{
	"editors/vscode/src/requests.ts": {},
	"lua/whale/protocol.lua":         {},
}

// The editors' method declarations: requests.ts constructs each method as
// `new RequestType…<…>('whale/…')` or `new NotificationType…<…>('whale/…')`;
// protocol.lua assigns `name = 'whale/…'`.
var editorMethod = map[string]*regexp.Regexp{
	"editors/vscode/src/requests.ts": regexp.MustCompile(`new (?:Request|Notification)Type\d?<[^;]*?>\(\s*'(whale/[^']*)'\s*\)`),
	"lua/whale/protocol.lua":         regexp.MustCompile(`(?m)^\s*[a-z_]+\s*=\s*'(whale/[^']*)'`),
}

// TestProtocolMethodsMirrored checks that lsp/protocol.go, the VS Code
// extension's requests.ts and the Neovim plugin's protocol.lua name the
// same whale/* methods, so that a method added on one side only fails here.
func TestProtocolMethodsMirrored(t *testing.T) {
	consts := protocolConstants(t)
	if got, want := sorted(whaleMethods), sorted(consts); !slices.Equal(got, want) {
		t.Errorf("whaleMethods = %v, want every whale/* constant of protocol.go: %v", got, want)
	}
	for file, re := range editorMethod {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
		if len(names) == 0 {
			t.Errorf("%s: no whale/* method found (has its form changed? update editorMethod)", file)
		}
		allowed := editorOnly[file]
		for _, n := range names {
			if !slices.Contains(consts, n) && allowed[n] == "" {
				t.Errorf("%s names %s, which lsp/protocol.go does not: add it there (with its types), or to editorOnly with a reason", file, n)
			}
		}
		for _, n := range consts {
			if !slices.Contains(names, n) && allowed[n] == "" {
				t.Errorf("%s lacks %s, which lsp/protocol.go names: add it there, or to editorOnly with a reason", file, n)
			}
		}
		if dup := duplicates(names); len(dup) > 0 {
			t.Errorf("%s names %v more than once", file, dup)
		}
	}
}

// TestWhaleMethodsOnlyInProtocol checks that no other file of the package
// spells a whale/* method: they use protocol.go's constants.
func TestWhaleMethodsOnlyInProtocol(t *testing.T) {
	checkWhaleMethodsOnlyIn(t, ".", "protocol.go")
}

// attachOnly lists the methods of the attach socket (attach/protocol.go)
// that the editors' protocol does not have, each with the reason. Every
// other method of the socket must be one of lsp/protocol.go's.
var attachOnly = map[string]string{
	"whale/call":       "a terminal agent's tool call; the editor calls workspace/executeCommand",
	"whale/status":     "what `whale-ls settings` prints about the running server",
	"whale/refused":    "the refusal a peer of another user, or inside a task, reads before the socket closes",
	"whale/file/read":  "the ACP proxy's fs/read_text_file through this session (the editor's buffers)",
	"whale/file/write": "the ACP proxy's fs/write_text_file through this session's commit path",
}

// TestAttachMethodsChecked checks the attach socket's methods as the
// editors' are: all in attach/protocol.go, no other file of attach spelling
// one, and each either lsp/protocol.go's method of the same name or listed
// in attachOnly.
func TestAttachMethodsChecked(t *testing.T) {
	dir := filepath.Join("..", "attach")
	consts := whaleConstants(t, filepath.Join(dir, "protocol.go"))
	ours := protocolConstants(t)
	for _, m := range consts {
		if !slices.Contains(ours, m) && attachOnly[m] == "" {
			t.Errorf("attach/protocol.go names %s, which lsp/protocol.go does not: add it there, or to attachOnly with a reason", m)
		}
	}
	for m := range attachOnly {
		if !slices.Contains(consts, m) {
			t.Errorf("attachOnly lists %s, which attach/protocol.go does not name", m)
		}
	}
	if dup := duplicates(consts); len(dup) > 0 {
		t.Errorf("attach/protocol.go names %v more than once", dup)
	}
	checkWhaleMethodsOnlyIn(t, dir, "protocol.go")
}

// checkWhaleMethodsOnlyIn checks that no non-test Go file of dir but
// protocol spells a whale/* method.
func checkWhaleMethodsOnlyIn(t *testing.T, dir, protocol string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if filepath.Base(file) == protocol || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "whale/") {
					t.Errorf("%s: %q spells a whale/* method; use its constant from protocol.go", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
}

// protocolConstants returns the values of protocol.go's string constants
// that name a whale/* method.
func protocolConstants(t *testing.T) []string {
	t.Helper()
	return whaleConstants(t, "protocol.go")
}

// whaleConstants returns the values of file's string constants that name
// a whale/* method.
func whaleConstants(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "whale/") {
						out = append(out, s)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s declares no whale/* constant", file)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func duplicates(s []string) []string {
	var dup []string
	seen := map[string]bool{}
	for _, n := range s {
		if seen[n] && !slices.Contains(dup, n) {
			dup = append(dup, n)
		}
		seen[n] = true
	}
	return dup
}
