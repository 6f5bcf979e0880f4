package acpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Files served by the editor (Options.EditorFiles, `--files editor`): the
// agent's fs/read_text_file and fs/write_text_file go on to the editor,
// which reads and writes its own buffers (Zed's way), after whale's checks.
//
// Kept: the workspace's path guards (read.approvedPaths included) on both;
// the stale-write check against what the agent last read (through whale),
// with the same three-way merge or refusal, the current text being what
// the editor answers to a read whale sends first (a file on disk the editor
// does not read is refused: what the write replaces is unknown); the journal
// entry (before: the editor's text, after: what whale asked it to write),
// begun before the write and dropped when the editor refuses it; the diff
// shown in the agent's edit tool call.
// Not kept: edits.review (the editor shows its own); the per-file lock of
// whale's commit path (a tool of whale's writing the same file at the same
// moment is not held back); the file's encoding, BOM and line endings,
// which are the editor's business; the journal's texts are the editor's
// UTF-8 texts, so a revert restores the text, not necessarily the bytes.

// editorServesFiles reports whether the agent's files go to the editor:
// asked for, and the editor advertised both fs methods in its initialize.
func (p *Proxy) editorServesFiles() bool {
	return p.opts.EditorFiles && p.editorFS.Load()
}

// noteEditorCapabilities reads the editor's initialize params: whether it
// serves fs/read_text_file and fs/write_text_file itself. When files were
// asked to go to an editor that does not, whale serves them and says so.
func (p *Proxy) noteEditorCapabilities(params json.RawMessage) {
	var in struct {
		ClientCapabilities struct {
			FS struct {
				ReadTextFile  bool `json:"readTextFile"`
				WriteTextFile bool `json:"writeTextFile"`
			} `json:"fs"`
		} `json:"clientCapabilities"`
	}
	_ = json.Unmarshal(params, &in)
	fs := in.ClientCapabilities.FS
	p.editorFS.Store(fs.ReadTextFile && fs.WriteTextFile)
	if p.opts.EditorFiles && !p.editorFS.Load() {
		p.log.Warn("files were asked to be served by the editor (--files editor), but the editor did not advertise fs.readTextFile and fs.writeTextFile in its initialize; whale serves the agent's files itself")
	}
}

// guard refuses a path outside what the workspace lets be read or written,
// as the tools do, and returns the file's absolute path.
func guard(sess *session.Session, path string, access workspace.Access) (string, error) {
	t, err := sess.Workspace.Resolve(path, access)
	if err != nil {
		if pe, ok := errors.AsType[*workspace.PathError](err); ok {
			return "", &toolbridge.Failure{Code: pe.Code, Text: pe.Msg}
		}
		return "", err
	}
	return t.Abs, nil
}

// editorRead asks the editor for the whole text of path.
func (p *Proxy) editorRead(ctx context.Context, sessionID, path string) (string, error) {
	raw, err := p.askEditor(ctx, "fs/read_text_file", map[string]any{"sessionId": sessionID, "path": path})
	if err != nil {
		return "", err
	}
	var out struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(raw, &out) != nil || out.Content == nil {
		return "", &rpcError{Code: codeInternal, Message: fmt.Sprintf("the editor answered fs/read_text_file of %s without content; read the file again", path)}
	}
	return *out.Content, nil
}

// forwardRead guards the path, reads the whole file from the editor (so
// that whale keeps the base of a later merge) and returns the lines asked.
func (p *Proxy) forwardRead(ctx context.Context, sess *session.Session, in readParams) (any, error) {
	if _, err := guard(sess, in.Path, workspace.Read); err != nil {
		return nil, err
	}
	text, err := p.editorRead(ctx, in.SessionID, in.Path)
	if err != nil {
		return nil, err
	}
	text = normalizeNewlines(text)
	p.files.remember(in.Path, text)
	return map[string]string{"content": sliceLines(text, in.Line, in.Limit)}, nil
}

// forwardWrite guards the path, checks the file against what the agent
// last read (merging or refusing as whale's own writes do), journals the
// change and asks the editor to write it.
func (p *Proxy) forwardWrite(ctx context.Context, sess *session.Session, sessionID string, in writeParams) (any, error) {
	abs, err := guard(sess, in.Path, workspace.Write)
	if err != nil {
		return nil, err
	}
	content := normalizeNewlines(in.Content)
	cur, readErr := p.editorRead(ctx, sessionID, in.Path)
	exists := readErr == nil
	if !exists {
		if _, err := os.Stat(abs); err == nil {
			// The file is there but the editor would not read it: whale
			// cannot know what the write replaces.
			return nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "the editor could not read %s (%v) before the write, so whale cannot check or journal what it replaces; nothing was written — read the file again, then write it", in.Path, readErr)
		}
	}
	cur = normalizeNewlines(cur)
	want, merged := content, false
	if base, ok := p.files.base(in.Path); ok {
		if !exists {
			return nil, toolbridge.Fail(toolbridge.CodeWriteConflict, "%s could not be read from the editor (%v) although you read it before; nothing was written — check whether it still exists (read its folder again), then write it again if so", in.Path, readErr)
		}
		if cur != base {
			m, conflicts := changes.Merge3([]byte(base), []byte(content), []byte(cur))
			if len(conflicts) > 0 {
				return nil, &toolbridge.Failure{Code: toolbridge.CodeWriteConflict,
					Text: fmt.Sprintf("%s changed since you last read it, and the lines you changed were changed there too (line %d of the current file); nothing was written — read the file again and make your change on its current text", in.Path, conflicts[0].Line),
					Data: map[string]any{"line": conflicts[0].Line}}
			}
			want, merged = string(m), true
		}
	}
	if exists && cur == want {
		p.files.remember(in.Path, want)
		return map[string]any{}, nil
	}
	var pending *changes.Pending
	if sess.Journal != nil {
		pd, err := sess.Journal.Begin(changes.Meta{Tool: "fs/write_text_file", Session: sessionID, Agent: p.agentName.Load().(string)},
			[]changes.FileChange{{Path: abs, Before: []byte(cur), BeforeExists: exists, After: []byte(want), AfterExists: true, Where: changes.WhereEditor}})
		if err != nil {
			p.log.Warn("the editor's write is not journaled", "path", abs, "err", err)
		} else {
			pending = pd
		}
	}
	if _, err := p.askEditor(ctx, "fs/write_text_file", map[string]any{"sessionId": sessionID, "path": in.Path, "content": want}); err != nil {
		if pending != nil {
			pending.Abort()
		}
		return nil, err
	}
	res := catalog.WriteTextResult{Path: abs, OldText: cur, NewText: want, Created: !exists, Merged: merged}
	if pending != nil {
		if e, err := pending.Commit(); err == nil {
			res.EntryID = e.ID
			res.Note = fmt.Sprintf("The editor wrote the file; whale journaled the change as entry %s.", e.ID)
		} else {
			p.log.Warn("the editor's write is not journaled", "path", abs, "err", err)
		}
	}
	p.files.remember(in.Path, want)
	p.showWrite(sessionID, res)
	return map[string]any{}, nil
}

// normalizeNewlines turns CRLF and CR into LF, the form whale compares and
// journals texts in.
func normalizeNewlines(s string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
}
