// Test-only scripted chat model for the chat end-to-end test: VS Code's agent
// mode (with the bundled Copilot Chat) sends it each request of a chat turn;
// it answers with the scenario's next whale tool call, or with its final
// answer once every call has a result, and logs each request (the tools
// offered, the tool results returned, its reply and the checks it made in
// the editor) as one JSON line to the file named by WHALE_CHAT_LOG.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { agentEditBefore, agentEditFile, scenarioOf, undoBefore, undoFile, type ScenarioName } from '../scenarios';

interface Check {
    name: string;
    ok: boolean;
    detail: string;
}

interface Call {
    name: string;
    input: Record<string, unknown>;
}

/** What a scenario sees: the workspace and the results of its calls so far. */
interface Turn {
    root: string;
    results: string[];
    checks: Check[];
}

interface Scenario {
    /** Runs before the first call (in the editor: open a file, type in it). */
    before?: (t: Turn) => Promise<void>;
    calls: Array<(t: Turn) => Call>;
    /** Runs after the last result, before the final answer. */
    after?: (t: Turn) => Promise<void>;
}

const appText = 'const greeting = "hello";\n\nexport function greet(name: string): string {\n    return `${greeting}, ${name}`;\n}\n';
let editBefore: { doc: vscode.TextDocument; version: number } | undefined;

function check(t: Turn, name: string, ok: boolean, detail: string): void {
    t.checks.push({ name, ok, detail: detail.slice(0, 400) });
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (!cond()) {
        if (Date.now() > until) {
            return false;
        }
        await new Promise((r) => setTimeout(r, 100));
    }
    return true;
}

function shell(command: string): (t: Turn) => Call {
    return () => ({ name: 'whale_shell_run', input: { command } });
}

function fileCheck(file: string, want: boolean): (t: Turn) => Promise<void> {
    return async (t) => {
        const exists = fs.existsSync(path.join(t.root, file));
        check(t, `${file} ${want ? 'was made' : 'was not made'}`, exists === want, `exists=${exists}`);
    };
}

