package toolbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/terminal"
)

// Settings is the configuration a client sends as initializationOptions and
// in workspace/didChangeConfiguration under the key "whale"; the command line
// reads the same object from --config.
type Settings struct {
	Shell struct {
		Program          string `json:"program,omitempty"`
		YieldTimeMs      int    `json:"yieldTimeMs,omitempty"`
		OutputLimitBytes int    `json:"outputLimitBytes,omitempty"`
	} `json:"shell"`
	ExecBoundary struct {
		Mode              string          `json:"mode,omitempty"`
		Rules             json.RawMessage `json:"rules,omitempty"`
		ApprovalTimeoutMs int             `json:"approvalTimeoutMs,omitempty"`
	} `json:"execBoundary"`
	Read struct {
		ApprovedPaths []string `json:"approvedPaths,omitempty"`
	} `json:"read"`
	Skills struct {
		Paths []string `json:"paths,omitempty"`
	} `json:"skills"`
	Edits struct {
		SaveAfterApply *bool `json:"saveAfterApply,omitempty"`
	} `json:"edits"`
	Web struct {
		Search       json.RawMessage `json:"search,omitempty"`
		AllowPrivate bool            `json:"allowPrivate,omitempty"`
	} `json:"web"`
	MCP struct {
		Servers json.RawMessage `json:"servers,omitempty"`
	} `json:"mcp"`
}

// SaveAfterApply reports the edits.saveAfterApply setting (default true).
func (s Settings) SaveAfterApply() bool {
	return s.Edits.SaveAfterApply == nil || *s.Edits.SaveAfterApply
}

// TerminalSettings returns the shell.* settings in the terminal package's
// terms.
func (s Settings) TerminalSettings() terminal.Settings {
	return terminal.Settings{Shell: s.Shell.Program, YieldTimeMs: s.Shell.YieldTimeMs, OutputLimitBytes: s.Shell.OutputLimitBytes}
}

// knownSettings lists every key Settings understands, as dotted paths.
var knownSettings = map[string]bool{
	"shell.program": true, "shell.yieldTimeMs": true, "shell.outputLimitBytes": true,
	"execBoundary.mode": true, "execBoundary.rules": true, "execBoundary.approvalTimeoutMs": true,
	"read.approvedPaths": true, "skills.paths": true, "edits.saveAfterApply": true,
	"web.search": true, "web.allowPrivate": true, "mcp.servers": true,
}

// ParseSettings decodes a settings object. Keys may be nested
// ({"shell":{"yieldTimeMs":1}}) or dotted ({"shell.yieldTimeMs":1}), and the
// whole object may be wrapped in {"whale": …}. Unknown keys are returned,
// sorted, for the caller to report; they are not an error. A value of the
// wrong type is an error that names the key.
func ParseSettings(raw []byte) (Settings, []string, error) {
	var s Settings
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return s, nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return s, nil, fmt.Errorf("settings must be a JSON object: %w", err)
	}
	if inner, ok := top["whale"]; ok && len(top) == 1 {
		if err := json.Unmarshal(inner, &top); err != nil {
			return s, nil, fmt.Errorf("settings under \"whale\" must be a JSON object: %w", err)
		}
	}
	nested := map[string]map[string]json.RawMessage{}
	var unknown []string
	put := func(key string, v json.RawMessage) {
		if !knownSettings[key] {
			unknown = append(unknown, key)
			return
		}
		sec, field, _ := strings.Cut(key, ".")
		if nested[sec] == nil {
			nested[sec] = map[string]json.RawMessage{}
		}
		nested[sec][field] = v
	}
	for k, v := range top {
		if strings.Contains(k, ".") {
			put(k, v)
			continue
		}
		var sec map[string]json.RawMessage
		if err := json.Unmarshal(v, &sec); err != nil {
			unknown = append(unknown, k)
			continue
		}
		for f, fv := range sec {
			put(k+"."+f, fv)
		}
	}
	for sec, fields := range nested {
		for f, v := range fields {
			one, _ := json.Marshal(map[string]map[string]json.RawMessage{sec: {f: v}})
			if err := json.Unmarshal(one, &s); err != nil {
				return Settings{}, nil, fmt.Errorf("setting %s.%s has the wrong type: %w", sec, f, err)
			}
		}
	}
	sort.Strings(unknown)
	return s, unknown, nil
}
