// Typed custom requests and notifications of whale-ls. Mirrors
// lsp/protocol.go, which names every whale/* method and its params and
// results; lsp/protocol_test.go checks that this file (each `new
// RequestType…('whale/…')` / `new NotificationType…('whale/…')`),
// lua/whale/protocol.lua and the server hold the same
// methods. Every whale/* method the extension uses is named here and
// nowhere else in src/. One file, no vscode import, so that the shapes can
// be shared with tests and the companion test extension.
import { NotificationType, RequestType, RequestType0 } from 'vscode-jsonrpc';

/** The result of every tool: `workspace/executeCommand whale.<tool>`. */
export interface Envelope {
    ok: boolean;
    code: string;
    text: string;
    data?: unknown;
    repairs?: string[];
    truncated?: boolean;
}

/** One catalog entry of `whale/tools` and `whale-ls tools --json`. */
export interface ToolInfo {
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    readOnly: boolean;
    group: string;
}

export interface ToolsResult {
    tools: ToolInfo[];
}

/** client → server: the catalog of this session. */
export const tools = new RequestType0<ToolsResult, void>('whale/tools');

export interface ToolsChangedParams {
    /** The tools that joined the catalog (deferred MCP tools activated). */
    added: ToolInfo[];
    /** How many tools the catalog holds now. */
    count: number;
}

/**
 * server → client: tools joined the catalog. The extension does not act on
 * it: its language-model tools are the ones package.json contributes.
 */
export const toolsChanged = new NotificationType<ToolsChangedParams>('whale/toolsChanged');

// Terminals --------------------------------------------------------------

export interface TerminalOpenParams {
    taskId: string;
    title?: string;
    command: string;
    cwd?: string;
    pty: boolean;
    cols?: number;
    rows?: number;
}

export interface TerminalOutputParams {
    taskId: string;
    seq: number;
    data: string;
}

export interface TerminalExitParams {
    taskId: string;
    exitCode: number;
    signal?: string;
}

export interface TerminalWaitingParams {
    taskId: string;
    secret: boolean;
    prompt: string;
}

export interface TaskIdParams {
    taskId: string;
}

export interface TerminalInputParams extends TaskIdParams {
    data: string;
}

export interface TerminalResizeParams extends TaskIdParams {
    cols: number;
    rows: number;
}

/** server → client: a task started. */
export const terminalOpen = new NotificationType<TerminalOpenParams>('whale/terminal/open');
/** server → client: output of a task, UTF-8 text never split inside a character. */
export const terminalOutput = new NotificationType<TerminalOutputParams>('whale/terminal/output');
/** server → client: a task ended. */
export const terminalExit = new NotificationType<TerminalExitParams>('whale/terminal/exit');
/** server → client: a running task waits for input (with echo off when secret). */
export const terminalWaiting = new NotificationType<TerminalWaitingParams>('whale/terminal/waiting');
/** client → server: text typed into a task's terminal. */
export const terminalInput = new RequestType<TerminalInputParams, null, void>('whale/terminal/input');
/** client → server: the terminal's dimensions changed. */
export const terminalResize = new RequestType<TerminalResizeParams, null, void>('whale/terminal/resize');
/** client → server: the user closed the terminal; stop the task. */
export const terminalCancel = new RequestType<TaskIdParams, unknown, void>('whale/terminal/cancel');
/** client → server: the tasks of this session. */
export const terminalList = new RequestType0<{ tasks: unknown[] }, void>('whale/terminal/list');

// Shell commands ---------------------------------------------------------

/** What the exec boundary will do with the programs a command line names. */
export type BoundaryOutlook = 'allow' | 'ask' | 'deny' | 'unchecked';

export interface ShellJudgeParams {
    command: string;
    cwd?: string;
}

export interface ShellJudgeResult {
    /** The command only reads, beyond doubt from its text. */
    readOnly: boolean;
    boundary: BoundaryOutlook;
}

/** client → server: what whale will do with a shell_run command, before the call (one confirmation per command). */
export const shellJudge = new RequestType<ShellJudgeParams, ShellJudgeResult, void>('whale/shell/judge');

/** `whale/preview`: what a tool call will do, before it runs (the host's confirmation shows it). */
export interface PreviewParams {
    /** Catalog name, e.g. `edit`. */
    tool: string;
    /** The input exactly as the model sent it. */
    input: Record<string, unknown>;
}

/** One file a previewed change touches. */
export interface PreviewFile {
    /** Relative to its workspace folder ("src/app/main.go"). */
    path: string;
    added: number;
    removed: number;
}

