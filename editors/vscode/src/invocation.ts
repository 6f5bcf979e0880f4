// Pure: the short messages VS Code chat shows while a whale tool runs
// ("Editing src/a.ts", "Running `go test ./...`"), and which layer asks the
// user before a tool runs (VS Code's confirmation or whale's exec boundary).

type Input = Record<string, unknown>;

function str(v: unknown): string | undefined {
    return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Shortens a command or pattern for one line and quotes it as code. */
export function code(text: string, max = 80): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    const cut = flat.length > max ? flat.slice(0, max - 3) + '...' : flat;
    return '`' + cut.replace(/`/g, "'") + '`';
}

/** `code(v)` for a non-empty string, else undefined. */
function quoted(v: unknown, max?: number): string | undefined {
    const s = str(v);
    return s === undefined ? undefined : code(s, max);
}

/** A todo id as the model sent it (a number or a string). */
function todoId(v: unknown): string {
    return typeof v === 'number' || typeof v === 'string' ? String(v) : '';
}

/** Files a patch touches, from its headers (*** Update File: a.go, +++ b/a.go). */
export function patchFiles(patch: string): string[] {
    const files = new Set<string>();
    for (const line of patch.split('\n')) {
        const m = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/.exec(line) ?? /^\+\+\+ (?:b\/)?(.+?)(\t.*)?$/.exec(line);
        if (m && m[1] !== '/dev/null') {
            files.add(m[1].trim());
        }
    }
    return [...files];
}

/**
 * The invocation message of a tool call. `rel` turns an absolute path into
 * the one the user knows (relative to the workspace).
 */
export function invocationMessage(tool: string, input: Input, rel: (p: string) => string = (p) => p): string {
    const path = str(input.file_path) ?? str(input.path);
    const where = path ? rel(path) : undefined;
    switch (tool) {
        case 'read_file':
            return where ? `Reading ${where}` : 'Reading a file';
        case 'list_dir':
            return `Listing ${where ?? 'the workspace'}`;
        case 'grep':
            return quoted(input.pattern) ? `Searching for ${quoted(input.pattern) ?? ''}${where ? ` in ${where}` : ''}` : 'Searching';
        case 'search_files':
            return quoted(input.pattern) ? `Finding files matching ${quoted(input.pattern) ?? ''}` : 'Finding files';
        case 'edit':
        case 'multi_edit':
            return where ? `Editing ${where}` : 'Editing a file';
        case 'write':
            return where ? `Writing ${where}` : 'Writing a file';
        case 'apply_patch': {
            const files = typeof input.patch === 'string' ? patchFiles(input.patch).map(rel) : [];
            return files.length ? `Patching ${files.join(', ')}` : 'Applying a patch';
        }
        case 'shell_run':
            return quoted(input.command) ? `Running ${quoted(input.command) ?? ''}` : 'Running a command';
        case 'shell_wait':
            return `Waiting for task ${str(input.task_id) ?? ''}`.trim();
        case 'write_stdin':
            return `Sending input to task ${str(input.task_id) ?? ''}`.trim();
        case 'shell_cancel':
            return `Stopping task ${str(input.task_id) ?? ''}`.trim();
        case 'web_search':
            return quoted(input.query) ? `Searching the web for ${quoted(input.query) ?? ''}` : 'Searching the web';
        case 'web_fetch':
        case 'fetch': {
            const method = str(input.method);
            const url = str(input.url);
            return url ? `Fetching ${method && method.toUpperCase() !== 'GET' ? method.toUpperCase() + ' ' : ''}${url}` : 'Fetching a URL';
        }
        case 'request_user_input':
            return str(input.question) ? `Asking: ${str(input.question)}` : 'Asking you a question';
        case 'update_plan':
            return 'Updating the plan';
        case 'todo_add':
            return str(input.content) ? `Adding a todo: ${str(input.content)}` : 'Adding a todo';
        case 'todo_list':
            return 'Listing the todos';
        case 'todo_update':
            return `Updating todo #${todoId(input.id)}`;
        case 'todo_remove':
            return `Removing todo #${todoId(input.id)}`;
        case 'tool_search':
            return quoted(input.query) ? `Looking for tools: ${quoted(input.query) ?? ''}` : 'Looking for tools';
        case 'changes_list':
            return str(input.id) ? `Showing change ${str(input.id)}` : "Listing whale's changes";
        case 'changes_revert':
            return str(input.to)
                ? `Reverting change ${str(input.to)} and every later one`
                : str(input.id)
                  ? `Reverting change ${str(input.id)}`
                  : 'Reverting a change';
        case 'load_skill':
            return str(input.name) ? `Loading skill ${str(input.name)}` : 'Loading a skill';
        case 'problems':
            return where ? `Reading the problems of ${where}` : 'Reading the problems of the workspace';
        case 'symbols':
            return quoted(input.query) ? `Finding symbols matching ${quoted(input.query) ?? ''}` : 'Finding symbols';
        case 'document_symbols':
            return where ? `Outlining ${where}` : 'Outlining a file';
        case 'definition':
        case 'references':
        case 'hover': {
            const what = { definition: 'the definition of', references: 'the references to', hover: 'the hover of' }[tool];
            const sym = str(input.symbol);
            return sym
                ? `Finding ${what} ${code(sym, 60)}${where ? ` in ${where}${typeof input.line === 'number' ? `:${input.line}` : ''}` : ''}`
                : `Finding ${what} a symbol`;
        }
        case 'rename':
            return quoted(input.symbol, 60) && quoted(input.new_name, 60)
                ? `Renaming ${quoted(input.symbol, 60) ?? ''} to ${quoted(input.new_name, 60) ?? ''}${where ? ` (from ${where})` : ''}`
                : 'Renaming a symbol';
        default:
            return `Running whale ${tool}`;
    }
}

/** What whale/shell/judge said about a shell_run command (src/requests.ts ShellJudgeResult). */
export interface ShellJudgement {
    readOnly: boolean;
    boundary: 'allow' | 'ask' | 'deny' | 'unchecked';
}

/** The tools whose changes whale shows for review when `whale.edits.review` is `ask`. */
export const reviewedTools: ReadonlySet<string> = new Set(['edit', 'multi_edit', 'write', 'apply_patch', 'changes_revert']);

/** What whale will ask about itself, so that VS Code does not ask too. */
export interface WhaleAsks {
    /** whale/shell/judge's answer for a shell_run command; undefined when the server could not tell. */
    shell?: ShellJudgement;
    /** `whale.edits.review` is `ask`: every change is shown as a diff to accept or reject. */
    review?: boolean;
}

/**
 * Confirmation text for VS Code to show before a tool runs; undefined when
 * VS Code should not ask. One question per action: read-only tools run
 * without one; a shell command is left to whale's exec boundary when it only
 * reads or when the boundary will ask about it or refuse it anyway; a change
 * whale will show for review is asked about there. Without a judgement (an
 * older server, no answer) VS Code asks.
 */
export function confirmation(
    tool: string,
    input: Input,
    readOnly: boolean,
    rel: (p: string) => string = (p) => p,
    whale: WhaleAsks = {},
): { title: string; message: string } | undefined {
    if (readOnly || neverAsk.has(tool)) {
        return undefined;
    }
    if (tool === 'shell_run' && str(input.command)) {
        const j = whale.shell;
        if (j && (j.readOnly || j.boundary === 'ask' || j.boundary === 'deny')) {
            return undefined;
        }
        const cwd = str(input.cwd);
        return { title: 'Run a command in a whale terminal?', message: `${quoted(input.command, 400) ?? ''}${cwd ? ` in ${rel(cwd)}` : ''}` };
    }
    if (whale.review && reviewedTools.has(tool)) {
        return undefined;
    }
    // Plain words: a title is markdown, where `todo_add` would lose its underscore to italics.
    return { title: `Allow whale ${tool.replace(/_/g, ' ')}?`, message: invocationMessage(tool, input, rel) };
}

/** Tools that never ask: their effect is whale's own bookkeeping or a question to the user. */
export const neverAsk: ReadonlySet<string> = new Set(['update_plan', 'todo_add', 'todo_list', 'todo_update', 'todo_remove', 'request_user_input']);

/** What `whale/preview` said (src/requests.ts PreviewResult), as far as the confirmation uses it. */
export interface Preview {
    readOnly: boolean;
    whaleAsks: boolean;
    title: string;
    detail: string;
    error?: string;
}

/**
 * VS Code's confirmation from whale's preview: none when the call only
 * reads, when whale itself will ask (review, the exec boundary), or when the
 * plan already fails (the call changes nothing and the model reads why);
 * otherwise the preview's title and its markdown (the diff in a ```diff
 * fence, or the command, program, folder and why).
 */
export function previewConfirmation(p: Preview): { title: string; message: string } | undefined {
    if (p.readOnly || p.whaleAsks || p.error) {
        return undefined;
    }
    return { title: p.title, message: p.detail };
}