const scenarios: Record<ScenarioName, Scenario> = {
    read: { calls: [(t) => ({ name: 'whale_read_file', input: { file_path: path.join(t.root, 'hello.txt') } })] },
    edit: {
        async before(t) {
            const file = path.join(t.root, 'src', 'app.ts');
            fs.writeFileSync(file, appText);
            const doc = await vscode.workspace.openTextDocument(file);
            // Beside the chat, which stays in view.
            const ed = await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
            await ed.edit((b) => b.insert(new vscode.Position(doc.lineCount - 1, 0), '// typed, not saved\n'));
            editBefore = { doc, version: doc.version };
            check(t, 'src/app.ts is open with an unsaved change before the call', doc.isDirty, `dirty=${doc.isDirty}, version ${doc.version}`);
        },
        calls: [
            (t) => ({
                name: 'whale_edit',
                input: { file_path: path.join(t.root, 'src', 'app.ts'), search: 'const greeting = "hello";', replace: 'const greeting = "hi from the chat";' },
            }),
        ],
        async after(t) {
            const b = editBefore;
            if (!b) {
                check(t, 'the buffer of src/app.ts changed', false, 'the scenario did not open it');
                return;
            }
            const changed = await waitFor(() => b.doc.getText().includes('"hi from the chat"'), 5000);
            const text = b.doc.getText();
            check(
                t,
                'the open buffer changed at a newer version and kept the unsaved line',
                changed && text.includes('// typed, not saved') && b.doc.version > b.version,
                `version ${b.version} -> ${b.doc.version}; text ${JSON.stringify(text.slice(0, 120))}`,
            );
        },
    },
    shell: {
        calls: [shell('echo whale-chat-shell-ok && ls hello.txt')],
        async after(t) {
            const term = vscode.window.terminals.find((x) => x.name.startsWith('whale: ') && x.name.includes('whale-chat-shell-ok'));
            check(t, 'a "whale:" terminal opened for the command', term !== undefined, vscode.window.terminals.map((x) => x.name).join(' | '));
        },
    },
    'write-command': { calls: [shell('mkdir -p chat-made && echo made-dir')], after: fileCheck('chat-made', true) },
    'ask-allow': { calls: [shell('touch chat-allow.txt && echo touched-allow')], after: fileCheck('chat-allow.txt', true) },
    'ask-deny': { calls: [shell('touch chat-deny.txt && echo touched-deny')], after: fileCheck('chat-deny.txt', false) },
    'user-input': {
        calls: [() => ({ name: 'whale_request_user_input', input: { question: 'chat-choice: which color?', options: ['red', 'blue'], timeout_ms: 90_000 } })],
    },
    'whale-agent-edit': {
        async before(t) {
            const file = path.join(t.root, agentEditFile);
            fs.writeFileSync(file, agentEditBefore);
            const doc = await vscode.workspace.openTextDocument(file);
            await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
        },
        calls: [
            (t) => ({
                name: 'whale_edit',
                input: {
                    file_path: path.join(t.root, agentEditFile),
                    search: 'const greeting = "hello";',
                    replace: 'const greeting = "hi from the Whale agent";',
                },
            }),
        ],
        async after(t) {
            const uri = vscode.Uri.file(path.join(t.root, agentEditFile));
            let titles: string[] = [];
            await waitFor(() => {
                void vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri).then((lenses) => {
                    titles = (lenses ?? []).map((l) => l.command?.title ?? '');
                });
                return titles.some((x) => x.includes('Keep')) && titles.some((x) => x.includes('Undo'));
            }, 5000);
            check(
                t,
                'the editor of src/agent.ts offers Keep and Undo on the changed hunk',
                titles.some((x) => x.includes('Keep')) && titles.some((x) => x.includes('Undo')),
                titles.join(' | '),
            );
        },
    },
    'whale-undo-hunk': {
        async before(t) {
            const file = path.join(t.root, undoFile);
            fs.writeFileSync(file, undoBefore);
            const doc = await vscode.workspace.openTextDocument(file);
            await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
        },
        calls: [
            (t) => ({
                name: 'whale_edit',
                input: { file_path: path.join(t.root, undoFile), search: 'export const state = "before";', replace: 'export const state = "undone soon";' },
            }),
        ],
    },
    'copilot-edit': {
        async before(t) {
            fs.writeFileSync(path.join(t.root, 'src', 'copilot.ts'), 'const who = "copilot";\n');
        },
        calls: [
            (t) => ({
                name: 'replace_string_in_file',
                input: {
                    filePath: path.join(t.root, 'src', 'copilot.ts'),
                    oldString: 'const who = "copilot";',
                    newString: 'const who = "copilot edited";',
                    explanation: 'for comparison',
                },
            }),
        ],
    },
    plan: {
        calls: [
            () => ({
                name: 'whale_update_plan',
                input: {
                    explanation: 'chat plan',
                    plan: [
                        { step: 'Read hello.txt from the chat', status: 'completed' },
                        { step: 'Show the chat plan', status: 'in_progress' },
                    ],
                },
            }),
        ],
    },
};

/** One line of the log: one request the model received and what it did. */
export interface LogEntry {
    at: string;
    scenario: string;
    tools: string[];
    /** The tool results in the request, oldest first. */
    results: Array<{ callId: string; text: string }>;
    reply: { kind: 'tool'; callId: string; name: string; input: unknown } | { kind: 'text'; text: string };
    checks: Check[];
}

function partText(part: unknown): string {
    if (part instanceof vscode.LanguageModelTextPart) {
        return part.value;
    }
    const v = (part as { value?: unknown })?.value;
    return typeof v === 'string' ? v : JSON.stringify(part);
}

function readMessages(messages: readonly unknown[]): { scenario: ScenarioName | undefined; results: Array<{ callId: string; text: string }> } {
    let scenario: ScenarioName | undefined;
    const results: Array<{ callId: string; text: string }> = [];
    for (const m of messages) {
        for (const part of (m as { content?: readonly unknown[] }).content ?? []) {
            if (part instanceof vscode.LanguageModelToolResultPart) {
                results.push({ callId: part.callId, text: part.content.map(partText).join('') });
            } else if (part instanceof vscode.LanguageModelTextPart) {
                scenario = scenarioOf(part.value) ?? scenario;
            }
        }
    }
    return { scenario, results };
}