export interface PreviewResult {
    /** The call only reads: nobody asks. */
    readOnly: boolean;
    /** whale itself will ask (review mode, the exec boundary's "ask"): the host does not ask again. */
    whaleAsks: boolean;
    /** Short plain words, e.g. "Edit src/main.go (+3 −1)". */
    title: string;
    /** Markdown: the unified diff in a ```diff fence for a change; command, program, folder and why for shell_run. */
    detail: string;
    files?: PreviewFile[];
    /** Set when the plan fails (the call would fail the same way). */
    error?: string;
}

/** client → server: a preview of a tool call; servers without it answer MethodNotFound (-32601). */
export const preview = new RequestType<PreviewParams, PreviewResult, void>('whale/preview');

// Prompts ----------------------------------------------------------------

export type PromptKind = 'approval' | 'choice' | 'text' | 'review';

export interface PromptOption {
    id: string;
    label: string;
}

export interface PromptParams {
    promptId: string;
    kind: PromptKind;
    title: string;
    detail?: string;
    options: PromptOption[];
    placeholder?: string;
    /** How long the server waits for the answer; past it the question is void. */
    timeoutMs?: number;
    /** When the question expires (RFC 3339), for a countdown; an answer after it is refused with a message saying why. */
    expiresAt?: string;
    /** Kind "review": the files of the proposed change. */
    files?: ReviewFile[];
}

/** One file of a change under review: its whole text before and after ("" where it does not exist) and its hunks. */
export interface ReviewFile {
    path: string;
    uri: string;
    before: string;
    after: string;
    hunks: ReviewHunk[];
}

/** One hunk of a review: its id for the answer, its "@@" header, its unified-diff lines. */
export interface ReviewHunk {
    id: string;
    header: string;
    diff: string;
}

/** The ids of a review's answer options. */
export type ReviewOptionId = 'accept' | 'reject';

export type PromptAnswer =
    | { promptId: string; optionId: string }
    | { promptId: string; text: string }
    | { promptId: string; cancelled: true }
    // A review: accept (hunks omitted = all of them) or reject with an optional reason.
    | { promptId: string; optionId: 'accept'; hunks?: string[] }
    | { promptId: string; optionId: 'reject'; text?: string };

/** server → client: ask the user; answered by `whale/prompt/answer`. */
export const prompt = new NotificationType<PromptParams>('whale/prompt');
/** client → server: the answer to a `whale/prompt`. */
export const promptAnswer = new RequestType<PromptAnswer, null, void>('whale/prompt/answer');

// Documents --------------------------------------------------------------

export interface SaveDocumentsParams {
    uris: string[];
}

export interface SaveDocumentsResult {
    saved: string[];
}

/** server → client: save these open documents (after whale edited them). */
export const saveDocuments = new RequestType<SaveDocumentsParams, SaveDocumentsResult, void>('whale/saveDocuments');

// Plan and todos ---------------------------------------------------------

export interface PlanStep {
    step: string;
    status: string; // pending | in_progress | completed
}

export interface PlanParams {
    explanation?: string;
    steps: PlanStep[];
}

export interface TodoItem {
    content?: string;
    text?: string;
    title?: string;
    status?: string;
    id?: string;
    [key: string]: unknown;
}

export interface TodosParams {
    items: TodoItem[];
}

/** server → client: the assistant's plan changed. */
export const plan = new NotificationType<PlanParams>('whale/plan');
/** server → client: the assistant's todo list changed. */
export const todos = new NotificationType<TodosParams>('whale/todos');

// Changes (checkpoints) ---------------------------------------------------

export interface ChangesListParams {
    /** An entry id: only newer entries are listed. */
    since?: string;
    limit?: number;
}

/** One file of a journal entry. */
export interface ChangeFile {
    /** Absolute path. */
    path: string;
    /** Relative to the workspace folder, with slashes ("build/sub/x.o"): what a person reads. */
    relPath?: string;
    uri: string;
    /** Base name. */
    name: string;
    /** Where the change went: the editor's buffer or the disk. */
    where: 'editor' | 'disk';
    added: number;
    removed: number;
    created: boolean;
    deleted: boolean;
}

/** One journal entry: what one tool call changed. */
export interface ChangeEntry {
    id: string;
    /** RFC 3339 with the server's offset: show it in the user's local time. */
    time: string;
    tool: string;
    callId: string;
    /** The model's line, e.g. "edit a.go (+2 -1)". */
    summary: string;
    /** The person's line, no ids or tool names: "Edited src/main.go (+2 −1)", "`make clean` deleted build/sub/x.o". */
    title?: string;
    /** A shell task's command line. */
    command?: string;
    /** The entries this one reverted, when it is a revert. */
    revertOf?: string[];
    /** The entry that reverted this one, when one did. */
    revertedBy?: string;
    files: ChangeFile[];
}

