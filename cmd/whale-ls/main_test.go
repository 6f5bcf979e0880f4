package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

func runCLI(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCall(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\nworld\n"), 0o644)
	cfg := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfg, []byte(`{"shell":{"yieldTimeMs":500},"read":{"approvedPaths":[]}}`), 0o644)
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		out   string
	}{
		{[]string{"call", "read_file", `{"file_path":"a.txt","limit":1}`}, "", exitOK, "1\thello\n(lines 1-1 of 2; read on with offset=2)"},
		{[]string{"call", "read_file", `{"file_path":"a.txt"}`, "--json"}, "", exitOK, `"code":"ok"`},
		{[]string{"call", "--json", "--root", dir, "read_file", "-"}, `{"file_path":"a.txt"}`, exitOK, `"ok":true`},
		{[]string{"call", "--config", cfg, "read_file", `{"file_path":"a.txt"}`}, "", exitOK, "world"},
		{[]string{"call", "read_file", `{"file_path":"missing.txt"}`}, "", exitFailure, "not_found: missing.txt does not exist"},
		{[]string{"call", "no_such_tool", `{}`}, "", exitFailure, "unknown_tool"},
		{[]string{"call", "read_file", `{"file_path":`}, "", exitFailure, "invalid_input"},
		{[]string{"call"}, "", exitUsage, ""},
		{[]string{"call", "read_file", "{}", "extra"}, "", exitUsage, ""},
		{[]string{"call", "--approve", "maybe", "read_file"}, "", exitUsage, ""},
		{[]string{"call", "--config", filepath.Join(dir, "nope.json"), "read_file"}, "", exitUsage, ""},
		{[]string{"frobnicate"}, "", exitUsage, ""},
		{[]string{"acp", "--files", "zed", "--", "true"}, "", exitUsage, ""},
		{[]string{"version"}, "", exitOK, "whale-ls "},
		{[]string{"call", "request_user_input", `{"question":"Name?"}`}, "", exitFailure, "not_configured: no one can answer questions here"},
	} {
		code, out, errOut := runCLI(t, dir, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) {
			t.Errorf("whale-ls %q = exit %d, out %q, err %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.out)
		}
	}
}

func TestToolsJSON(t *testing.T) {
	code, out, _ := runCLI(t, t.TempDir(), "", "tools", "--json")
	if code != exitOK {
		t.Fatalf("tools --json exit %d", code)
	}
	var cat struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Type string `json:"type"`
			} `json:"inputSchema"`
			ReadOnly bool   `json:"readOnly"`
			Group    string `json:"group"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &cat); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range cat.Tools {
		names[tool.Name] = true
		if tool.InputSchema.Type != "object" || tool.Group == "" {
			t.Errorf("tool %s has schema type %q, group %q", tool.Name, tool.InputSchema.Type, tool.Group)
		}
	}
	for _, want := range []string{"read_file", "list_dir", "load_skill"} {
		if !names[want] {
			t.Errorf("tools --json lacks %s", want)
		}
	}
	if names["test_wait"] {
		t.Errorf("the test tool is listed without %s", testToolsEnv)
	}
}

// TestToolsLong: --long prints the description and the long help that
// models are not sent, for the tools named or all of them.
func TestToolsLong(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "", "tools", "--long", "apply_patch")
	if code != exitOK || !strings.HasPrefix(out, "# apply_patch\n\nApply a patch") || !strings.Contains(out, catalog.LongHelp("apply_patch")) || strings.Contains(out, "# edit") {
		t.Errorf("tools --long apply_patch = exit %d, err %q, out:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI(t, t.TempDir(), "", "tools", "--long")
	for _, want := range []string{"# read_file\n", "# write_stdin\n", "Example: `{\"file_path\": \"src/server.go\""} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("tools --long = exit %d, lacks %q", code, want)
		}
	}
	code, _, errOut = runCLI(t, t.TempDir(), "", "tools", "--long", "no_such_tool")
	if code != exitUsage || !strings.Contains(errOut, `no tool named "no_such_tool"`) {
		t.Errorf("tools --long no_such_tool = exit %d, err %q; want a usage error naming it", code, errOut)
	}
}

func TestSettings(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no language server is found
	code, out, errOut := runCLI(t, t.TempDir(), "", "settings", "--json")
	if code != exitOK {
		t.Fatalf("settings --json = exit %d, err %q", code, errOut)
	}
	var list struct {
		Settings []struct {
			Key    string         `json:"key"`
			Schema map[string]any `json:"schema"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("settings --json is not JSON: %v\n%s", err, out)
	}
	if len(list.Settings) != len(settings.Table) {
		t.Errorf("settings --json lists %d settings, the table has %d", len(list.Settings), len(settings.Table))
	}
	for i, s := range list.Settings {
		if want := settings.Table[i].Key; s.Key != want {
			t.Errorf("settings --json entry %d is %q, want %q", i, s.Key, want)
		}
		if _, ok := s.Schema["type"].(string); !ok {
			t.Errorf("settings --json: %s has no type", s.Key)
		}
		if _, ok := s.Schema["markdownDescription"].(string); !ok {
			t.Errorf("settings --json: %s has no markdownDescription", s.Key)
		}
	}
	if strings.Contains(out, `\u003c`) {
		t.Errorf("settings --json escapes < and >; descriptions should read as written")
	}

	code, out, _ = runCLI(t, t.TempDir(), "", "settings")
	if code != exitOK {
		t.Fatalf("settings = exit %d", code)
	}
	for _, want := range []string{"shell.yieldTimeMs", "15000", "/bin/bash, else /bin/sh", "mcp.servers", "search.index", "No whale-ls language server is running for "} {
		if !strings.Contains(out, want) {
			t.Errorf("settings output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"settings", "extra"}, "whale-ls settings --json"},
		{[]string{"settings", "--folder", filepath.Join(t.TempDir(), "missing")}, "is not a folder"},
		{[]string{"settings", "--json", "--folder", "."}, "whale-ls settings --folder DIR"},
	} {
		if code, _, errOut := runCLI(t, t.TempDir(), "", tc.args...); code != exitUsage || !strings.Contains(errOut, tc.err) {
			t.Errorf("whale-ls %q = exit %d, err %q; want a usage error with %q", tc.args, code, errOut, tc.err)
		}
	}
}

// TestCLIPrompter: the command line lets --approve allow run approvals; every
// other prompt, and an approval under --approve deny, says no one is there
// rather than passing for the user's answer.
func TestCLIPrompter(t *testing.T) {
	ctx := context.Background()
	ans, err := cliPrompter{"allow"}.Prompt(ctx, toolbridge.Prompt{Kind: toolbridge.PromptApproval})
	if err != nil || ans.OptionID != toolbridge.ApproveOnce {
		t.Errorf("approval under --approve allow = %+v, %v; want allow_once", ans, err)
	}
	for _, tc := range []struct {
		approve, kind string
	}{{"deny", toolbridge.PromptApproval}, {"allow", toolbridge.PromptChoice}, {"allow", toolbridge.PromptText}} {
		if _, err := (cliPrompter{tc.approve}).Prompt(ctx, toolbridge.Prompt{Kind: tc.kind}); !errors.Is(err, toolbridge.ErrNoOneToAsk) {
			t.Errorf("%s prompt under --approve %s = %v, want ErrNoOneToAsk", tc.kind, tc.approve, err)
		}
	}
}
