package hostsetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// env is a project folder and a home folder of a test, with setup's
// options for them.
type env struct {
	root, home string
	o          Options
}

func newEnv(t *testing.T, scope Scope) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{root: filepath.Join(base, "project"), home: filepath.Join(base, "home")}
	for _, d := range []string{e.root, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.o = Options{Scope: scope, Root: e.root, Home: e.home, Getenv: func(string) string { return "" },
		Command: []string{"whale-ls", "mcp"}, StateDir: filepath.Join(base, "state")}
	return e
}

func (e *env) write(t *testing.T, rel, content string) string {
	t.Helper()
	path := filepath.Join(e.root, rel)
	if e.o.Scope == User {
		path = filepath.Join(e.home, rel)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// snapshot is every file under the test's folders (state excluded), with
// its content; folders end in "/".
func (e *env) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, top := range []string{e.root, e.home} {
		filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if d.IsDir() {
				out[path+"/"] = ""
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out[path] = string(data)
			return nil
		})
	}
	return out
}

func (e *env) setup(t *testing.T, h *Host) string {
	t.Helper()
	var out bytes.Buffer
	if err := h.Setup(e.o, &out); err != nil {
		t.Fatalf("setup %s: %v\n%s", h.Name, err, out.String())
	}
	return out.String()
}

func (e *env) undo(t *testing.T, h *Host) string {
	t.Helper()
	var out bytes.Buffer
	if err := h.Undo(e.o, &out); err != nil {
		t.Fatalf("setup %s --undo: %v\n%s", h.Name, err, out.String())
	}
	return out.String()
}

func diffSnapshots(a, b map[string]string) []string {
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			diffs = append(diffs, "gone: "+k)
		} else if w != v {
			diffs = append(diffs, "changed: "+k+"\n--- before\n"+v+"\n--- after\n"+w)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, "new: "+k)
		}
	}
	sort.Strings(diffs)
	return diffs
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(stripJSONC(data), &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return v
}

