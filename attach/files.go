package attach

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Files is the file service an attached client may use besides the tools:
// whole-file reads and writes through the server session's commit path
// (catalog.Committer), so that a client that serves another program's file
// system (the ACP proxy) reads the editor's buffers and writes where the
// tools write, journaled alike.
type Files interface {
	ReadText(path string) (catalog.TextFile, error)
	WriteText(ctx context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error)
}

// wireFile is a catalog.TextFile on the socket.
type wireFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// wireWriteInput is a catalog.WriteTextInput on the socket.
type wireWriteInput struct {
	Path    string  `json:"path"`
	Content string  `json:"content"`
	Base    *string `json:"base,omitempty"`
	Tool    string  `json:"tool,omitempty"`
	Agent   string  `json:"agent,omitempty"`
}

// wireWrite is a catalog.WriteTextResult on the socket.
type wireWrite struct {
	Path      string `json:"path"`
	OldText   string `json:"oldText"`
	NewText   string `json:"newText"`
	Created   bool   `json:"created,omitempty"`
	Merged    bool   `json:"merged,omitempty"`
	Unchanged bool   `json:"unchanged,omitempty"`
	EntryID   string `json:"entryId,omitempty"`
	Note      string `json:"note,omitempty"`
}

// wireFailure is a failure of a file method: a toolbridge.Failure, or
// code internal for any other error.
type wireFailure struct {
	Code string `json:"code"`
	Text string `json:"text"`
	Data any    `json:"data,omitempty"`
}

// fileReply is the result of whale/file/read and whale/file/write: the
// file or the write, or the failure.
type fileReply struct {
	Failure *wireFailure `json:"failure,omitempty"`
	File    *wireFile    `json:"file,omitempty"`
	Write   *wireWrite   `json:"write,omitempty"`
}

func failureOf(err error) *wireFailure {
	if f, ok := errors.AsType[*toolbridge.Failure](err); ok {
		return &wireFailure{Code: f.Code, Text: f.Text, Data: f.Data}
	}
	return &wireFailure{Code: toolbridge.CodeInternal, Text: err.Error()}
}

func (f *wireFailure) err() error {
	return &toolbridge.Failure{Code: f.Code, Text: f.Text, Data: f.Data}
}

// serveFile answers a file method with files.
func serveFile(ctx context.Context, files Files, method string, params json.RawMessage) fileReply {
	switch method {
	case MethodFileRead:
		var p struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return fileReply{Failure: &wireFailure{Code: toolbridge.CodeInvalidInput, Text: MethodFileRead + " needs {path}"}}
		}
		tf, err := files.ReadText(p.Path)
		if err != nil {
			return fileReply{Failure: failureOf(err)}
		}
		return fileReply{File: &wireFile{Path: tf.Path, Text: tf.Text}}
	default: // MethodFileWrite
		var p wireWriteInput
		if err := json.Unmarshal(params, &p); err != nil {
			return fileReply{Failure: &wireFailure{Code: toolbridge.CodeInvalidInput, Text: MethodFileWrite + " needs {path, content}"}}
		}
		r, err := files.WriteText(ctx, catalog.WriteTextInput{Path: p.Path, Content: p.Content, Base: p.Base, Tool: p.Tool, Agent: p.Agent})
		if err != nil {
			return fileReply{Failure: failureOf(err)}
		}
		return fileReply{Write: &wireWrite{Path: r.Path, OldText: r.OldText, NewText: r.NewText, Created: r.Created, Merged: r.Merged, Unchanged: r.Unchanged, EntryID: r.EntryID, Note: r.Note}}
	}
}

// ReadText reads a file through the server's session: the editor's buffer
// when the file is open there, else the disk. A failure the server's
// commit path reports is a *toolbridge.Failure.
func (c *Client) ReadText(ctx context.Context, path string) (catalog.TextFile, error) {
	var r fileReply
	if _, err := c.conn.Call(ctx, MethodFileRead, map[string]any{"path": path}, &r); err != nil {
		return catalog.TextFile{}, err
	}
	if r.Failure != nil {
		return catalog.TextFile{}, r.Failure.err()
	}
	if r.File == nil {
		return catalog.TextFile{}, errors.New("the server's whale/file/read answered no file")
	}
	return catalog.TextFile{Path: r.File.Path, Text: r.File.Text}, nil
}

// WriteText writes a file through the server's commit path (its editor's
// buffers, review and journal); see catalog.Committer.WriteText.
func (c *Client) WriteText(ctx context.Context, in catalog.WriteTextInput) (catalog.WriteTextResult, error) {
	var r fileReply
	if _, err := c.conn.Call(ctx, MethodFileWrite, wireWriteInput{Path: in.Path, Content: in.Content, Base: in.Base, Tool: in.Tool, Agent: in.Agent}, &r); err != nil {
		return catalog.WriteTextResult{}, err
	}
	if r.Failure != nil {
		return catalog.WriteTextResult{}, r.Failure.err()
	}
	if r.Write == nil {
		return catalog.WriteTextResult{}, errors.New("the server's whale/file/write answered no result")
	}
	w := r.Write
	return catalog.WriteTextResult{Path: w.Path, OldText: w.OldText, NewText: w.NewText, Created: w.Created, Merged: w.Merged, Unchanged: w.Unchanged, EntryID: w.EntryID, Note: w.Note}, nil
}
