package acpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/catalog"
)

// readParams is fs/read_text_file's params.
type readParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line"`
	Limit     *int   `json:"limit"`
}

// writeParams is fs/write_text_file's params.
type writeParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// fileService serves the agent's file reads and writes with the session's
// commit path, remembering what the agent last saw of each file.
type fileService struct {
	mu sync.Mutex
	// bases holds, per path as the agent names it (cleaned), the whole
	// text the agent last read or wrote: the base of the merge when it
	// writes the file after someone else changed it.
	bases map[string]string
}

// maxBases bounds the texts kept as merge bases; beyond it the oldest
// reads are forgotten and those files are written without a merge.
const maxBases = 1024

func (f *fileService) base(path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.bases[filepath.Clean(path)]
	return b, ok
}

func (f *fileService) remember(path, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bases) >= maxBases {
		for k := range f.bases {
			delete(f.bases, k)
			break
		}
	}
	f.bases[filepath.Clean(path)] = text
}

// read answers fs/read_text_file: the editor's buffer or the disk, lines
// line (1-based) to line+limit-1 when given.
func (f *fileService) read(ctx context.Context, files Files, in readParams) (any, error) {
	tf, err := files.ReadText(ctx, in.Path)
	if err != nil {
		return nil, err
	}
	f.remember(in.Path, tf.Text)
	return map[string]string{"content": sliceLines(tf.Text, in.Line, in.Limit)}, nil
}

// sliceLines returns the lines from line (1-based; nil or 0: the first) for
// limit lines (nil: to the end), each with its newline.
func sliceLines(text string, line, limit *int) string {
	if (line == nil || *line <= 1) && limit == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil {
		end = min(start+max(*limit, 0), len(lines))
	}
	return strings.Join(lines[start:end], "")
}

// write answers fs/write_text_file through the commit path, then shows the
// change to the editor as a diff in a tool call of the session before the
// agent hears that it is done.
func (p *Proxy) write(ctx context.Context, files Files, sessionID string, in writeParams) (any, error) {
	wi := catalog.WriteTextInput{Path: in.Path, Content: in.Content, Tool: "fs/write_text_file", Agent: p.agentName.Load().(string)}
	if b, ok := p.files.base(in.Path); ok {
		wi.Base = &b
	}
	res, err := files.WriteText(ctx, wi)
	if err != nil {
		return nil, err
	}
	p.files.remember(in.Path, in.Content)
	if !res.Unchanged {
		p.showWrite(sessionID, res)
	}
	return map[string]any{}, nil
}

// showWrite tells the editor what a write changed: a diff in the content
// of the agent's tool call in progress when it edits files, else in a tool
// call of whale's own.
func (p *Proxy) showWrite(sessionID string, res catalog.WriteTextResult) {
	diff := map[string]any{"type": "diff", "path": res.Path, "newText": res.NewText}
	if !res.Created {
		diff["oldText"] = res.OldText
	}
	content := []any{diff}
	var notes []string
	if res.Merged {
		notes = append(notes, "The file had changed since the agent read it; whale merged the agent's change onto its current text.")
	}
	if res.Note != "" {
		notes = append(notes, res.Note)
	}
	if len(notes) > 0 {
		content = append(content, map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": strings.Join(notes, " ")}})
	}
	update := map[string]any{"content": content, "locations": []any{map[string]any{"path": res.Path}}}
	if id, ok := p.updates.openEdit(sessionID); ok {
		update["sessionUpdate"], update["toolCallId"] = "tool_call_update", id
	} else {
		verb := "Wrote"
		if res.Created {
			verb = "Created"
		}
		update["sessionUpdate"], update["toolCallId"] = "tool_call", p.updates.ownID()
		update["title"] = fmt.Sprintf("%s %s (through whale)", verb, filepath.Base(res.Path))
		update["kind"], update["status"] = "edit", "completed"
	}
	if err := p.editor.notify("session/update", map[string]any{"sessionId": sessionID, "update": update}); err != nil {
		p.log.Debug("write to the editor", "err", err)
	}
}

// toolCalls follows the agent's tool calls per session, from its
// session/update notifications, so that whale can put a write's diff in
// the call that made it.
type toolCalls struct {
	mu sync.Mutex
	// open holds, per session, the agent's tool calls not finished yet,
	// oldest first, with their kind.
	open map[string][]openCall
	seq  int
}

type openCall struct{ id, kind string }

func newToolCalls() *toolCalls { return &toolCalls{open: map[string][]openCall{}} }

// observe reads one session/update.
func (t *toolCalls) observe(params []byte) {
	var n struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string  `json:"sessionUpdate"`
			ToolCallID    string  `json:"toolCallId"`
			Kind          *string `json:"kind"`
			Status        *string `json:"status"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &n) != nil || n.Update.ToolCallID == "" {
		return
	}
	u := n.Update
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := t.open[n.SessionID]
	i := -1
	for j, c := range calls {
		if c.id == u.ToolCallID {
			i = j
		}
	}
	switch {
	case u.SessionUpdate == "tool_call" && i < 0 && (u.Status == nil || *u.Status == "pending" || *u.Status == "in_progress"):
		kind := "other"
		if u.Kind != nil {
			kind = *u.Kind
		}
		calls = append(calls, openCall{id: u.ToolCallID, kind: kind})
		if len(calls) > 64 {
			calls = calls[1:]
		}
	case i >= 0 && u.Status != nil && (*u.Status == "completed" || *u.Status == "failed"):
		calls = append(calls[:i], calls[i+1:]...)
	case i >= 0 && u.Kind != nil:
		calls[i].kind = *u.Kind
	}
	t.open[n.SessionID] = calls
}

// openEdit returns the newest unfinished edit tool call of the session.
func (t *toolCalls) openEdit(sessionID string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := t.open[sessionID]
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].kind == "edit" {
			return calls[i].id, true
		}
	}
	return "", false
}

// ownID is a new id for a tool call whale reports itself.
func (t *toolCalls) ownID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	return fmt.Sprintf("whale-write-%d", t.seq)
}
