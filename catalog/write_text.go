package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// The file service of a front end whose client reads and writes whole
// files by path (the ACP proxy's fs/read_text_file and fs/write_text_file):
// the same path guards, editor buffers, commit path, journal and review as
// the tools, with the writer's last read as the base of a three-way merge
// instead of a search text.

// TextFile is a file's text as ReadText returns it.
type TextFile struct {
	// Path is the file's absolute path.
	Path string
	// Text is its decoded text: LF line endings, no BOM, whatever its
	// encoding on disk.
	Text string
}

// ReadText reads the file at path (absolute, or relative to the first
// workspace folder) for a client: the editor's buffer when the file is open
// there, else the disk. Paths outside the workspace and its read-only
// folders, folders, binary files and files over the edit tools' size limit
// are refused with a *toolbridge.Failure.
func (c *Committer) ReadText(path string) (TextFile, error) {
	t, err := resolve(c.ws, path, workspace.Read)
	if err != nil {
		return TextFile{}, err
	}
	if c.editor != nil {
		if doc, ok := c.editor.Document(t.Abs); ok {
			d, err := edits.Decode([]byte(doc.Text))
			if err != nil {
				return TextFile{}, editFailure(path, err)
			}
			return TextFile{Path: t.Abs, Text: d.Text}, nil
		}
	}
	if fi, err := t.Root.FS.Stat(t.Rel); err == nil {
		switch {
		case fi.IsDir():
			return TextFile{}, toolbridge.Fail(toolbridge.CodeIsDirectory, "%s is a folder, not a file; give the path of a file inside it", path)
		case fi.Size() > editFileLimit:
			return TextFile{}, toolbridge.Fail(toolbridge.CodeTooLarge, "%s is %d bytes, more than whale serves as one text (%d); read a part of it with a shell command such as sed -n", path, fi.Size(), editFileLimit)
		}
	}
	raw, exists, err := edits.ReadFile(t.Root.FS, t.Rel)
	if err == nil && !exists {
		err = fs.ErrNotExist
	}
	if err != nil {
		return TextFile{}, statFailure(t, path, err)
	}
	d, err := edits.Decode(raw)
	if err != nil {
		return TextFile{}, editFailure(path, err)
	}
	return TextFile{Path: t.Abs, Text: d.Text}, nil
}

// WriteTextInput is one whole-file write of a client.
type WriteTextInput struct {
	// Path is the file, absolute or relative to the first workspace folder.
	Path string
	// Content is the whole new text (any line endings; the file keeps its
	// own, its BOM and its encoding).
	Content string
	// Base is the text the writer last read of the file (ReadText's Text),
	// nil when it never read it. When the file's current text differs from
	// Base, the writer's change from Base to Content is merged onto the
	// current text instead of replacing it.
	Base *string
	// Tool names the change in the journal's summary ("fs/write_text_file").
	Tool string
	// Agent names the program that wrote, for a person: the journal's title
	// starts with it ("Gemini CLI edited a.go (+1 −1)").
	Agent string
}

// WriteTextResult is a committed write.
type WriteTextResult struct {
	// Path is the file's absolute path.
	Path string
	// OldText and NewText are the decoded texts before and after; OldText
	// is "" and Created true for a new file.
	OldText, NewText string
	Created          bool
	// Merged is set when the file had changed since Base and the writer's
	// change was merged onto its current text.
	Merged bool
	// Unchanged is set when the file already held the text: nothing was
	// written or journaled.
	Unchanged bool
	// EntryID is the journal entry of the change ("" without a journal).
	EntryID string
	// Note says where the change went and how to take it back.
	Note string
}

// writerKey holds, in a commit's context, who made a change that comes
// from no tool call (WriteText).
type writerKey struct{}

type writerInfo struct{ tool, agent string }

// WriteText commits in.Content as the whole new text of in.Path through the
// one commit path (locks, review, journal, editor buffers), merging the
// writer's change onto a file that changed since its last read (in.Base).
// When the file changed where the writer changed it too, nothing is written
// and the *toolbridge.Failure (code write_conflict) tells the writer to read
// the file again; so does a file deleted since the read.
func (c *Committer) WriteText(ctx context.Context, in WriteTextInput) (WriteTextResult, error) {
	ctx = context.WithValue(ctx, writerKey{}, writerInfo{tool: in.Tool, agent: in.Agent})
	content := normalizeLF(in.Content)
	var res WriteTextResult
	plan := func(load loader) ([]*fileChange, error) {
		res = WriteTextResult{}
		src, err := load(in.Path, true)
		if err != nil {
			return nil, err
		}
		want := content
		if in.Base != nil {
			base := normalizeLF(*in.Base)
			if !src.exists {
				return nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "%s was deleted since you last read it; nothing was written — check whether it should still exist (read its folder again), then write it again if so", in.Path)
			}
			cur, err := edits.Decode(src.raw)
			if err != nil {
				return nil, editFailure(in.Path, err)
			}
			if cur.Text != base {
				merged, conflicts := changes.Merge3([]byte(base), []byte(content), []byte(cur.Text))
				if len(conflicts) > 0 {
					return nil, &toolbridge.Failure{Code: toolbridge.CodeWriteConflict,
						Text: fmt.Sprintf("%s changed since you last read it, and the lines you changed were changed there too (line %d of the current file); nothing was written — read the file again and make your change on its current text", in.Path, conflicts[0].Line),
						Data: map[string]any{"line": conflicts[0].Line}}
				}
				want, res.Merged = string(merged), true
			}
		}
		plan, err := edits.PlanWrite(src.t.Rel, src.raw, src.exists, want)
		if edits.CodeOf(err) == edits.CodeNoChange {
			res.Path, res.OldText, res.NewText, res.Unchanged = src.t.Abs, want, want, true
			return nil, errUnchanged
		}
		if err != nil {
			return nil, editFailure(in.Path, err)
		}
		res.Path, res.OldText, res.NewText, res.Created = src.t.Abs, plan.OldText, plan.NewText, !src.exists
		return []*fileChange{src.change(plan)}, nil
	}
	_, note, entryID, err := c.commit(ctx, []string{in.Path}, plan, nil)
	if errors.Is(err, errUnchanged) {
		return res, nil
	}
	if err != nil {
		return WriteTextResult{}, err
	}
	res.EntryID, res.Note = entryID, note
	return res, nil
}

// errUnchanged stops the commit of a write that would not change the file.
var errUnchanged = errors.New("the file already holds this text")

// normalizeLF turns CRLF and CR into LF, the form decoded texts are in.
func normalizeLF(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
