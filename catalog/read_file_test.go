package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/toolbridge"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func utf16Bytes(s string, bigEndian bool) []byte {
	units := utf16.Encode([]rune(s))
	out := []byte{0xFF, 0xFE}
	if bigEndian {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestReadFilePaging(t *testing.T) {
	gb, _ := simplifiedchinese.GB18030.NewEncoder().String("第一行\n第二行\n")
	_, r, _ := testWorkspace(t, map[string]string{
		"five.txt":     numbered(1, 5),
		"big.txt":      numbered(1, 2500),
		"crlf.txt":     "one\r\ntwo\r\n",
		"nofinal.txt":  "a\nb",
		"empty.txt":    "",
		"bom.txt":      "\xEF\xBB\xBFhello\n",
		"le.txt":       string(utf16Bytes("héllo\nwörld\n", false)),
		"be.txt":       string(utf16Bytes("𝄞 clef\n", true)),
		"gb.txt":       gb,
		"latin1.c":     latin1File,
		"cp1252.txt":   cp1252File,
		"gbpair.txt":   "f\xfcr", // a valid GB18030 pair: GB18030 wins
		"bad8.txt":     "caf\xe9 \x81 and \x02\n",
		"long.txt":     strings.Repeat("x", 2100) + "\n",
		"bin.dat":      "PK\x03\x04\x00\x00binary",
		"dir/inner.go": "package dir\n",
	}, fileTools)
	for _, tc := range []struct {
		input   map[string]any
		code    string
		want    []string // substrings of the text
		notWant []string
	}{
		{map[string]any{"file_path": "five.txt"}, toolbridge.CodeOK, []string{"1\tline 1\n", "5\tline 5\n", "5\tline 5\n(end of file)"}, nil},
		{map[string]any{"file_path": "five.txt", "offset": 2, "limit": 2}, toolbridge.CodeOK, []string{"2\tline 2\n3\tline 3\n", "(lines 2-3 of 5; read on with offset=4)"}, []string{"line 1\n", "line 4"}},
		{map[string]any{"file_path": "five.txt", "offset": 9}, toolbridge.CodeInvalidInput, []string{"has 5 lines, so offset 9 is past the end"}, nil},
		{map[string]any{"file_path": "big.txt"}, toolbridge.CodeOK, []string{"2000\tline 2000\n", "(lines 1-2000 of 2500; read on with offset=2001)"}, []string{"line 2001"}},
		{map[string]any{"file_path": "big.txt", "offset": 2001}, toolbridge.CodeOK, []string{"2500\tline 2500", "2500\tline 2500\n(end of file)"}, nil},
		{map[string]any{"file_path": "crlf.txt"}, toolbridge.CodeOK, []string{"1\tone\n2\ttwo\n"}, []string{"\r"}},
		{map[string]any{"file_path": "nofinal.txt"}, toolbridge.CodeOK, []string{"2\tb\n(end of file)"}, nil},
		{map[string]any{"file_path": "empty.txt"}, toolbridge.CodeOK, []string{"(empty file)"}, nil},
		{map[string]any{"file_path": "bom.txt"}, toolbridge.CodeOK, []string{"1\thello\n"}, []string{"\uFEFF"}},
		{map[string]any{"file_path": "le.txt"}, toolbridge.CodeOK, []string{"1\théllo\n2\twörld\n"}, nil},
		{map[string]any{"file_path": "be.txt"}, toolbridge.CodeOK, []string{"1\t𝄞 clef\n"}, nil},
		{map[string]any{"file_path": "gb.txt"}, toolbridge.CodeOK, []string{"1\t第一行\n2\t第二行\n"}, nil},
		{map[string]any{"file_path": "latin1.c"}, toolbridge.CodeOK, []string{"1\t/* Menü du café */\n2\tint x;\n", "(decoded from Latin-1 (ISO-8859-1), a guess: edits to this file may add only ASCII and characters it already contains)"}, nil},
		{map[string]any{"file_path": "cp1252.txt"}, toolbridge.CodeOK, []string{"1\tHe said “yes” – for 2 €.\n", "(decoded from Windows-1252, a guess"}, nil},
		{map[string]any{"file_path": "gbpair.txt"}, toolbridge.CodeOK, []string{"1\tf黵\n"}, []string{"decoded from"}},
		{map[string]any{"file_path": "bad8.txt"}, toolbridge.CodeBinaryFile, []string{"not text in UTF-8, UTF-16, GB18030, Latin-1 or Windows-1252"}, nil},
		{map[string]any{"file_path": "long.txt"}, toolbridge.CodeOK, []string{"[line cut: 100 more characters]", "1 long lines cut"}, nil},
		{map[string]any{"file_path": "bin.dat"}, toolbridge.CodeBinaryFile, []string{"binary file"}, nil},
		{map[string]any{"file_path": "dir"}, toolbridge.CodeIsDirectory, []string{"use list_dir"}, nil},
		{map[string]any{"file_path": "fivee.txt"}, toolbridge.CodeNotFound, []string{"closest existing: five.txt"}, nil},
		{map[string]any{"file_path": "dir/iner.go"}, toolbridge.CodeNotFound, []string{"dir/inner.go"}, nil},
		{map[string]any{"file_path": "nodir/x/y.go"}, toolbridge.CodeNotFound, []string{"does not exist"}, nil},
		{map[string]any{"file_path": "../escape.txt"}, toolbridge.CodePathNotAllowed, []string{"outside the workspace"}, nil},
	} {
		env := call(t, r, "read_file", tc.input)
		if env.Code != tc.code {
			t.Errorf("read_file %v = %s %q, want code %s", tc.input, env.Code, env.Text, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(env.Text, w) {
				t.Errorf("read_file %v text %q lacks %q", tc.input, env.Text, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(env.Text, w) {
				t.Errorf("read_file %v text %q contains %q", tc.input, env.Text, w)
			}
		}
	}
}

func TestReadFileRecordsWhatWasRead(t *testing.T) {
	d, r, root := testWorkspace(t, map[string]string{"a.txt": "one\n"}, fileTools)
	if env := call(t, r, "read_file", map[string]any{"file_path": "a.txt"}); !env.OK {
		t.Fatal(env.Text)
	}
	abs := filepath.Join(root, "a.txt")
	if d.Reads.ChangedSinceRead(abs, []byte("one\n")) {
		t.Errorf("ChangedSinceRead = true right after the read")
	}
	if !d.Reads.ChangedSinceRead(abs, []byte("two\n")) {
		t.Errorf("ChangedSinceRead = false for different content")
	}
}

// bufferEditor is an Editor with open buffers and no way to apply edits,
// enough for tools that read.
type bufferEditor struct {
	docs map[string]toolbridge.Document
}

func (e bufferEditor) Document(p string) (toolbridge.Document, bool) {
	d, ok := e.docs[p]
	return d, ok
}
func (e bufferEditor) Documents() []toolbridge.Document {
	var out []toolbridge.Document
	for _, d := range e.docs {
		out = append(out, d)
	}
	return out
}
func (bufferEditor) ApplyEdits(context.Context, []toolbridge.DocumentChange) error { return nil }
func (bufferEditor) SaveDocuments(context.Context, []string) ([]string, bool, error) {
	return nil, false, nil
}

func TestReadFileSeesTheEditorBuffer(t *testing.T) {
	_, r, _ := testWorkspaceWith(t, map[string]string{"a.go": "on disk\n"}, func(d *testDeps, root string) {
		abs := filepath.Join(root, "a.go")
		d.Editor = bufferEditor{docs: map[string]toolbridge.Document{abs: {Path: abs, Version: 7, Text: "unsaved\r\nbuffer\r\n"}}}
	}, fileTools)
	env := call(t, r, "read_file", map[string]any{"file_path": "a.go"})
	if !strings.Contains(env.Text, "1\tunsaved\n2\tbuffer\n") || !strings.Contains(env.Text, "editor buffer, version 7") {
		t.Fatalf("read_file of an open document = %q, want the buffer text and its version", env.Text)
	}
}

// TestNumericStringRepairIsNamed: read_file's limit sent as "5" pages as
// 5 would, and the repair reported names a numeric string, not a boolean.
func TestNumericStringRepairIsNamed(t *testing.T) {
	_, r, _ := testWorkspace(t, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n"}, fileTools)
	env := call(t, r, "read_file", map[string]any{"file_path": "a.txt", "limit": "5"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "5\t5") || strings.Contains(env.Text, "6\t6") {
		t.Fatalf("read_file with limit \"5\" = %s %q, want lines 1-5", env.Code, env.Text)
	}
	if diff := cmp.Diff([]string{toolbridge.RepairNumericString}, env.Repairs); diff != "" {
		t.Errorf("read_file with limit \"5\" repairs (-want +got):\n%s", diff)
	}
}
