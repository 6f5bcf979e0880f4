package edits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*.txtar")

// A golden case is a txtar archive:
//
//	-- old/PATH --            a file before the operation ("escaped old/PATH" for bytes
//	                          written with \r, \t, \xNN escapes)
//	-- input.json --          {"file_path", "search", "replace", "all"} (edit),
//	                          {"file_path", "edits": [...]} (multi_edit),
//	                          {"file_path", "content"} (write) or {"patch"} (apply_patch)
//	-- new/PATH --            each file after it (absent: the file does not exist)
//	-- code --                the error code, when the operation fails
//	-- repairs --             the repairs reported, one per line
//	-- message --             the error message, for review
//
// With -update, the sections after input.json are rewritten from the result.
func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden cases in testdata")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := readCase(t, ar)
			got := c.run(t)
			if *update {
				writeCase(t, file, ar, got)
				return
			}
			if got.code != c.want.code {
				t.Fatalf("code = %q, want %q (message: %s)", got.code, c.want.code, got.message)
			}
			if strings.Join(got.repairs, "\n") != strings.Join(c.want.repairs, "\n") {
				t.Errorf("repairs = %q, want %q", got.repairs, c.want.repairs)
			}
			if c.want.message != "" && got.message != c.want.message {
				t.Errorf("message =\n%s\nwant\n%s", got.message, c.want.message)
			}
			for _, p := range sortedKeys(got.files, c.want.files) {
				g, gok := got.files[p]
				w, wok := c.want.files[p]
				if gok != wok {
					t.Errorf("%s: exists = %v, want %v", p, gok, wok)
				} else if !bytes.Equal(g, w) {
					t.Errorf("%s =\n%q\nwant\n%q", p, g, w)
				}
			}
		})
	}
}

type goldenInput struct {
	FilePath string `json:"file_path"`
	Search   string `json:"search"`
	Replace  string `json:"replace"`
	All      bool   `json:"all"`
	Edits    []struct {
		Search  string `json:"search"`
		Replace string `json:"replace"`
		All     bool   `json:"all"`
	} `json:"edits"`
	Content *string `json:"content"`
	Patch   string  `json:"patch"`
}

type goldenOutcome struct {
	files   map[string][]byte
	code    string
	repairs []string
	message string
}

type goldenCase struct {
	old   map[string][]byte
	input goldenInput
	want  goldenOutcome
}

func readCase(t *testing.T, ar *txtar.Archive) goldenCase {
	c := goldenCase{old: map[string][]byte{}, want: goldenOutcome{files: map[string][]byte{}}}
	for _, f := range ar.Files {
		name, data := f.Name, f.Data
		if rest, ok := strings.CutPrefix(name, "escaped "); ok {
			name, data = rest, unescapeGolden(t, data)
		}
		switch {
		case strings.HasPrefix(name, "old/"):
			c.old[strings.TrimPrefix(name, "old/")] = data
		case strings.HasPrefix(name, "new/"):
			c.want.files[strings.TrimPrefix(name, "new/")] = data
		case name == "input.json":
			if err := json.Unmarshal(data, &c.input); err != nil {
				t.Fatalf("input.json: %v", err)
			}
		case name == "code":
			c.want.code = strings.TrimSpace(string(data))
		case name == "repairs":
			c.want.repairs = strings.Fields(string(data))
		case name == "message":
			c.want.message = strings.TrimSuffix(string(data), "\n")
		default:
			t.Fatalf("unknown section %q", f.Name)
		}
	}
	return c
}

