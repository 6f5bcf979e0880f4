package attach

import (
	"context"
	"errors"
	"testing"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// fakeFiles serves one file and refuses writes of "conflict".
type fakeFiles struct{ wrote catalog.WriteTextInput }

func (f *fakeFiles) ReadText(path string) (catalog.TextFile, error) {
	if path != "/w/a.txt" {
		return catalog.TextFile{}, toolbridge.Fail(toolbridge.CodeNotFound, "%s does not exist", path)
	}
	return catalog.TextFile{Path: path, Text: "from the buffer\n"}, nil
}

func (f *fakeFiles) WriteText(_ context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error) {
	if in.Content == "conflict" {
		return catalog.WriteTextResult{}, toolbridge.Fail(toolbridge.CodeWriteConflict, "read the file again")
	}
	f.wrote = in
	return catalog.WriteTextResult{Path: in.Path, OldText: *in.Base, NewText: in.Content, Merged: true, EntryID: "e1"}, nil
}

// TestFiles: whale/file/read and whale/file/write reach ListenOptions.Files
// and their failures come back as the same *toolbridge.Failure; without
// Files they are unknown methods.
func TestFiles(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	files := &fakeFiles{}
	l, err := Listen([]string{root}, echoService{}, ListenOptions{Dir: dir, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := Dial(ctx(t), root, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tf, err := c.ReadText(ctx(t), "/w/a.txt")
	if err != nil || tf.Text != "from the buffer\n" || tf.Path != "/w/a.txt" {
		t.Errorf("ReadText = %+v, %v", tf, err)
	}
	if _, err := c.ReadText(ctx(t), "/w/b.txt"); !isFailure(err, toolbridge.CodeNotFound) {
		t.Errorf("ReadText of a missing file = %v, want a not_found Failure", err)
	}
	base := "old\n"
	r, err := c.WriteText(ctx(t), catalog.WriteTextInput{Path: "/w/a.txt", Content: "new\n", Base: &base, Tool: "fs/write_text_file", Agent: "Gemini CLI"})
	if err != nil || !r.Merged || r.EntryID != "e1" || r.OldText != "old\n" || files.wrote.Agent != "Gemini CLI" {
		t.Errorf("WriteText = %+v, %v; the server got %+v", r, err, files.wrote)
	}
	if _, err := c.WriteText(ctx(t), catalog.WriteTextInput{Path: "/w/a.txt", Content: "conflict"}); !isFailure(err, toolbridge.CodeWriteConflict) {
		t.Errorf("WriteText of a conflict = %v, want a write_conflict Failure", err)
	}

	dir2, root2 := t.TempDir(), t.TempDir()
	l2, err := Listen([]string{root2}, echoService{}, ListenOptions{Dir: dir2})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	c2, err := Dial(ctx(t), root2, dir2)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.ReadText(ctx(t), "/w/a.txt"); err == nil {
		t.Errorf("ReadText without a file service succeeded")
	}
}

func isFailure(err error, code string) bool {
	f, ok := errors.AsType[*toolbridge.Failure](err)
	return ok && f.Code == code
}