export interface ChangesListResult {
    /** Newest first. */
    entries: ChangeEntry[];
    /** How many older entries the journal's size bound dropped. */
    dropped: number;
}

export interface ChangesDiffParams {
    id: string;
}

/** One file of `whale/changes/diff`: its texts before and after (absent for binary files). */
export interface ChangeDiffFile {
    path: string;
    uri: string;
    before?: string;
    after?: string;
    beforeExists: boolean;
    afterExists: boolean;
    binary: boolean;
}

export interface ChangesDiffResult {
    id: string;
    /** Unified diff of every file. */
    diff: string;
    files: ChangeDiffFile[];
}

/** `{id}`: revert that entry; `{to}`: that entry and every later one, newest first, all or nothing. */
export type ChangesRevertParams = { id: string } | { to: string };

export interface ChangeConflict {
    path: string;
    reason: string;
    hunks: string[];
}

export interface ChangesRevertResult {
    ok: boolean;
    /** "" on success; e.g. `write_conflict`, `not_found`. */
    code: string;
    /** The model's text. */
    text: string;
    /** The person's: what was reverted, or what stopped it and the action that resolves it. */
    message?: string;
    /** Paths of the files that were reverted. */
    reverted: string[];
    /** The id of the entry that journaled the revert. */
    entry?: string;
    conflicts?: ChangeConflict[];
}

export interface ChangesChangedParams {
    /** The newest entry's id. */
    latest: string;
}

/** client → server: the journal's entries, newest first. */
export const changesList = new RequestType<ChangesListParams, ChangesListResult, void>('whale/changes/list');
/** client → server: one entry's diff and its files' texts before and after. */
export const changesDiff = new RequestType<ChangesDiffParams, ChangesDiffResult, void>('whale/changes/diff');
/** client → server: revert one entry, or every entry from one on. */
export const changesRevert = new RequestType<ChangesRevertParams, ChangesRevertResult, void>('whale/changes/revert');
/** server → client: this server journaled a change (other processes' changes appear on refresh). */
export const changesChanged = new NotificationType<ChangesChangedParams>('whale/changes/changed');

/** Capabilities the client declares under `capabilities.experimental.whale`. */
export interface WhaleClientCapabilities {
    terminals: boolean;
    prompts: boolean;
    saveDocuments: boolean;
    /** The client answers `whale/diagnostics` and `whale/languageFeature`. */
    languageFeatures: boolean;
}

/**
 * What this extension declares; package.json's tools are the catalog of a
 * session with exactly these (scripts/catalog.ts).
 */
export const extensionCapabilities: WhaleClientCapabilities = { terminals: true, prompts: true, saveDocuments: true, languageFeatures: true };

// Language features ----------------------------------------------------------

export interface LspPosition {
    line: number;
    character: number;
}

export interface LspRange {
    start: LspPosition;
    end: LspPosition;
}

export interface DiagnosticsParams {
    /** Empty: every document the editor has diagnostics for. */
    uris: string[];
}

/** One problem; severity 1 = Error … 4 = Hint, range in UTF-16. */
export interface DiagnosticItem {
    uri: string;
    range: LspRange;
    severity: number;
    message: string;
    source?: string;
    code?: number | string;
}

export interface DiagnosticsResult {
    items: DiagnosticItem[];
    /**
     * Per document URI, how many times the editor received that document's
     * diagnostics (absent: not yet); a count that moved since an edit tells
     * the server a language server answered, even with nothing new.
     */
    published?: Record<string, number>;
}

/**
 * server → client (only to a client that declares `languageFeatures`): the
 * editor's diagnostics of some documents.
 */
export const diagnostics = new RequestType<DiagnosticsParams, DiagnosticsResult, void>('whale/diagnostics');

export type LanguageFeatureKind = 'definition' | 'references' | 'hover' | 'documentSymbols' | 'workspaceSymbols' | 'rename';

export interface LanguageFeatureParams {
    kind: LanguageFeatureKind;
    uri?: string;
    position?: LspPosition;
    query?: string;
    newName?: string;
}

/**
 * server → client (only with `languageFeatures`): one language feature from the editor's language
 * servers ({kind, uri?, position?, query?, newName?} → the standard LSP result of that kind:
 * Location[] or LocationLink[], Hover, DocumentSymbol[] or SymbolInformation[], WorkspaceEdit, or null).
 */
export const languageFeature = new RequestType<LanguageFeatureParams, unknown, void>('whale/languageFeature');
