package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// changesRequest answers the editor's whale/changes/* requests: the list
// and the diffs come from the session's journal; a revert runs the
// changes_revert tool, so that it goes through the commit path and is
// journaled like the model's own.
func (s *Server) changesRequest(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	s.mu.Lock()
	sess, registry := s.session, s.registry
	s.mu.Unlock()
	if sess == nil || sess.Journal == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "this session keeps no journal of changes (it has no state folder)")
	}
	j := sess.Journal
	decode := func(v any) error {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s params: %v", method, err))
		}
		return nil
	}
	switch method {
	case methodChangesList:
		var p changesListParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		if p.Limit <= 0 {
			p.Limit = 20
		}
		entries, dropped, err := j.List(p.Since, p.Limit)
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the journal of changes could not be read: "+err.Error())
		}
		by, err := j.RevertedBy()
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the journal of changes could not be read: "+err.Error())
		}
		res := changesListResult{Entries: make([]changeEntry, 0, len(entries)), Dropped: dropped}
		for _, e := range entries {
			res.Entries = append(res.Entries, changeEntryOf(j, e, by[e.ID]))
		}
		return res, nil
	case methodChangesDiff:
		var p changesDiffParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return changesDiff(j, p.ID)
	default: // methodChangesRevert
		var p changesRevertParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		input, _ := json.Marshal(p)
		// The user asked for this revert in the editor: it is not reviewed.
		env := registry.Dispatch(ctx, toolbridge.Call{Name: "changes_revert", Input: input, ByUser: true})
		return changesRevertResultOf(env), nil
	}
}

// changeEntryOf is an entry on the wire.
func changeEntryOf(j *changes.Journal, e changes.Entry, revertedBy string) changeEntry {
	out := changeEntry{ID: e.ID, Time: e.Time.Local(), Tool: e.Tool, CallID: e.CallID, Summary: e.Summary, Title: j.Title(e), Command: e.Command,
		RevertOf: e.RevertOf, RevertedBy: revertedBy, Files: make([]changeFile, 0, len(e.Files))}
	for _, f := range e.Files {
		out.Files = append(out.Files, changeFile{
			Path: f.Path, RelPath: j.RelPath(f.Path), URI: pathToURI(f.Path), Name: filepath.Base(f.Path), Where: f.Where, Added: f.Added, Removed: f.Removed,
			Created: f.Before == "" && f.After != "", Deleted: f.After == "" && f.Before != "",
		})
	}
	return out
}

// changesDiff is an entry's diff with each file's texts.
func changesDiff(j *changes.Journal, id string) (any, error) {
	e, err := j.Get(id)
	if errors.Is(err, changes.ErrNotFound) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("there is no change %q in the journal", id))
	}
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the journal entry could not be read: "+err.Error())
	}
	diff, err := j.Diff(id)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the journal entry could not be read: "+err.Error())
	}
	res := changesDiffResult{ID: e.ID, Diff: diff, Files: make([]changeFileDiff, 0, len(e.Files))}
	for _, f := range e.Files {
		fd := changeFileDiff{Path: f.Path, URI: pathToURI(f.Path), BeforeExists: f.Before != "", AfterExists: f.After != ""}
		for _, side := range []struct {
			blob string
			text **string
		}{{f.Before, &fd.Before}, {f.After, &fd.After}} {
			if side.blob == "" {
				continue
			}
			b, err := j.Blob(side.blob)
			if err != nil {
				return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the journal no longer holds a file of this change: "+err.Error())
			}
			if !utf8.Valid(b) {
				fd.Binary = true
				continue
			}
			text := string(b)
			*side.text = &text
		}
		if fd.Binary {
			fd.Before, fd.After = nil, nil
		}
		res.Files = append(res.Files, fd)
	}
	return res, nil
}

// changesRevertResultOf is changes_revert's Envelope on the wire.
func changesRevertResultOf(env toolbridge.Envelope) changesRevertResult {
	res := changesRevertResult{OK: env.OK, Code: env.Code, Text: env.Text, Reverted: []string{}}
	data, _ := env.Data.(map[string]any)
	if ids, ok := data["reverted"].([]string); ok {
		res.Reverted = ids
	}
	if id, ok := data["entry"].(string); ok {
		res.Entry = id
	}
	if m, ok := data["message"].(string); ok {
		res.Message = m
	} else if !env.OK {
		res.Message = "Not reverted: " + env.Text
	}
	if list, ok := data["conflicts"].([]map[string]any); ok {
		for _, c := range list {
			path, _ := c["path"].(string)
			reason, _ := c["reason"].(string)
			hunks, _ := c["hunks"].([]string)
			res.Conflicts = append(res.Conflicts, changeConflict{Path: path, Reason: reason, Hunks: hunks})
		}
	}
	return res
}