func at(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func hasAll(list any, items ...string) bool {
	a, _ := list.([]any)
	for _, it := range items {
		found := false
		for _, x := range a {
			found = found || x == it
		}
		if !found {
			return false
		}
	}
	return true
}

// existing are configuration files a user already has, per host and
// scope: other servers, other rules, comments where the host reads them.
var existing = map[string]map[string]string{
	"claude/project": {
		".mcp.json": "{\n    \"mcpServers\": {\n        \"github\": {\"command\": \"gh-mcp\"}\n    }\n}\n",
		".claude/settings.json": `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(git status)"],
    "deny": ["Read(./.env)"]
  }
}
`,
	},
	"claude/user": {
		".claude.json":          `{"numStartups": 3, "projects": {"/x": {"hasTrustDialogAccepted": true}}}`,
		".claude/settings.json": "{\n\t\"theme\": \"dark\"\n}\n",
	},
	"codex/project": {
		".codex/config.toml": `# my project's Codex settings
model = "gpt-5.5"

[features]
# keep the web search
web_search_request = true

[mcp_servers.github]
command = "gh-mcp"
args = ["serve"]
`,
	},
	"codex/user": {
		".codex/config.toml": "model = \"o4\"\r\n\r\n[mcp_servers.docs]\r\ncommand = \"docs-mcp\"\r\n",
	},
	"gemini/project": {
		".gemini/settings.json": `{
  // the project's Gemini settings
  "tools": {
    "exclude": ["google_web_search"], // no web search here
  },
  "mcpServers": {},
}
`,
	},
	"gemini/user": {
		".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`,
	},
	"opencode/project": {
		"opencode.jsonc": `{
  "$schema": "https://opencode.ai/config.json",
  /* the team's model */
  "model": "anthropic/claude-sonnet-5",
  "permission": {
    "webfetch": "ask", // ask before fetching
    "edit": "allow"
  }
}
`,
	},
	"opencode/user": {
		".config/opencode/opencode.json": `{"theme": "tokyonight"}`,
	},
	"copilot/project": {
		".github/mcp.json": `{"mcpServers": {"playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp"], "tools": ["*"]}}}`,
	},
	"copilot/user": {
		".copilot/mcp-config.json": "{\n  \"mcpServers\": {}\n}",
	},
	"qwen/project": {
		".qwen/settings.json": `{
  "permissions": {"deny": ["Read(./secrets/**)"]}, // keep secrets out
  "model": {"name": "qwen3-coder-plus"}
}`,
	},
	"qwen/user": {
		".qwen/settings.json": `{"security": {"auth": {"selectedType": "openai"}}}`,
	},
}

// kept are pieces of each existing file that must survive setup as they
// were (comments included).
var kept = map[string][]string{
	"claude/project":   {`"github": {"command": "gh-mcp"}`, `"model": "opus"`, `"Bash(git status)"`, `"Read(./.env)"`},
	"claude/user":      {`"numStartups": 3`, `"hasTrustDialogAccepted": true`, "\t\"theme\": \"dark\""},
	"codex/project":    {"# my project's Codex settings", "# keep the web search\nweb_search_request = true", "[mcp_servers.github]\ncommand = \"gh-mcp\"\nargs = [\"serve\"]"},
	"codex/user":       {"model = \"o4\"\r\n", "[mcp_servers.docs]\r\ncommand = \"docs-mcp\"\r\n"},
	"gemini/project":   {"// the project's Gemini settings", "// no web search here", `"google_web_search"`},
	"gemini/user":      {`"selectedType": "gemini-api-key"`},
	"opencode/project": {"/* the team's model */", `"webfetch": "ask", // ask before fetching`},
	"opencode/user":    {`"theme": "tokyonight"`},
	"copilot/project":  {`"playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp"], "tools": ["*"]}`},
	"copilot/user":     {},
	"qwen/project":     {"// keep secrets out", `"Read(./secrets/**)"`, `"qwen3-coder-plus"`},
	"qwen/user":        {`"selectedType": "openai"`},
}

// TestSetupMergesIntoExistingFiles: for every host and scope, setup keeps
// what the files held (comments and layout included), adds whale's entries,
// a second run changes nothing, and undo brings every file back byte for
// byte and removes what it created.
func TestSetupMergesIntoExistingFiles(t *testing.T) {
	for _, h := range Hosts {
		for _, scope := range []Scope{Project, User} {
			key := h.Name + "/" + string(scope)
			t.Run(key, func(t *testing.T) {
				e := newEnv(t, scope)
				for rel, content := range existing[key] {
					e.write(t, rel, content)
				}
				before := e.snapshot(t)
				out := e.setup(t, h)
				after := e.snapshot(t)
				all := ""
				for _, v := range after {
					all += v + "\n"
				}
				for _, piece := range kept[key] {
					if !strings.Contains(all, piece) {
						t.Errorf("setup lost %q; the files now:\n%s", piece, all)
					}
				}
				checkWhale(t, h, e)
				// Every file parses for its host.
				for path, content := range after {
					switch {
					case strings.HasSuffix(path, ".toml"):
						var m map[string]any
						if _, err := toml.Decode(content, &m); err != nil {
							t.Errorf("%s is not TOML after setup: %v\n%s", path, err, content)
						}
					case strings.HasSuffix(path, ".json"), strings.HasSuffix(path, ".jsonc"):
						jsonc := h.Name == "gemini" || h.Name == "qwen" || h.Name == "opencode"
						if _, err := parseJSON([]byte(content), jsonc); err != nil {
							t.Errorf("%s does not parse after setup: %v\n%s", path, err, content)
						}
					}
				}
				if !strings.Contains(out, "Undo: whale-ls setup "+h.Name+" --undo") {
					t.Errorf("setup's output does not say how to undo:\n%s", out)
				}
				// A second run finds everything in place.
				again := e.setup(t, h)
				if d := diffSnapshots(after, e.snapshot(t)); len(d) > 0 {
					t.Errorf("a second setup changed files:\n%s", strings.Join(d, "\n"))
				}
				if strings.Contains(again, "created") || strings.Contains(again, "changed") {
					t.Errorf("a second setup says it wrote something:\n%s", again)
				}
				e.undo(t, h)
				if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
					t.Errorf("undo did not restore the folders byte for byte:\n%s", strings.Join(d, "\n"))
				}
				if _, err := os.Stat(e.o.recordPath(h)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("undo left its record: %v", err)
				}
			})
		}
	}
}