// registerLanguageModelChatProvider is newer than @types/vscode 1.95; declared as far as used.
interface ModelInfo {
    id: string;
    name: string;
    family: string;
    version: string;
    maxInputTokens: number;
    maxOutputTokens: number;
    capabilities: { toolCalling?: boolean | number };
    isUserSelectable?: boolean;
}
interface Provider {
    provideLanguageModelChatInformation(options: { silent: boolean }, token: vscode.CancellationToken): ModelInfo[];
    provideLanguageModelChatResponse(
        model: ModelInfo,
        messages: readonly unknown[],
        options: { tools?: readonly { name: string }[] },
        progress: vscode.Progress<unknown>,
        token: vscode.CancellationToken,
    ): Promise<void>;
    provideTokenCount(model: ModelInfo, text: unknown, token: vscode.CancellationToken): Promise<number>;
}

async function respond(messages: readonly unknown[], tools: string[], progress: vscode.Progress<unknown>): Promise<LogEntry> {
    const { scenario: name, results } = readMessages(messages);
    const entry: LogEntry = { at: new Date().toISOString(), scenario: name ?? '', tools, results, reply: { kind: 'text', text: '' }, checks: [] };
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!name || !root) {
        const text = 'whale-chat: no scenario in this request';
        entry.reply = { kind: 'text', text };
        progress.report(new vscode.LanguageModelTextPart(text));
        return entry;
    }
    const sc = scenarios[name];
    const own = results.filter((r) => r.callId.startsWith(`whale_chat_${name}_`));
    const turn: Turn = { root, results: own.map((r) => r.text), checks: entry.checks };
    if (own.length === 0) {
        await sc.before?.(turn);
    }
    if (own.length < sc.calls.length) {
        const call = sc.calls[own.length](turn);
        const callId = `whale_chat_${name}_${own.length + 1}`;
        entry.reply = { kind: 'tool', callId, ...call };
        progress.report(new vscode.LanguageModelToolCallPart(callId, call.name, call.input));
        return entry;
    }
    await sc.after?.(turn);
    const last = (turn.results[turn.results.length - 1] ?? '').replace(/\s+/g, ' ').trim();
    // The whole result, up to a bound: notes (the sandbox's, the first time) may come before the output.
    const text = `whale-chat ${name} done. The tool said: ${last.slice(0, 1200)}`;
    entry.reply = { kind: 'text', text };
    progress.report(new vscode.LanguageModelTextPart(text));
    return entry;
}

export function activate(): void {
    const log = process.env.WHALE_CHAT_LOG;
    const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?: (vendor: string, provider: Provider) => vscode.Disposable };
    if (!log || typeof lm.registerLanguageModelChatProvider !== 'function') {
        return;
    }
    lm.registerLanguageModelChatProvider('whale-chat-e2e', {
        provideLanguageModelChatInformation: () => [
            {
                id: 'whale-chat-e2e-model',
                name: 'Whale Chat E2E',
                family: 'whale-chat-e2e',
                version: '1',
                maxInputTokens: 200_000,
                maxOutputTokens: 4_000,
                capabilities: { toolCalling: 128 },
                isUserSelectable: true,
            },
        ],
        async provideLanguageModelChatResponse(_model, messages, options, progress) {
            let entry: LogEntry;
            try {
                entry = await respond(
                    messages,
                    (options.tools ?? []).map((t) => t.name),
                    progress,
                );
            } catch (err) {
                const text = `whale-chat model failed: ${String(err)}`;
                entry = { at: new Date().toISOString(), scenario: '', tools: [], results: [], reply: { kind: 'text', text }, checks: [] };
                progress.report(new vscode.LanguageModelTextPart(text));
            }
            fs.appendFileSync(log, JSON.stringify(entry) + '\n');
        },
        provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : JSON.stringify(text)).length / 4),
    });
}