// run performs the case's operation the way the tools do, in memory.
func (c goldenCase) run(t *testing.T) goldenOutcome {
	out := goldenOutcome{files: map[string][]byte{}}
	for p, b := range c.old {
		out.files[p] = b
	}
	fail := func(err error) goldenOutcome {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		out.files = c.old
		out.code, out.message = e.Code, e.Message
		return out
	}
	in := c.input
	switch {
	case in.Patch != "":
		fps, repairs, err := ParsePatch(in.Patch)
		if err != nil {
			return fail(err)
		}
		out.repairs = repairs
		next := map[string][]byte{}
		for p, b := range out.files {
			next[p] = b
		}
		for _, fp := range fps {
			src := fp.OldPath
			if fp.Creates() {
				src = fp.NewPath
			}
			raw, exists := next[src]
			plan, err := PlanPatch(fp, raw, exists)
			if err != nil {
				out.repairs = nil
				return fail(err)
			}
			out.repairs = appendUnique(out.repairs, plan.Applied.Repairs...)
			if !fp.Creates() && !fp.Deletes() && fp.OldPath != fp.NewPath {
				// As the tool does: a rename never replaces a file.
				if _, taken := next[fp.NewPath]; taken {
					out.repairs = nil
					return fail(newError(CodeWriteConflict, "%s: the patch renames %s onto a file that exists; delete or move that file first", fp.NewPath, fp.OldPath))
				}
			}
			if !fp.Creates() {
				delete(next, fp.OldPath)
			}
			if !fp.Deletes() {
				next[fp.NewPath] = plan.New
			}
		}
		out.files = next
	case in.Content != nil:
		raw, exists := c.old[in.FilePath]
		plan, err := PlanWrite(in.FilePath, raw, exists, *in.Content)
		if err != nil {
			return fail(err)
		}
		out.files[in.FilePath] = plan.New
	default:
		steps := []Edit{{Search: in.Search, Replace: in.Replace, All: in.All}}
		if in.Edits != nil {
			steps = nil
			for _, e := range in.Edits {
				steps = append(steps, Edit{Search: e.Search, Replace: e.Replace, All: e.All})
			}
		}
		raw, ok := c.old[in.FilePath]
		if !ok {
			t.Fatalf("no old/%s section", in.FilePath)
		}
		plan, err := PlanEdits(context.Background(), raw, steps)
		if err != nil {
			return fail(err)
		}
		out.repairs = plan.Applied.Repairs
		out.files[in.FilePath] = plan.New
	}
	return out
}

func writeCase(t *testing.T, file string, ar *txtar.Archive, got goldenOutcome) {
	var keep []txtar.File
	escaped := map[string]bool{}
	for _, f := range ar.Files {
		keep = append(keep, f)
		if strings.HasPrefix(f.Name, "escaped old/") {
			escaped[strings.TrimPrefix(f.Name, "escaped old/")] = true
		}
		if f.Name == "input.json" {
			break
		}
	}
	for _, p := range sortedKeys(got.files, nil) {
		b := got.files[p]
		if escaped[p] || needsEscape(b) {
			keep = append(keep, txtar.File{Name: "escaped new/" + p, Data: escapeGolden(b)})
		} else {
			keep = append(keep, txtar.File{Name: "new/" + p, Data: b})
		}
	}
	if got.code != "" {
		keep = append(keep, txtar.File{Name: "code", Data: []byte(got.code + "\n")})
		keep = append(keep, txtar.File{Name: "message", Data: []byte(got.message + "\n")})
	}
	if len(got.repairs) > 0 {
		keep = append(keep, txtar.File{Name: "repairs", Data: []byte(strings.Join(got.repairs, "\n") + "\n")})
	}
	ar.Files = keep
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(a, b map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string][]byte{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// needsEscape reports whether bytes cannot be kept verbatim in a txtar file.
func needsEscape(b []byte) bool {
	if len(b) > 0 && b[len(b)-1] != '\n' || !utf8.Valid(b) {
		return true
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' {
			return true
		}
	}
	return bytes.Contains(b, []byte("\n-- ")) || bytes.HasPrefix(b, []byte("-- "))
}

// escapeGolden writes bytes as text: \r, \t, \\, \xNN; line breaks stay, and
// a final line without "\n" ends in the marker \z.
func escapeGolden(b []byte) []byte {
	valid := utf8.Valid(b)
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\n':
			out.WriteByte('\n')
		case c == '\r':
			out.WriteString(`\r`)
		case c == '\\':
			out.WriteString(`\\`)
		case c < 0x20 && c != '\t', c == 0x7f, c >= 0x80 && !valid:
			fmt.Fprintf(&out, `\x%02x`, c)
		default:
			out.WriteByte(c)
		}
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		out.WriteString("\\z\n")
	}
	return out.Bytes()
}

func unescapeGolden(t *testing.T, s []byte) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case '\\':
			out = append(out, '\\')
		case 'z':
			// End of data without a final line break: drop the "\n" after it.
			return out
		case 'x':
			v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8)
			if err != nil {
				t.Fatalf("bad escape in %q", s)
			}
			out = append(out, byte(v))
			i += 2
		default:
			out = append(out, '\\', s[i])
		}
	}
	return out
}