// checkWhale checks that h's files start whale and turn off the built-ins.
func checkWhale(t *testing.T, h *Host, e *env) {
	t.Helper()
	changes, err := h.plan(e.o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		switch c.format {
		case "json", "jsonc":
			v := readJSON(t, c.path)
			for _, op := range c.json {
				got := at(v, op.path...)
				if op.value != nil && !jsonEqual(got, plain(op.value)) {
					t.Errorf("%s: %s = %v, want %v", c.path, strings.Join(op.path, "."), got, plain(op.value))
				}
				if op.add != nil && !hasAll(got, op.add...) {
					t.Errorf("%s: %s = %v, want it to hold %v", c.path, strings.Join(op.path, "."), got, op.add)
				}
			}
		case "toml":
			var m map[string]any
			if _, err := toml.DecodeFile(c.path, &m); err != nil {
				t.Fatal(err)
			}
			for _, op := range c.toml {
				got := at(m, append(append([]string{}, op.table...), op.key)...)
				if !tomlEqual(got, op.value) {
					t.Errorf("%s: %s.%s = %v, want %v", c.path, tomlTable(op.table), op.key, got, op.value)
				}
			}
		case "text":
			data, err := os.ReadFile(c.path)
			if err != nil || string(data) != c.text {
				t.Errorf("%s holds %q (%v), want setup's text", c.path, data, err)
			}
		}
	}
	// Whatever the host, the command that starts whale is in its files.
	found := false
	for _, c := range changes {
		data, _ := os.ReadFile(c.path)
		found = found || strings.Contains(string(data), `"whale-ls"`)
	}
	if !found {
		t.Errorf("no file of %s names the whale-ls command", h.Name)
	}
}

// TestSetupCreatesAndUndoRemoves: in an empty project and home, setup
// creates the files (and folders), and undo removes exactly those.
func TestSetupCreatesAndUndoRemoves(t *testing.T) {
	for _, h := range Hosts {
		for _, scope := range []Scope{Project, User} {
			t.Run(h.Name+"/"+string(scope), func(t *testing.T) {
				e := newEnv(t, scope)
				before := e.snapshot(t)
				e.setup(t, h)
				checkWhale(t, h, e)
				if len(diffSnapshots(before, e.snapshot(t))) == 0 {
					t.Fatal("setup wrote nothing")
				}
				out := e.undo(t, h)
				if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
					t.Errorf("undo left:\n%s\nits output:\n%s", strings.Join(d, "\n"), out)
				}
			})
		}
	}
}

