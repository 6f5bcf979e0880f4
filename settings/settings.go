package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/terminal"
)

// The values of edits.review.
const (
	ReviewOff            = "off"
	ReviewAsk            = "ask"
	ReviewAskOutsideOpen = "ask-outside-open"
)

// DefaultProblemsWaitMs is edits.problemsWaitMs when it is not set.
const DefaultProblemsWaitMs = 1500

// ProblemsWait is edits.problemsWaitMs as a duration (0: off).
func (s Settings) ProblemsWait() time.Duration {
	if s.Edits.ProblemsWaitMs == nil {
		return DefaultProblemsWaitMs * time.Millisecond
	}
	return time.Duration(max(0, *s.Edits.ProblemsWaitMs)) * time.Millisecond
}

// DefaultChangesMaxBytes is changes.maxBytes when it is not set: the most
// the journal of changes keeps for one workspace.
const DefaultChangesMaxBytes = 200 << 20

// MaxShellWait is the longest shell_run, shell_wait and write_stdin wait
// before they hand the task back to the model.
const MaxShellWait = 10 * time.Minute

// Settings is the configuration a client sends as initializationOptions and
// in workspace/didChangeConfiguration under the key "whale"; the command line
// reads the same object from --config. Each field has its entry, with
// default and description, in Table (a test walks both).
type Settings struct {
	Shell struct {
		Program          string   `json:"program,omitempty"`
		YieldTimeMs      int      `json:"yieldTimeMs,omitempty"`
		OutputLimitBytes int      `json:"outputLimitBytes,omitempty"`
		Sandbox          string   `json:"sandbox,omitempty"`
		Network          string   `json:"network,omitempty"`
		WritableRoots    []string `json:"writableRoots,omitempty"`
		GitWritable      bool     `json:"gitWritable,omitempty"`
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
	Search struct {
		Index *bool `json:"index,omitempty"`
	} `json:"search"`
	Edits struct {
		SaveAfterApply *bool  `json:"saveAfterApply,omitempty"`
		Review         string `json:"review,omitempty"`
		ProblemsWaitMs *int   `json:"problemsWaitMs,omitempty"`
		// ReviewTimeoutMs is edits.reviewTimeoutMs (ReviewTimeout).
		ReviewTimeoutMs int `json:"reviewTimeoutMs,omitempty"`
	} `json:"edits"`
	Changes struct {
		MaxBytes int   `json:"maxBytes,omitempty"`
		Required *bool `json:"required,omitempty"`
	} `json:"changes"`
	Web struct {
		Search       json.RawMessage `json:"search,omitempty"`
		AllowPrivate bool            `json:"allowPrivate,omitempty"`
	} `json:"web"`
	MCP struct {
		Servers json.RawMessage `json:"servers,omitempty"`
	} `json:"mcp"`
	ACP struct {
		Files string `json:"files,omitempty"`
	} `json:"acp"`
}

// Values of acp.files.
const (
	ACPFilesWhale  = "whale"
	ACPFilesEditor = "editor"
)

// ACPFilesByEditor reports acp.files "editor": `whale-ls acp` sends the
// agent's file reads and writes on to the editor after its checks.
func (s Settings) ACPFilesByEditor() bool { return s.ACP.Files == ACPFilesEditor }

// DefaultReviewTimeout is edits.reviewTimeoutMs when it is not set: long
// enough for a careful review left open while the user reads elsewhere.
const DefaultReviewTimeout = 30 * time.Minute

// ReviewTimeout is how long a review of a change (edits.review) waits for
// the user before the change is rejected.
func (s Settings) ReviewTimeout() time.Duration {
	if s.Edits.ReviewTimeoutMs > 0 {
		return time.Duration(s.Edits.ReviewTimeoutMs) * time.Millisecond
	}
	return DefaultReviewTimeout
}

// SaveAfterApply reports the edits.saveAfterApply setting (default true).
func (s Settings) SaveAfterApply() bool {
	return s.Edits.SaveAfterApply == nil || *s.Edits.SaveAfterApply
}

// SearchIndex reports the search.index setting (default true): whether the
// long-lived front ends keep a live file index of each workspace folder.
func (s Settings) SearchIndex() bool {
	return s.Search.Index == nil || *s.Search.Index
}

// TerminalSettings returns the shell.* settings in the terminal package's
// terms.
func (s Settings) TerminalSettings() terminal.Settings {
	return terminal.Settings{Shell: s.Shell.Program, YieldTimeMs: s.Shell.YieldTimeMs, OutputLimitBytes: s.Shell.OutputLimitBytes}
}

// Spec describes one server setting: its dotted key and the JSON
// schema of its value. Table lists every one, so that the parser,
// `whale-ls settings` and the editors' setting pages share one source.
type Spec struct {
	// Key is the dotted path, e.g. "shell.yieldTimeMs".
	Key string `json:"key"`
	// Schema is the value's schema with its default and a Markdown
	// description that is true to the code that reads the setting.
	Schema Schema `json:"schema"`
	// DefaultShown is how the default reads for people when Schema.Default
	// does not say it (shell.program's depends on the machine); see
	// DefaultText.
	DefaultShown string `json:"-"`
}

// SettingSchema is the JSON schema of one setting's value, in the subset that
// VS Code's contributes.configuration and editors' JSON validation read.
type Schema struct {
	Type                string   `json:"type"`
	MarkdownDescription string   `json:"markdownDescription,omitempty"`
	Default             any      `json:"default,omitempty"`
	Enum                []string `json:"enum,omitempty"`
	// EnumDescriptions explain Enum's values, in the same order.
	EnumDescriptions []string           `json:"enumDescriptions,omitempty"`
	Minimum          *int               `json:"minimum,omitempty"`
	Items            *Schema            `json:"items,omitempty"`
	Properties       map[string]*Schema `json:"properties,omitempty"`
	Required         []string           `json:"required,omitempty"`
	// AdditionalProperties is false (no other keys) or a *SettingSchema
	// (the schema of every other key's value); nil says nothing.
	AdditionalProperties any `json:"additionalProperties,omitempty"`
	// Scope is VS Code's configuration scope. The settings that start
	// programs, relax a guard or send a secret have ScopeUser or
	// ScopeMachine: a cloned repository's workspace settings must not be
	// able to set them.
	Scope string `json:"scope,omitempty"`
}

// VS Code configuration scopes of the settings a workspace must not set.
const (
	// ScopeUser ("application"): read from the user's settings only, in
	// local and remote windows alike; for policy (exec rules, web guard).
	ScopeUser = "application"
	// ScopeMachine ("machine"): read from the user's settings, or in a
	// remote window from that machine's remote settings; for paths and
	// programs, which differ from machine to machine.
	ScopeMachine = "machine"
)

// DefaultText is the default as the README and `whale-ls settings` show it:
// DefaultShown when set, "none" when there is no default or it is empty, a
// string in backticks, anything else as JSON.
func (s Spec) DefaultText() string {
	if s.DefaultShown != "" {
		return s.DefaultShown
	}
	if s.Schema.Default == nil {
		return "none"
	}
	b, err := json.Marshal(s.Schema.Default)
	if err != nil {
		return "none"
	}
	switch string(b) {
	case `""`, "[]", "{}", "null":
		return "none"
	}
	if str, ok := s.Schema.Default.(string); ok {
		return "`" + str + "`"
	}
	return string(b)
}

// Table is every setting of Settings, in the order people read them.
// knownSettings, `whale-ls settings --json` and from it the VS Code
// extension's configuration are derived from it; read it, never change it.
var Table = []Spec{
	{
		Key:          "shell.program",
		DefaultShown: "`/bin/bash`, else `/bin/sh`",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "string",
			Default: "",
			MarkdownDescription: "Shell that runs each `shell_run` command as `<shell> -c <command>`. " +
				"Empty: `/bin/bash` when it exists, else `/bin/sh`. Tasks already running keep the shell they started with.",
		},
	},
	{
		Key: "shell.yieldTimeMs",
		Schema: Schema{
			Type:    "integer",
			Default: int(terminal.DefaultYield / time.Millisecond),
			Minimum: ptr(1),
			MarkdownDescription: fmt.Sprintf("How long, in milliseconds, `shell_run` waits in the foreground before the task goes on "+
				"in the background and the model gets its `task_id`; also how long `shell_wait` waits by default. "+
				"Commands known to keep running (dev servers, watchers) come back after at most %d ms, a call's own "+
				"`yield_time_ms` overrides both, and no call waits longer than %d minutes.",
				terminal.LongRunningYield/time.Millisecond, int(MaxShellWait/time.Minute)),
		},
	},
	{
		Key: "shell.outputLimitBytes",
		Schema: Schema{
			Type:    "integer",
			Default: terminal.DefaultOutputLimit,
			Minimum: ptr(1024),
			MarkdownDescription: "How many bytes of each task's latest output are kept for the model to read " +
				"(`shell_run`, `shell_wait`, `write_stdin`); when a task writes more, the oldest bytes are dropped and " +
				"the next result says how many. The editor's terminal still shows all output. Tasks already running keep their limit.",
		},
	},
	{
		Key: "shell.sandbox",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "string",
			Default: string(sandbox.DefaultMode),
			Enum:    []string{string(sandbox.WorkspaceWrite), string(sandbox.ReadOnly), string(sandbox.Off)},
			EnumDescriptions: []string{
				"Shell tasks may write only in the workspace folders (`.git` included), the temp folders, the caches of the toolchains on PATH and `shell.writableRoots`.",
				"Shell tasks may write only in the temp folders and `shell.writableRoots`.",
				"Shell tasks may write wherever their user can.",
			},
			MarkdownDescription: "Confines where shell tasks write (Linux Landlock, applied before the shell starts, so every process of the task " +
				"inherits it). The folders allowed are listed by `whale-ls settings` and in the first result that runs confined; a refused write " +
				"is named in the task's result. Where Landlock is missing (Linux before 6.2, other systems) `execBoundary.mode` decides: " +
				"`enforce` refuses commands, `best-effort` runs them unconfined and says so; while this setting is not set, commands run " +
				"unconfined there and the session's first result says so. Reading is not restricted.",
		},
	},
	{
		Key: "shell.network",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "string",
			Default: string(sandbox.DefaultNetwork),
			Enum:    []string{string(sandbox.NetOn), string(sandbox.NetLoopback), string(sandbox.NetOff)},
			EnumDescriptions: []string{
				"Shell tasks reach the network as their user does.",
				"Shell tasks run in a network namespace of their own with only loopback: servers a task starts on 127.0.0.1 are reachable, the host's loopback services and every other address are not.",
				"Shell tasks run in a network namespace with no interface up: no TCP, UDP or raw socket reaches any address; Unix sockets still work.",
			},
			MarkdownDescription: "What shell tasks may reach over the network. `loopback` and `off` need a network namespace " +
				"(root, or unprivileged user namespaces); where none can be made `execBoundary.mode` decides as for `shell.sandbox`. " +
				"Unix sockets named by a path reach their servers either way.",
		},
	},
	{
		Key: "shell.writableRoots",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "array",
			Default: []string{},
			Items:   &Schema{Type: "string"},
			MarkdownDescription: "More folders shell tasks may write in under `shell.sandbox` (absolute or `~/…`); " +
				"folders that do not exist are skipped and the result says so.",
		},
	},
	{
		Key: "shell.gitWritable",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "boolean",
			Default: false,
			MarkdownDescription: "Whether shell tasks under `shell.sandbox: workspace-write` may write the workspace's `.git/hooks` and " +
				"`.git/config`. They are read-only by default: git runs hooks and the commands that config names (core.fsmonitor, " +
				"filters, aliases) the next time the user runs git, outside the sandbox. Commits, branches and fetches work either way.",
		},
	},
	{
		Key: "execBoundary.mode",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "string",
			Default: string(execboundary.ModeEnforce),
			Enum:    []string{string(execboundary.ModeEnforce), string(execboundary.ModeBestEffort), string(execboundary.ModeOff)},
			EnumDescriptions: []string{
				"Where the exec boundary cannot be installed, refuse to run shell commands and say why.",
				"Where the exec boundary cannot be installed, run shell commands unchecked and say so in every result of the task.",
				"Run every shell command without the exec boundary, even where it works; the rules are not checked.",
			},
			MarkdownDescription: "The exec boundary stops every program a shell task executes (also inside pipes, `$(…)`, " +
				"scripts and `make` recipes) until `execBoundary.rules` let it run; it needs Linux seccomp user notification. " +
				"This says what happens where it cannot be installed, or turns it off.",
		},
	},
	{
		Key:          "execBoundary.rules",
		DefaultShown: "the default set",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "array",
			Default: execboundary.DefaultRules(),
			Items: &Schema{
				Type: "object",
				Properties: map[string]*Schema{
					"program": {Type: "string", MarkdownDescription: "A name (globs allowed: `mkfs*`) matching the program's file name, or an absolute path."},
					"argsPrefix": {Type: "array", Items: &Schema{Type: "string"},
						MarkdownDescription: "Globs the first arguments must match, in order."},
					"argsAny": {Type: "array", Items: &Schema{Type: "string"},
						MarkdownDescription: "Globs; at least one argument, wherever it stands, must match one of them (`-*r*`)."},
					"decision": {Type: "string", Enum: []string{"allow", "ask", "deny"},
						MarkdownDescription: "What happens when the rule matches; `ask` asks in the editor."},
					"why": {Type: "string",
						MarkdownDescription: "What the programs the rule matches do, in plain words, shown when whale asks or refuses (\"deletes files recursively or without asking\"); it follows the command, as in \"`rm` with `-rf` deletes …\"."},
				},
				Required:             []string{"program", "decision"},
				AdditionalProperties: false,
			},
			MarkdownDescription: "Rules `{program, argsPrefix?, argsAny?, decision, why?}` for the programs shell tasks execute. " +
				"The strictest matching rule wins (deny > ask > allow); a program no rule matches runs. Deny and ask rules " +
				"also match hard links, symlinks and copies of the named program. Setting this list replaces the default " +
				"set (ask before `sudo`, `su`, `doas`, `pkexec`, `dd`, `mkfs*`, power changes, `git push`, `npm publish` and " +
				"`rm` with a recursive or force flag); `[]` lets everything run. An invalid list is reported and the rules before it stay.",
		},
	},
	{
		Key: "execBoundary.approvalTimeoutMs",
		Schema: Schema{
			Type:    "integer",
			Default: int(execboundary.DefaultApprovalTimeout / time.Millisecond),
			Minimum: ptr(1),
			MarkdownDescription: "How long, in milliseconds, an approval question (a rule that says `ask`) waits for an " +
				"answer before the program is denied.",
		},
	},
	{
		Key: "read.approvedPaths",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "array",
			Default: []string{},
			Items:   &Schema{Type: "string"},
			MarkdownDescription: "Folders or files outside the workspace that the tools may read (never write). " +
				"Absolute or `~/…`; paths that do not exist are reported and skipped.",
		},
	},
	{
		Key: "skills.paths",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "array",
			Default: []string{},
			Items:   &Schema{Type: "string"},
			MarkdownDescription: "More places with skills for `load_skill`, besides `.whale/skills/` in the workspace and " +
				"`~/.config/whale/skills/`: each a skill folder (with a `SKILL.md`) or a folder of them. They become readable too.",
		},
	},
	{
		Key: "search.index",
		Schema: Schema{
			Type:    "boolean",
			Default: true,
			MarkdownDescription: "Keep a live index of each workspace folder's files, so that `grep` and `search_files` answer without " +
				"walking the tree, and a filter of their contents, so that `grep` reads only the files that may match (at most 48 MiB of memory); " +
				"it follows changes through the system's file notifications (inotify). Off: every search walks the folder, " +
				"for network filesystems (changes made on other machines are not notified) or to save the inotify watches. " +
				"Where the index cannot work (the watch limit is reached, no inotify) searches walk and `whale-ls settings` says why. " +
				"A change takes effect at once.",
		},
	},
	{
		Key: "edits.saveAfterApply",
		Schema: Schema{
			Type:    "boolean",
			Default: true,
			MarkdownDescription: "After an edit tool changed a document open in the editor, ask the editor to save it, " +
				"so that shell commands see the change on disk. Off: the change stays an unsaved buffer and the result says so.",
		},
	},
	{
		Key: "edits.review",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "string",
			Enum:    []string{ReviewOff, ReviewAsk, ReviewAskOutsideOpen},
			Default: ReviewOff,
			MarkdownDescription: "Show every change of `edit`, `multi_edit`, `write`, `apply_patch` and `changes_revert` as a diff " +
				"for the user to accept, reject, or accept hunk by hunk before it is applied: `ask` for every change, " +
				"`ask-outside-open` only for files not open in the editor, `off` never. No answer before " +
				"`edits.reviewTimeoutMs` rejects the change.",
		},
	},
	{
		Key: "edits.reviewTimeoutMs",
		Schema: Schema{
			Type:    "integer",
			Default: int(DefaultReviewTimeout / time.Millisecond),
			Minimum: ptr(1),
			MarkdownDescription: "How long, in milliseconds, a review of a change (`edits.review`) waits for the user before the " +
				"change is rejected (default 30 minutes). The prompt carries the time left, so the editor can show it; " +
				"the call that waits reports \"waiting for your review\".",
		},
	},
	{
		Key: "edits.problemsWaitMs",
		Schema: Schema{
			Type:    "integer",
			Default: DefaultProblemsWaitMs,
			Minimum: ptr(0),
			MarkdownDescription: "After an edit, how long whale waits at most for the editor's diagnostics of the changed files to settle " +
				"before it tells the model the problems the edit introduced (only with an editor that offers them). 0 turns it off.",
		},
	},
	{
		Key: "changes.maxBytes",
		Schema: Schema{
			Type:    "integer",
			Default: DefaultChangesMaxBytes,
			Minimum: ptr(1 << 20),
			MarkdownDescription: "How many bytes the journal of changes (what `changes_list` lists and `changes_revert` takes back) " +
				"may keep for this workspace, under the user's state folder; past it the oldest entries are dropped first. " +
				"A change takes effect in the next session.",
		},
	},
	{
		Key: "acp.files",
		Schema: Schema{
			Type:    "string",
			Enum:    []string{ACPFilesWhale, ACPFilesEditor},
			Default: ACPFilesWhale,
			EnumDescriptions: []string{
				"whale reads and writes the agent's files itself: path guards, review, stale-write merge, journal, encoding kept, a diff shown to the editor.",
				"whale checks each read and write (path guards, stale-write merge or refusal) and journals it, then the editor reads or writes its own buffer; no review, and the encoding is the editor's.",
			},
			MarkdownDescription: "Only for `whale-ls acp` (the `--files` flag overrides it): who serves the agent's `fs/read_text_file` and " +
				"`fs/write_text_file`. `whale` serves them through its commit path. `editor` (for an editor such as Zed that keeps its own " +
				"buffers and history) sends them on to the editor after whale's checks, when the editor advertised both in its " +
				"`initialize`; otherwise whale serves them and says so in its log.",
		},
	},
	{
		Key: "changes.required",
		Schema: Schema{
			Type:    "boolean",
			Default: true,
			MarkdownDescription: "Whether whale refuses to change a file when the journal of changes cannot be written (its state folder is " +
				"missing, full or not writable): every change whale makes can then be listed and taken back. `false` makes such " +
				"changes anyway, and each result says that it cannot be reverted.",
		},
	},
	{
		Key: "web.allowPrivate",
		Schema: Schema{
			Scope:   ScopeUser,
			Type:    "boolean",
			Default: false,
			MarkdownDescription: "Let `fetch` and `web_fetch` reach `localhost`, loopback, private, link-local (cloud metadata) " +
				"and other non-public addresses. Off, they are refused, also after a redirect or a DNS answer. " +
				"The `web.search` provider is not affected.",
		},
	},
	{
		Key: "web.search",
		Schema: Schema{
			Scope: ScopeUser,
			Type:  "object",
			Properties: map[string]*Schema{
				"provider": {Type: "string", Enum: []string{"searxng", "brave"},
					EnumDescriptions: []string{"A SearXNG instance with the JSON format enabled.", "The Brave Search API."}},
				"endpoint": {Type: "string",
					MarkdownDescription: "The SearXNG instance's URL (required for searxng), or another Brave API URL."},
				"apiKeyEnv": {Type: "string",
					MarkdownDescription: "The environment variable (of whale-ls, inherited from the editor) that holds the API key (brave: default `BRAVE_API_KEY`; searxng: optional, sent as a bearer token)."},
			},
			Required:             []string{"provider"},
			AdditionalProperties: false,
			MarkdownDescription: "The provider of `web_search`: `{\"provider\": \"searxng\", \"endpoint\": \"https://…\"}` or " +
				"`{\"provider\": \"brave\", \"apiKeyEnv\": \"BRAVE_API_KEY\"}`. Without it `web_search` answers `not_configured`.",
		},
	},
	{
		Key: "mcp.servers",
		Schema: Schema{
			Scope:   ScopeMachine,
			Type:    "object",
			Default: map[string]any{},
			AdditionalProperties: &Schema{
				Type: "object",
				Properties: map[string]*Schema{
					"command":  {Type: "string", MarkdownDescription: "The server's program (stdio transport)."},
					"args":     {Type: "array", Items: &Schema{Type: "string"}, MarkdownDescription: "Its arguments."},
					"env":      {Type: "object", AdditionalProperties: &Schema{Type: "string"}, MarkdownDescription: "More environment variables; `$VAR` in a value is expanded."},
					"cwd":      {Type: "string", MarkdownDescription: "Its working folder (default: the first workspace folder)."},
					"deferred": {Type: "boolean", MarkdownDescription: "Keep its tools out of the catalog until `tool_search` finds them or a call names one exactly."},
				},
				Required:             []string{"command"},
				AdditionalProperties: false,
			},
			MarkdownDescription: "MCP servers (stdio) whose tools join the catalog as `mcp__<name>__<tool>`: " +
				"`{\"<name>\": {\"command\", \"args\"?, \"env\"?, \"cwd\"?, \"deferred\"?}}`, names of letters, digits, `-` and `_`. " +
				"A deferred server's tools are activated when `tool_search` finds them or a call names one exactly (`mcp__<name>__<tool>`). Changes take effect when the server restarts.",
		},
	},
}

