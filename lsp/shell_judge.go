package lsp

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/catalog"
)

// shellJudge answers whale/shell/judge: what whale will do with a shell_run
// command before the model's call runs it, so that the editor asks the user
// once per command (editors/vscode/src/invocation.ts).
func (s *Server) shellJudge(raw json.RawMessage) (any, error) {
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "shell commands are not available in this session")
	}
	var p shellJudgeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s params: %v", methodShellJudge, err))
	}
	j, err := catalog.JudgeShellCommand(sess.Workspace, sess.Gate, p.Command, p.Cwd)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return shellJudgeResult{ReadOnly: j.ReadOnly, Boundary: string(j.Boundary)}, nil
}