// TestDryRunWritesNothing: --dry-run prints each file with its new content
// and leaves the folders (and setup's records) as they were.
func TestDryRunWritesNothing(t *testing.T) {
	for _, h := range Hosts {
		t.Run(h.Name, func(t *testing.T) {
			e := newEnv(t, Project)
			for rel, content := range existing[h.Name+"/project"] {
				e.write(t, rel, content)
			}
			before := e.snapshot(t)
			e.o.DryRun = true
			out := e.setup(t, h)
			if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
				t.Errorf("--dry-run wrote:\n%s", strings.Join(d, "\n"))
			}
			if _, err := os.Stat(e.o.StateDir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--dry-run wrote a record: %v", err)
			}
			changes, _ := h.plan(e.o)
			for _, c := range changes {
				if !strings.Contains(out, "--- "+c.path+" (new content)") {
					t.Errorf("--dry-run did not print %s:\n%s", c.path, out)
				}
			}
			if !strings.Contains(out, "whale-ls") || !strings.Contains(out, "nothing was written") {
				t.Errorf("--dry-run output:\n%s", out)
			}
			// And a dry undo after a real setup changes nothing either.
			e.o.DryRun = false
			e.setup(t, h)
			mid := e.snapshot(t)
			e.o.DryRun = true
			e.undo(t, h)
			if d := diffSnapshots(mid, e.snapshot(t)); len(d) > 0 {
				t.Errorf("undo --dry-run changed:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestUnparseableFilesAreRefused: a file setup cannot parse is left as it
// is, nothing else is written, and the error names the file and says what
// to do.
func TestUnparseableFilesAreRefused(t *testing.T) {
	cases := []struct {
		host, rel, content string
	}{
		{"claude", ".mcp.json", `{"mcpServers": {"github": {"command": "gh"}},}`},          // trailing comma
		{"claude", ".claude/settings.json", "{\n  // a comment\n  \"model\": \"opus\"\n}"}, // JSON, not JSONC
		{"codex", ".codex/config.toml", "[features\nshell_tool = true\n"},
		{"gemini", ".gemini/settings.json", `{"tools": {"exclude": [}}`},
		{"opencode", "opencode.json", `{"mcp": `},
		{"copilot", ".github/mcp.json", `not json`},
		{"qwen", ".qwen/settings.json", `{"permissions": {"deny": "Bash" "x"}}`},
	}
	for _, c := range cases {
		t.Run(c.host+"/"+c.rel, func(t *testing.T) {
			e := newEnv(t, Project)
			path := e.write(t, c.rel, c.content)
			before := e.snapshot(t)
			h, _ := Lookup(c.host)
			var out bytes.Buffer
			err := h.Setup(e.o, &out)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Path != path {
				t.Fatalf("setup of %s: %v, want a ParseError for %s", c.rel, err, path)
			}
			msg := err.Error()
			for _, want := range []string{path, "is not valid", "left it untouched", "fix it"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error %q lacks %q", msg, want)
				}
			}
			if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
				t.Errorf("a refused setup wrote:\n%s", strings.Join(d, "\n"))
			}
			if _, err := os.Stat(e.o.StateDir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused setup wrote a record: %v", err)
			}
		})
	}
}

// TestUnwritableShapesAreRefused: values setup cannot merge into (a
// permission that is a string, a TOML table written inline) are errors
// that name what to set by hand; nothing is written.
func TestUnwritableShapesAreRefused(t *testing.T) {
	cases := []struct {
		host, rel, content, want string
	}{
		{"opencode", "opencode.json", `{"permission": "ask"}`, "permission is not an object"},
		{"codex", ".codex/config.toml", "features = { web_search_request = true }\n", "set it by hand under [features]"},
		{"claude", ".claude/settings.json", `{"permissions": {"deny": "Bash"}}`, "permissions.deny is not a list"},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			e := newEnv(t, Project)
			e.write(t, c.rel, c.content)
			before := e.snapshot(t)
			h, _ := Lookup(c.host)
			err := h.Setup(e.o, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "untouched") {
				t.Fatalf("setup: %v, want an error with %q", err, c.want)
			}
			if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
				t.Errorf("a refused setup wrote:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestUndoAfterTheUserChangedTheFile: when a file changed after setup,
// undo takes out only setup's entries and keeps the user's.
func TestUndoAfterTheUserChangedTheFile(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		e := newEnv(t, Project)
		path := e.write(t, "opencode.jsonc", existing["opencode/project"]["opencode.jsonc"])
		e.setup(t, opencode)
		data, _ := os.ReadFile(path)
		// The user adds a member of their own.
		edited := strings.Replace(string(data), `"model": `, `"theme": "dark",`+"\n  \"model\": ", 1)
		os.WriteFile(path, []byte(edited), 0o644)
		out := e.undo(t, opencode)
		if !strings.Contains(out, "changed since setup") {
			t.Errorf("undo's output:\n%s", out)
		}
		got, _ := os.ReadFile(path)
		want := strings.Replace(existing["opencode/project"]["opencode.jsonc"], `"model": `, `"theme": "dark",`+"\n  \"model\": ", 1)
		if string(got) != want {
			t.Errorf("undo left:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("toml", func(t *testing.T) {
		e := newEnv(t, Project)
		original := existing["codex/project"][".codex/config.toml"]
		path := e.write(t, ".codex/config.toml", original)
		e.setup(t, codex)
		data, _ := os.ReadFile(path)
		os.WriteFile(path, append(data, "\n[tui]\nnotifications = true\n"...), 0o644)
		e.undo(t, codex)
		got, _ := os.ReadFile(path)
		want := original + "\n[tui]\nnotifications = true\n"
		if string(got) != want {
			t.Errorf("undo left:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a value setup replaced", func(t *testing.T) {
		e := newEnv(t, Project)
		path := e.write(t, ".codex/config.toml", "[features]\nshell_tool = true # on\n")
		e.setup(t, codex)
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), "shell_tool = false") {
			t.Fatalf("setup left:\n%s", data)
		}
		os.WriteFile(path, append([]byte("# mine\n"), data...), 0o644)
		e.undo(t, codex)
		got, _ := os.ReadFile(path)
		if want := "# mine\n[features]\nshell_tool = true # on\n"; string(got) != want {
			t.Errorf("undo left:\n%q\nwant:\n%q", got, want)
		}
	})
	t.Run("a created file the user emptied of their entries", func(t *testing.T) {
		e := newEnv(t, Project)
		e.setup(t, qwen)
		path := filepath.Join(e.root, ".qwen", "settings.json")
		data, _ := os.ReadFile(path)
		os.WriteFile(path, append(data, '\n'), 0o644) // touched, not changed in substance
		e.undo(t, qwen)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("undo kept a file setup created and nothing else is in: %v", err)
		}
	})
}

// TestChangesBetweenTwoRunsSurviveUndo: a file the user changed between
// two runs of setup keeps the user's change after undo.
func TestChangesBetweenTwoRunsSurviveUndo(t *testing.T) {
	e := newEnv(t, Project)
	path := e.write(t, ".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n")
	e.setup(t, claude)
	// The user takes one deny rule out and adds a setting; setup runs again
	// and puts the rule back.
	data, _ := os.ReadFile(path)
	edited := strings.Replace(string(data), `"model": "opus"`, `"model": "opus",`+"\n  \"theme\": \"dark\"", 1)
	edited = strings.Replace(edited, `, "NotebookEdit"`, "", 1)
	os.WriteFile(path, []byte(edited), 0o644)
	e.setup(t, claude)
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"NotebookEdit"`) {
		t.Fatalf("the second setup did not put the rule back:\n%s", data)
	}
	e.undo(t, claude)
	got, _ := os.ReadFile(path)
	if want := "{\n  \"model\": \"opus\",\n  \"theme\": \"dark\"\n}\n"; string(got) != want {
		t.Errorf("undo left:\n%s\nwant:\n%s", got, want)
	}
}

// TestUndoWithoutSetup is an error that says nothing was set up.
func TestUndoWithoutSetup(t *testing.T) {
	e := newEnv(t, Project)
	err := claude.Undo(e.o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("undo without setup: %v", err)
	}
}

// TestCopilotAgentFileOfTheUserIsKept: an agent file named whale that
// setup did not write is refused, not overwritten.
func TestCopilotAgentFileOfTheUserIsKept(t *testing.T) {
	e := newEnv(t, Project)
	e.write(t, ".github/agents/whale.agent.md", "---\nname: whale\n---\nmine\n")
	before := e.snapshot(t)
	err := copilot.Setup(e.o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "already exists with other content") {
		t.Fatalf("setup: %v", err)
	}
	if d := diffSnapshots(before, e.snapshot(t)); len(d) > 0 {
		t.Errorf("a refused setup wrote:\n%s", strings.Join(d, "\n"))
	}
}

// TestEnvironmentMovesUserFiles: CLAUDE_CONFIG_DIR, CODEX_HOME,
// XDG_CONFIG_HOME and COPILOT_HOME move the user's files as they move the
// hosts'.
func TestEnvironmentMovesUserFiles(t *testing.T) {
	e := newEnv(t, User)
	vars := map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(e.home, "cc"),
		"CODEX_HOME":        filepath.Join(e.home, "cx"),
		"XDG_CONFIG_HOME":   filepath.Join(e.home, "xdg"),
		"COPILOT_HOME":      filepath.Join(e.home, "cp"),
	}
	e.o.Getenv = func(k string) string { return vars[k] }
	want := map[string][]string{
		"claude":   {filepath.Join(vars["CLAUDE_CONFIG_DIR"], ".claude.json"), filepath.Join(vars["CLAUDE_CONFIG_DIR"], "settings.json")},
		"codex":    {filepath.Join(vars["CODEX_HOME"], "config.toml")},
		"opencode": {filepath.Join(vars["XDG_CONFIG_HOME"], "opencode", "opencode.json")},
		"copilot":  {filepath.Join(vars["COPILOT_HOME"], "mcp-config.json"), filepath.Join(vars["COPILOT_HOME"], "agents", "whale.agent.md")},
	}
	for name, paths := range want {
		h, _ := Lookup(name)
		changes, _ := h.plan(e.o)
		var got []string
		for _, c := range changes {
			got = append(got, c.path)
		}
		if strings.Join(got, " ") != strings.Join(paths, " ") {
			t.Errorf("%s writes %v, want %v", name, got, paths)
		}
	}
}

func TestListNamesEveryHost(t *testing.T) {
	var out bytes.Buffer
	List(&out)
	for _, h := range Hosts {
		if !strings.Contains(out.String(), h.Name+" — "+h.Title+" (tested: "+h.Tested+")") {
			t.Errorf("--list lacks %s:\n%s", h.Name, out.String())
		}
	}
	if _, err := Lookup("vim"); err == nil || !strings.Contains(err.Error(), "claude, codex") {
		t.Errorf("Lookup(vim): %v", err)
	}
}