func ptr[T any](v T) *T { return &v }

// knownSettings lists every key Settings understands, as dotted paths; it is
// derived from Table.
var knownSettings = func() map[string]bool {
	m := make(map[string]bool, len(Table))
	for _, s := range Table {
		m[s.Key] = true
	}
	return m
}()

// Parse decodes a settings object. Keys may be nested
// ({"shell":{"yieldTimeMs":1}}) or dotted ({"shell.yieldTimeMs":1}), and the
// whole object may be wrapped in {"whale": …}. Unknown keys are returned,
// sorted, for the caller to report; they are not an error. A value of the
// wrong type is an error that names the key.
func Parse(raw []byte) (Settings, []string, error) {
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
		// A fresh map: unmarshalling into top would keep the "whale" key.
		var unwrapped map[string]json.RawMessage
		if err := json.Unmarshal(inner, &unwrapped); err != nil {
			return s, nil, fmt.Errorf("settings under \"whale\" must be a JSON object: %w", err)
		}
		top = unwrapped
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

// WebSearch is the web.search setting: which search provider web_search
// asks, and where its key is.
type WebSearch struct {
	// Provider is "searxng" or "brave".
	Provider string `json:"provider"`
	// Endpoint is the SearXNG instance URL, or another Brave API URL.
	Endpoint string `json:"endpoint"`
	// APIKeyEnv names the environment variable that holds the key (Brave:
	// required, default BRAVE_API_KEY; SearXNG: optional bearer token).
	APIKeyEnv string `json:"apiKeyEnv"`
}
