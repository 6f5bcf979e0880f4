package lsp

// The whale-specific wire surface: every whale/* method name and the types
// of its params and results, in one place. The editors mirror this file:
// editors/vscode/src/requests.ts and lua/whale/protocol.lua
// name the same methods (protocol_test.go checks that the three lists
// agree). The packages below lsp never see these types: lsp converts from
// their own types (terminal.TaskInfo, toolbridge.PromptOption, …) here, so a
// field renamed there does not change the wire.
//
// Field order follows the JSON the server sent before these types existed
// (encoding/json writes map keys sorted), so the bytes on the wire are the
// same.

import (
	"encoding/json"
	"time"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Method names of whale/*. Direction and payload are in each comment.
const (
	// client → server request, no params → toolsResult.
	methodTools = "whale/tools"
	// server → client notification: toolsChangedParams.
	methodToolsChanged = "whale/toolsChanged"

	// server → client notification: terminalOpenParams.
	methodTerminalOpen = "whale/terminal/open"
	// server → client notification: terminalOutputParams.
	methodTerminalOutput = "whale/terminal/output"
	// server → client notification: terminalExitParams.
	methodTerminalExit = "whale/terminal/exit"
	// server → client notification: terminalWaitingParams.
	methodTerminalWaiting = "whale/terminal/waiting"
	// client → server request: terminalRequestParams {taskId, data} → null.
	methodTerminalInput = "whale/terminal/input"
	// client → server request: terminalRequestParams {taskId, cols, rows} → null.
	methodTerminalResize = "whale/terminal/resize"
	// client → server request: terminalRequestParams {taskId} → terminalCancelResult.
	methodTerminalCancel = "whale/terminal/cancel"
	// client → server request, no params → terminalListResult.
	methodTerminalList = "whale/terminal/list"
	// client → server request: shellJudgeParams → shellJudgeResult.
	methodShellJudge = "whale/shell/judge"
	// client → server request: previewParams → previewResult.
	methodPreview = "whale/preview"

	// server → client notification: promptParams; answered by methodPromptAnswer.
	methodPrompt = "whale/prompt"
	// client → server request: promptAnswerParams → null.
	methodPromptAnswer = "whale/prompt/answer"

	// server → client request: saveDocumentsParams → saveDocumentsResult.
	methodSaveDocuments = "whale/saveDocuments"

	// server → client notification: planParams.
	methodPlan = "whale/plan"
	// server → client notification: todosParams.
	methodTodos = "whale/todos"

	// client → server request: changesListParams → changesListResult.
	methodChangesList = "whale/changes/list"
	// client → server request: changesDiffParams → changesDiffResult.
	methodChangesDiff = "whale/changes/diff"
	// client → server request: changesRevertParams → changesRevertResult.
	methodChangesRevert = "whale/changes/revert"
	// server → client notification: changesChangedParams, after this server
	// journaled a change.
	methodChangesChanged = "whale/changes/changed"

	// server → client request (languageFeatures): diagnosticsParams →
	// diagnosticsResult.
	methodDiagnostics = "whale/diagnostics"
	// server → client request (languageFeatures): languageFeatureParams →
	// the standard LSP result of that kind (Location[], Hover,
	// DocumentSymbol[], SymbolInformation[], WorkspaceEdit, or null).
	methodLanguageFeature = "whale/languageFeature"
)

// whaleMethods lists every method above; protocol_test.go compares it with
// the editors' lists.
var whaleMethods = []string{
	methodTools, methodToolsChanged,
	methodTerminalOpen, methodTerminalOutput, methodTerminalExit, methodTerminalWaiting,
	methodTerminalInput, methodTerminalResize, methodTerminalCancel, methodTerminalList,
	methodShellJudge, methodPreview,
	methodPrompt, methodPromptAnswer,
	methodSaveDocuments,
	methodPlan, methodTodos,
	methodChangesList, methodChangesDiff, methodChangesRevert, methodChangesChanged,
	methodDiagnostics, methodLanguageFeature,
}

// Capabilities ------------------------------------------------------------

// whaleClientCaps is what the client declares under
// capabilities.experimental.whale in initialize; the server uses an
// optional feature only when it is declared.
type whaleClientCaps struct {
	Terminals     bool `json:"terminals"`
	Prompts       bool `json:"prompts"`
	SaveDocuments bool `json:"saveDocuments"`
	// LanguageFeatures: the client answers whale/diagnostics and
	// whale/languageFeature.
	LanguageFeatures bool `json:"languageFeatures"`
}

// whaleServerCaps is what the server answers under
// capabilities.experimental.whale in the initialize result.
type whaleServerCaps struct {
	ExecBoundary execBoundaryState `json:"execBoundary"`
	Tools        int               `json:"tools"`
	Version      string            `json:"version"`
}

// execBoundaryState tells the client whether shell tasks run behind the
// exec boundary.
type execBoundaryState struct {
	Mode      string `json:"mode"`
	Available bool   `json:"available"`
	Active    bool   `json:"active"`
	Reason    string `json:"reason,omitempty"`
}

func execBoundaryStateOf(s execboundary.State) execBoundaryState {
	return execBoundaryState{Mode: string(s.Mode), Available: s.Available, Active: s.Active, Reason: s.Reason}
}

// Tools ------------------------------------------------------------------

// toolsResult is the result of whale/tools. A Spec is the catalog's own
// shape, the same that `whale-ls tools --json` prints and the MCP front
// lists, so that the editors' generated contributions have one source.
type toolsResult struct {
	Tools []toolbridge.Spec `json:"tools"`
}

// toolsChangedParams is the payload of whale/toolsChanged: the specs of the
// tools that joined the catalog (MCP tools that a tool_search or a call by
// exact name activated). Specs already sent never change, so a client adds
// these to what it has.
type toolsChangedParams struct {
	Added []toolbridge.Spec `json:"added"`
	// Count is the number of tools in the catalog now.
	Count int `json:"count"`
}

// Terminals --------------------------------------------------------------

// shellJudgeParams are the params of whale/shell/judge: a shell_run command
// and its cwd (empty: the workspace root), before the tool is called.
type shellJudgeParams struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd,omitempty"`
}

// shellJudgeResult says what whale will do with that command, so that the
// editor asks the user once: readOnly (the command only reads, beyond doubt
// from its text) and boundary, what the exec boundary will do with the
// programs its command line names: "allow" (no question), "ask" (it will
// ask the user), "deny" (it will refuse) or "unchecked" (nothing checks).
type shellJudgeResult struct {
	ReadOnly bool   `json:"readOnly"`
	Boundary string `json:"boundary"`
}

// previewParams are the params of whale/preview: a tool call the model
// asked for, before the host runs it. Tool is the catalog name ("edit");
// Input the tool input exactly as the model sent it.
type previewParams struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// previewResult tells a person what that call will do, for the host's
// approval: ReadOnly (it changes nothing of the user's: hosts never ask),
// WhaleAsks (whale itself will ask: edits.review, or the exec boundary's
// rules; the host should not ask again), Title (one plain line, "Edit
// src/main.go (+3 −1)"), Detail (Markdown: a ```diff fence for a change;
// command, programs, folder and what the exec boundary will do for a
// command), Files (a change's files, relative to their workspace folder),
// Error (why the call will fail, when it will).
type previewResult struct {
	ReadOnly  bool          `json:"readOnly"`
	WhaleAsks bool          `json:"whaleAsks"`
	Title     string        `json:"title"`
	Detail    string        `json:"detail"`
	Files     []previewFile `json:"files,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// previewFile is one file of a previewed change.
type previewFile struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

func previewResultOf(p catalog.Preview) previewResult {
	r := previewResult{ReadOnly: p.ReadOnly, WhaleAsks: p.WhaleAsks, Title: p.Title, Detail: p.Detail, Error: p.Error}
	for _, f := range p.Files {
		r.Files = append(r.Files, previewFile{Path: f.Path, Added: f.Added, Removed: f.Removed})
	}
	return r
}

// terminalOpenParams is the payload of whale/terminal/open: a task started.
type terminalOpenParams struct {
	TaskID  string `json:"taskId"`
	Title   string `json:"title"`
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	PTY     bool   `json:"pty"`
	Cols    int    `json:"cols"`
	Rows    int    `json:"rows"`
}

func terminalOpenParamsOf(info terminal.TaskInfo) terminalOpenParams {
	return terminalOpenParams{TaskID: info.ID, Title: info.Title, Command: info.Command, Cwd: info.Dir, PTY: info.PTY, Cols: info.Cols, Rows: info.Rows}
}

// terminalOutputParams is the payload of whale/terminal/output: UTF-8 text,
// never split inside a character; seq counts a task's chunks from 1.
type terminalOutputParams struct {
	Data   string `json:"data"`
	Seq    int64  `json:"seq"`
	TaskID string `json:"taskId"`
}

// terminalExitParams is the payload of whale/terminal/exit.
type terminalExitParams struct {
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal"`
	TaskID   string `json:"taskId"`
}

// terminalWaitingParams is the payload of whale/terminal/waiting: a running
// task waits for input, with echo off when secret; prompt is its last line.
type terminalWaitingParams struct {
	TaskID string `json:"taskId"`
	Secret bool   `json:"secret"`
	Prompt string `json:"prompt"`
}

// terminalRequestParams are the params of whale/terminal/input {taskId,
// data}, whale/terminal/resize {taskId, cols, rows} and
// whale/terminal/cancel {taskId}. They are read as one shape, so a field of
// the wrong type is refused whichever of the three requests carries it.
type terminalRequestParams struct {
	TaskID string `json:"taskId"`
	Data   string `json:"data"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
}

// terminalListResult is the result of whale/terminal/list.
type terminalListResult struct {
	Tasks []terminalTask `json:"tasks"`
}

// terminalTask is one task of whale/terminal/list: its terminal, state,
// exit code, and for a finished task whose processes still run (daemons,
// `&` jobs) its survivors.
type terminalTask struct {
	terminalOpenParams
	// State is "running" or "exited".
	State       string            `json:"state"`
	ExitCode    int               `json:"exitCode"`
	Signal      string            `json:"signal,omitempty"`
	Canceled    bool              `json:"canceled,omitempty"`
	LongRunning bool              `json:"longRunning,omitempty"`
	ElapsedMs   int64             `json:"elapsedMs"`
	Survivors   []terminalProcess `json:"survivors,omitempty"`
}

// terminalProcess is one live process of a task.
type terminalProcess struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

func terminalListResultOf(list []terminal.Status) terminalListResult {
	if list == nil {
		return terminalListResult{}
	}
	tasks := make([]terminalTask, len(list))
	for i, st := range list {
		tasks[i] = terminalTask{
			terminalOpenParams: terminalOpenParamsOf(st.TaskInfo),
			State:              string(st.State),
			ExitCode:           st.ExitCode,
			Signal:             st.Signal,
			Canceled:           st.Canceled,
			LongRunning:        st.LongRunning,
			ElapsedMs:          st.ElapsedMs,
			Survivors:          terminalProcessesOf(st.Survivors),
		}
	}
	return terminalListResult{Tasks: tasks}
}

func terminalProcessesOf(ps []terminal.Process) []terminalProcess {
	if ps == nil {
		return nil
	}
	out := make([]terminalProcess, len(ps))
	for i, p := range ps {
		out[i] = terminalProcess{PID: p.PID, Command: p.Command}
	}
	return out
}

// terminalCancelResult is the result of whale/terminal/cancel. Ended lists,
// when the task's shell had already exited, the processes it had left
// running that the cancel ended.
type terminalCancelResult struct {
	AlreadyExited bool              `json:"alreadyExited,omitempty"`
	Took          string            `json:"took,omitempty"`
	Ended         []terminalProcess `json:"ended,omitempty"`
	Unkillable    int               `json:"unkillable"`
}

func terminalCancelResultOf(r terminal.CancelReport) terminalCancelResult {
	return terminalCancelResult{AlreadyExited: r.AlreadyExited, Took: r.Took, Ended: terminalProcessesOf(r.Ended), Unkillable: r.Unkillable}
}

// Prompts ----------------------------------------------------------------

// promptParams is the payload of whale/prompt. Kind is "approval" (options
// allow_once, allow_session, deny), "choice", "text", or "review" (options
// accept, reject; Files holds the change's files and hunks). Options is
// never null. TimeoutMs and ExpiresAt (RFC 3339), when set, say how long
// the question waits: the editor can show the time left, and drop an
// expired question. An answer after that is refused with a message that
// says what became of the question.
type promptParams struct {
	Detail      string         `json:"detail"`
	ExpiresAt   *time.Time     `json:"expiresAt,omitempty"`
	Files       []reviewFile   `json:"files,omitempty"`
	Kind        string         `json:"kind"`
	Options     []promptOption `json:"options"`
	Placeholder string         `json:"placeholder,omitempty"`
	PromptID    string         `json:"promptId"`
	TimeoutMs   int64          `json:"timeoutMs,omitempty"`
	Title       string         `json:"title"`
}

// reviewFile is one file of a change under review (kind "review"): its
// text before and after, for a diff view, and its hunks, which the answer
// may accept one by one.
type reviewFile struct {
	Path   string       `json:"path"`
	URI    string       `json:"uri"`
	Before string       `json:"before"`
	After  string       `json:"after"`
	Hunks  []reviewHunk `json:"hunks"`
}

// reviewHunk is one hunk: its id for the answer, its "@@" header and its
// unified-diff lines.
type reviewHunk struct {
	ID     string `json:"id"`
	Header string `json:"header"`
	Diff   string `json:"diff"`
}

func reviewFilesOf(files []toolbridge.ReviewFile) []reviewFile {
	out := make([]reviewFile, 0, len(files))
	for _, f := range files {
		rf := reviewFile{Path: f.Path, URI: pathToURI(f.Path), Before: f.Before, After: f.After, Hunks: make([]reviewHunk, 0, len(f.Hunks))}
		for _, h := range f.Hunks {
			rf.Hunks = append(rf.Hunks, reviewHunk{ID: h.ID, Header: h.Header, Diff: h.Diff})
		}
		out = append(out, rf)
	}
	return out
}

// promptOption is one answer the user can pick.
type promptOption struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

func promptOptionsOf(opts []toolbridge.PromptOption) []promptOption {
	out := make([]promptOption, len(opts))
	for i, o := range opts {
		out[i] = promptOption{ID: o.ID, Label: o.Label}
	}
	return out
}

// promptAnswerParams is the payload of whale/prompt/answer: {promptId,
// optionId} or {promptId, text} or {promptId, cancelled: true} ("canceled"
// is read too).
type promptAnswerParams struct {
	PromptID string  `json:"promptId"`
	OptionID *string `json:"optionId,omitempty"`
	Text     *string `json:"text,omitempty"`
	// Hunks, answering a review with "accept", are the accepted hunks'
	// ids; omitted, all of them.
	Hunks     *[]string `json:"hunks,omitempty"`
	Cancelled bool      `json:"cancelled,omitempty"`
	Canceled  bool      `json:"canceled,omitempty"`
}

// Documents --------------------------------------------------------------

// saveDocumentsParams are the params of whale/saveDocuments: the URIs of
// open documents whale changed.
type saveDocumentsParams struct {
	URIs []string `json:"uris"`
}

// saveDocumentsResult is the client's answer: the URIs it saved.
type saveDocumentsResult struct {
	Saved []string `json:"saved"`
}

// Plan and todos ---------------------------------------------------------

// planParams is the payload of whale/plan: the whole plan after each
// update.
type planParams struct {
	Explanation string     `json:"explanation"`
	Steps       []planStep `json:"steps"`
}

// planStep is one step; Status is pending, in_progress or completed.
type planStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// todosParams is the payload of whale/todos: the whole list after each
// change; Items is never null.
type todosParams struct {
	Items []todoItem `json:"items"`
}

// todoItem is one todo. Status is pending, in_progress or completed;
// Priority high, medium or low.
type todoItem struct {
	ID       int       `json:"id"`
	Content  string    `json:"content"`
	Status   string    `json:"status"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// Changes -----------------------------------------------------------------

// changesListParams asks for the journal's entries newer than Since (an
// id), at most Limit (0: 20).
type changesListParams struct {
	Since string `json:"since,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// changesListResult is the entries, newest first, and how many the size
// bound dropped.
type changesListResult struct {
	Entries []changeEntry `json:"entries"`
	Dropped int           `json:"dropped"`
}

// changeEntry is one journaled tool call. Time is RFC 3339 with the
// server's UTC offset. Summary is the model's line (it names the tool);
// Title is the person's: no ids, no tool names, paths relative to the
// workspace folder ("Edited src/main.go (+2 −1)", "`make clean` deleted
// build/sub/x.o", "Reverted src/main.go (+1 −2)"). Command is a shell
// task's command line; RevertedBy the id of the entry that reverted this
// one, when one did.
type changeEntry struct {
	ID         string       `json:"id"`
	Time       time.Time    `json:"time"`
	Tool       string       `json:"tool"`
	CallID     string       `json:"callId"`
	Summary    string       `json:"summary"`
	Title      string       `json:"title"`
	Command    string       `json:"command,omitempty"`
	RevertOf   []string     `json:"revertOf,omitempty"`
	RevertedBy string       `json:"revertedBy,omitempty"`
	Files      []changeFile `json:"files"`
}

// changeFile is one file of an entry: Path absolute, RelPath relative to
// the workspace folder with slashes ("build/sub/x.o"), Name the base name.
type changeFile struct {
	Path    string `json:"path"`
	RelPath string `json:"relPath"`
	URI     string `json:"uri"`
	Name    string `json:"name"`
	Where   string `json:"where"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Created bool   `json:"created"`
	Deleted bool   `json:"deleted"`
}

// changesDiffParams names the entry to show.
type changesDiffParams struct {
	ID string `json:"id"`
}

// changesDiffResult is an entry's unified diff and each file's text before
// and after (omitted for a binary file, or a side where it did not exist).
type changesDiffResult struct {
	ID    string           `json:"id"`
	Diff  string           `json:"diff"`
	Files []changeFileDiff `json:"files"`
}

// changeFileDiff is one file of changesDiffResult.
type changeFileDiff struct {
	Path         string  `json:"path"`
	URI          string  `json:"uri"`
	Before       *string `json:"before,omitempty"`
	After        *string `json:"after,omitempty"`
	BeforeExists bool    `json:"beforeExists"`
	AfterExists  bool    `json:"afterExists"`
	Binary       bool    `json:"binary"`
}

// changesRevertParams names the entry to revert (ID), or the oldest entry
// of those to revert with every later one (To); exactly one is set.
type changesRevertParams struct {
	ID string `json:"id,omitempty"`
	To string `json:"to,omitempty"`
}

// changesRevertResult is what the revert did: the entries it took back and
// its own entry, or, when nothing could be changed, why (Code, Text) and
// the conflicting hunks. Text is the model's; Message the person's, which
// on a refusal names the action that resolves it ("Save or close it there,
// then revert again").
type changesRevertResult struct {
	OK        bool             `json:"ok"`
	Code      string           `json:"code"`
	Text      string           `json:"text"`
	Message   string           `json:"message"`
	Reverted  []string         `json:"reverted"`
	Entry     string           `json:"entry,omitempty"`
	Conflicts []changeConflict `json:"conflicts,omitempty"`
}

// changeConflict is a file a revert could not merge.
type changeConflict struct {
	Path   string   `json:"path"`
	Reason string   `json:"reason"`
	Hunks  []string `json:"hunks"`
}

// changesChangedParams names the newest entry this server journaled.
type changesChangedParams struct {
	Latest string `json:"latest"`
}

// Language features --------------------------------------------------------

// diagnosticsParams asks for the problems the editor knows of in these
// documents (all of them when empty).
type diagnosticsParams struct {
	URIs []string `json:"uris"`
}

// diagnosticsResult is the editor's problems. Published, when the editor
// keeps it, counts per document URI the times the editor received that
// document's diagnostics from a language server (optional: without it the
// server cannot tell a language server that found nothing new from one
// that has not answered yet, and waits out edits.problemsWaitMs).
type diagnosticsResult struct {
	Items     []diagnosticItem `json:"items"`
	Published map[string]int64 `json:"published,omitempty"`
}

// diagnosticItem is one problem; Code is a number or a string.
type diagnosticItem struct {
	URI      string          `json:"uri"`
	Range    Range           `json:"range"`
	Severity int             `json:"severity"`
	Message  string          `json:"message"`
	Source   string          `json:"source,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
}

// languageFeatureParams asks the editor's language servers for one thing:
// Kind is definition, references, hover, documentSymbols, workspaceSymbols
// or rename.
type languageFeatureParams struct {
	Kind     string    `json:"kind"`
	URI      string    `json:"uri,omitempty"`
	Position *Position `json:"position,omitempty"`
	Query    string    `json:"query,omitempty"`
	NewName  string    `json:"newName,omitempty"`
}

// lspLocation is a Location or a LocationLink.
type lspLocation struct {
	URI                  string `json:"uri"`
	Range                Range  `json:"range"`
	TargetURI            string `json:"targetUri"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// lspSymbol is a DocumentSymbol or a SymbolInformation (Location set).
type lspSymbol struct {
	Name           string       `json:"name"`
	Kind           int          `json:"kind"`
	ContainerName  string       `json:"containerName,omitempty"`
	SelectionRange Range        `json:"selectionRange"`
	Location       *lspLocation `json:"location,omitempty"`
	Children       []lspSymbol  `json:"children,omitempty"`
}
