// Test-only companion extension: runs the end-to-end scenario inside VS Code
// (code-server) against the installed Whale extension and writes each step's
// result to the JSON file named by WHALE_E2E_RESULTS. The browser-side driver
// clicks the dialogs and checks what the user sees.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { exactlyOnceProblems, type WhaleToolSource } from '../chatTools';

interface Step {
    name: string;
    ok: boolean;
    detail: string;
    ms: number;
}

interface Report {
    started: string;
    steps: Step[];
    phase: string;
    done: boolean;
}

/** The API of the Whale extension's e2e build (test/e2e/whale/main.ts). */
interface WhaleApi {
    ready(): Promise<void>;
    execute(tool: string, input: unknown): Promise<{ ok: boolean; code: string; text: string }>;
    /** Only in the e2e build; the shipped extension exports no test seam. */
    beforeApplyEdit?: (params: unknown) => Promise<void>;
    /** Only in the e2e build: the running server's catalog (whale/tools). */
    tools(): Promise<Array<{ name: string }>>;
}

const report: Report = { started: new Date().toISOString(), steps: [], phase: 'starting', done: false };
const resultsFile = process.env.WHALE_E2E_RESULTS;

function save(): void {
    if (resultsFile) {
        fs.writeFileSync(resultsFile + '.tmp', JSON.stringify(report, null, 2));
        fs.renameSync(resultsFile + '.tmp', resultsFile);
    }
}

function withTimeout<T>(p: Thenable<T>, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${what}: no result after ${ms} ms`)), ms);
        Promise.resolve(p).then(
            (v) => {
                clearTimeout(t);
                resolve(v);
            },
            (e: unknown) => {
                clearTimeout(t);
                reject(e instanceof Error ? e : new Error(String(e)));
            },
        );
    });
}

async function step(name: string, fn: () => Promise<string>, ms = 90_000): Promise<boolean> {
    report.phase = name;
    save();
    const start = Date.now();
    let ok = false;
    let detail: string;
    try {
        detail = await withTimeout(fn(), ms, name);
        ok = true;
    } catch (err) {
        detail = err instanceof Error ? err.message : String(err);
    }
    report.steps.push({ name, ok, detail: detail.slice(0, 2000), ms: Date.now() - start });
    save();
    return ok;
}

/** The whale-ls processes started by this extension host (Linux /proc). */
function serverPids(): number[] {
    const pids: number[] = [];
    for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) {
            continue;
        }
        try {
            const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
            const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
            if (m && m[1] === 'whale-ls' && Number(m[2]) === process.pid) {
                pids.push(Number(name));
            }
        } catch {
            // gone
        }
    }
    return pids;
}

function check(cond: unknown, msg: string): void {
    if (!cond) {
        throw new Error(msg);
    }
}

function text(result: vscode.LanguageModelToolResult): string {
    return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
}

async function invoke(name: string, input: object): Promise<string> {
    const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    return text(r);
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
    const until = Date.now() + ms;
    while (!cond()) {
        if (Date.now() > until) {
            throw new Error(`timed out waiting for ${what}`);
        }
        await new Promise((r) => setTimeout(r, 100));
    }
}

async function run(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    let api: WhaleApi | undefined;
    const ok = await step('extension activates and whale-ls starts', async () => {
        check(folder, 'no workspace folder');
        const ext = vscode.extensions.getExtension<WhaleApi>('whale.whale-ls');
        check(ext, 'the Whale extension is not installed');
        api = await ext!.activate();
        await api.ready();
        const names = vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('whale_'));
        check(
            names.includes('whale_read_file') && names.includes('whale_edit') && names.includes('whale_shell_run'),
            `whale tools missing from vscode.lm.tools: ${names.join(', ')}`,
        );
        return `${names.length} whale tools registered`;
    });
    if (!ok || !folder || !api) {
        return;
    }
    const root = folder.uri.fsPath;
    const appPath = path.join(root, 'src', 'app.ts');

    await step('whale_read_file through vscode.lm.invokeTool', async () => {
        const out = await invoke('whale_read_file', { file_path: path.join(root, 'hello.txt') });
        check(out.includes('hello from the workspace'), `unexpected result: ${out}`);
        return out.split('\n')[0];
    });

    let editor: vscode.TextEditor | undefined;
    await step('whale_edit changes a modified editor buffer, then the file', async () => {
        const doc = await vscode.workspace.openTextDocument(appPath);
        editor = await vscode.window.showTextDocument(doc);
        await editor.edit((b) => b.insert(new vscode.Position(doc.lineCount, 0), '// unsaved line\n'));
        check(doc.isDirty, 'the buffer should be modified before the edit');
        const out = await invoke('whale_edit', { file_path: appPath, search: 'const greeting = "hello";', replace: 'const greeting = "hi from whale";' });
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        await waitFor(() => doc.getText().includes('hi from whale'), 5000, 'the buffer to change');
        check(doc.getText().includes('// unsaved line'), 'the unsaved line was lost');
        let how = 'saved by whale (whale/saveDocuments)';
        try {
            await waitFor(() => !doc.isDirty, 5000, 'whale to save the document');
        } catch {
            how = 'saved by the test';
            await doc.save();
        }
        const disk = fs.readFileSync(appPath, 'utf8');
        check(disk.includes('hi from whale') && disk.includes('// unsaved line'), `file on disk not updated: ${disk}`);
        return `buffer and file changed; ${how}`;
    });

    await step('an edit the user typed ahead of lands on the new version', async () => {
        check(editor, 'no editor from the previous step');
        const doc = editor!.document;
        const ed = await vscode.window.showTextDocument(doc);
        api!.beforeApplyEdit = async () => {
            api!.beforeApplyEdit = undefined;
            // The user types elsewhere while the server's edit is on its way:
            // VS Code refuses the stale version, whale plans again on the new text.
            await ed.edit((b) => b.insert(new vscode.Position(0, 0), '// typed meanwhile\n'));
        };
        const out = await invoke('whale_edit', {
            file_path: appPath,
            search: 'const greeting = "hi from whale";',
            replace: 'const greeting = "after typing";',
        });
        api!.beforeApplyEdit = undefined;
        check(out.startsWith('Edited'), `expected the edit on top of the typing, got: ${out}`);
        await waitFor(() => doc.getText().includes('"after typing"'), 5000, 'the buffer to change');
        check(doc.getText().startsWith('// typed meanwhile'), "the user's typing was lost");
        await doc.save();
        return out.split('\n')[0];
    });

    await step('an edit whose target the user changed meanwhile is refused', async () => {
        const doc = editor!.document;
        const ed = await vscode.window.showTextDocument(doc);
        api!.beforeApplyEdit = async () => {
            api!.beforeApplyEdit = undefined;
            const at = doc.getText().indexOf('after typing');
            await ed.edit((b) => b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'after typing'.length)), "the user's word"));
        };
        const out = await invoke('whale_edit', { file_path: appPath, search: 'const greeting = "after typing";', replace: 'const greeting = "stale";' });
        api!.beforeApplyEdit = undefined;
        check(/^(search_not_found|write_conflict)/.test(out), `expected a refusal, got: ${out}`);
        check(!doc.getText().includes('"stale"'), 'the stale edit was applied');
        check(doc.getText().includes("the user's word"), "the user's change was lost");
        await doc.save();
        return out.split('\n')[0];
    });

    await step('whale_shell_run opens a "whale:" terminal with the output', async () => {
        const out = await invoke('whale_shell_run', { command: 'echo whale-e2e-$((40+2)); exit 3' });
        check(out.includes('whale-e2e-42'), `output missing from the result: ${out}`);
        await waitFor(() => vscode.window.terminals.some((t) => t.name.startsWith('whale: ')), 10_000, 'a whale terminal');
        const t = vscode.window.terminals.find((t) => t.name.startsWith('whale: '))!;
        t.show(true);
        return `terminal "${t.name}"; result: ${out.split('\n')[0]}`;
    });

    await step('typing into a whale PTY terminal reaches the task', async () => {
        const started = await invoke('whale_shell_run', { command: 'printf "e2e-name? "; read n; echo "hello-$n"', mode: 'pty', yield_time_ms: 1500 });
        const id = /\bt\d+\b/.exec(started)?.[0];
        check(id && !started.includes('hello-'), `expected a running task waiting for input: ${started}`);
        const t = vscode.window.terminals.find((t) => t.name.includes('e2e-name'));
        check(t, 'no terminal for the task');
        t!.show(false);
        // The driver types "whale" and Enter into the terminal now.
        report.phase = 'type-into-terminal';
        save();
        const done = await invoke('whale_shell_wait', { task_id: id, timeout_ms: 45_000 });
        check(done.includes('hello-whale'), `the typed input did not reach the task: ${done}`);
        return `task ${id}: ${done.replace(/\s+/g, ' ').slice(0, 200)}`;
    });

    for (const answer of ['allow', 'deny'] as const) {
        await step(`exec boundary approval: ${answer === 'allow' ? 'Allow once lets the command run' : 'Deny blocks it'}`, async () => {
            const file = path.join(root, `e2e-${answer}.txt`);
            // The user settings make `touch` an "ask" program; the driver answers the modal.
            const out = await invoke('whale_shell_run', { command: `touch e2e-${answer}.txt; echo status=$?` });
            const exists = fs.existsSync(file);
            if (answer === 'allow') {
                check(exists && out.includes('status=0'), `the allowed command did not run: exists=${exists} ${out}`);
            } else {
                check(!exists && !out.includes('status=0'), `the denied command ran: exists=${exists} ${out}`);
            }
            return out.replace(/\s+/g, ' ').slice(0, 300);
        });
    }

    await step('request_user_input shows a QuickPick and returns the pick', async () => {
        const out = await invoke('whale_request_user_input', { question: 'e2e-choice: which color?', options: ['red', 'blue'], timeout_ms: 60_000 });
        check(out.includes('blue') && !out.startsWith('canceled'), `unexpected answer: ${out}`);
        return out.split('\n')[0];
    });

    await step('request_user_input without options shows an InputBox and returns the text', async () => {
        const out = await invoke('whale_request_user_input', { question: 'e2e-text: what is the answer?', timeout_ms: 60_000 });
        check(out.includes('forty two'), `unexpected answer: ${out}`);
        return out.split('\n')[0];
    });

    // The Changes section of the Whale view: the driver clicks the file of
    // the newest entry, then "Revert this change" in the entry's context menu.
    const changesPath = path.join(root, 'changes.txt');
    const changesBefore = fs.readFileSync(changesPath, 'utf8');
    const edited = await step('whale_edit of a file not open in the editor (for the Changes view)', async () => {
        const out = await invoke('whale_edit', { file_path: changesPath, search: 'second line', replace: 'second line, changed by whale' });
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        const disk = fs.readFileSync(changesPath, 'utf8');
        check(disk.includes('changed by whale'), `file on disk not updated: ${disk}`);
        return out.split('\n')[0];
    });
    if (edited) {
        await step('Changes: clicking the edited file opens a diff editor of whale-change: documents (before \u2194 after)', async () => {
            report.phase = 'changes-open-diff';
            save();
            let diff: vscode.TabInputTextDiff | undefined;
            await waitFor(
                () => {
                    diff = vscode.window.tabGroups.all
                        .flatMap((g) => g.tabs)
                        .map((t) => t.input)
                        .find(
                            (i): i is vscode.TabInputTextDiff =>
                                i instanceof vscode.TabInputTextDiff && i.modified.scheme === 'whale-change' && i.modified.path.endsWith('/changes.txt'),
                        );
                    return diff !== undefined;
                },
                60_000,
                'a diff editor of changes.txt with the whale-change: scheme',
            );
            check(diff!.original.scheme === 'whale-change', `the left side is ${diff!.original.toString()}`);
            const before = (await vscode.workspace.openTextDocument(diff!.original)).getText();
            const after = (await vscode.workspace.openTextDocument(diff!.modified)).getText();
            check(before === changesBefore, `the left side is not the text before: ${JSON.stringify(before)}`);
            check(after.includes('second line, changed by whale'), `the right side is not the text after: ${JSON.stringify(after)}`);
            const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input === diff);
            return `tab "${tab?.label ?? '?'}": ${diff!.original.toString()} \u2194 ${diff!.modified.toString()}`;
        });
        await step('Changes: "Revert this change" restores the file on disk', async () => {
            report.phase = 'changes-revert';
            save();
            await waitFor(() => fs.readFileSync(changesPath, 'utf8') === changesBefore, 60_000, 'changes.txt to hold its text before the edit again').catch(
                (err: unknown) => {
                    throw new Error(`${err instanceof Error ? err.message : String(err)}; it holds ${JSON.stringify(fs.readFileSync(changesPath, 'utf8'))}`);
                },
            );
            return 'changes.txt holds its text before the edit';
        });
    }
    // A file a shell task made (#28): its entry names the command and the
    // file with its folders; "Revert this change" removes it.
    const madePath = path.join(root, 'build', 'sub', 'x.o');
    const made = await step('whale_shell_run makes build/sub/x.o (for the Changes view)', async () => {
        const out = await invoke('whale_shell_run', { command: 'mkdir -p build/sub && echo x > build/sub/x.o' });
        check(fs.existsSync(madePath), `build/sub/x.o was not made: ${out}`);
        return out.split('\n').find((l) => l.includes('journal entry')) ?? out.split('\n')[0];
    });
    if (made) {
        await step('Changes: reverting the shell entry removes the file it made', async () => {
            report.phase = 'changes-shell';
            save();
            await waitFor(() => !fs.existsSync(madePath), 60_000, 'build/sub/x.o to be gone after the revert');
            return 'build/sub/x.o is gone';
        });
    }
    // Review before apply (#18). edits.review is a user setting (application
    // scope: VS Code ignores it in a workspace's settings), so the test sets
    // it for these steps only; the edits above went through unreviewed.
    const reviewPath = path.join(root, 'review.txt');
    const reviewBefore = 'r1\nr2\nr3\nr4\nr5\nr6\nr7\n';
    fs.writeFileSync(reviewPath, reviewBefore);
    await setReview('ask');
    let proposal: Promise<{ ok: boolean; code: string; text: string }> | undefined;
    const reviewOpened = await step(
        'review: with edits.review "ask", a change of two hunks opens as a diff of the current and the proposed text, nothing applied yet',
        async () => {
            const patch = '--- a/review.txt\n+++ b/review.txt\n@@ -1,3 +1,3 @@\n r1\n-r2\n+R2\n r3\n@@ -5,3 +5,3 @@\n r5\n-r6\n+R6\n r7\n';
            proposal = api!.execute('apply_patch', { patch });
            proposal.catch(() => undefined);
            let diff: vscode.TabInputTextDiff | undefined;
            await waitFor(() => (diff = reviewDiffs()[0]) !== undefined, 20_000, 'a diff editor of the review');
            const original = (await vscode.workspace.openTextDocument(diff!.original)).getText();
            const modified = (await vscode.workspace.openTextDocument(diff!.modified)).getText();
            check(original === reviewBefore, `the diff's left side is not the current text: ${JSON.stringify(original)}`);
            check(modified === 'r1\nR2\nr3\nr4\nr5\nR6\nr7\n', `the diff's right side is not the proposed text: ${JSON.stringify(modified)}`);
            check(fs.readFileSync(reviewPath, 'utf8') === reviewBefore, 'the change was applied before the review was answered');
            return `diff ${diff!.modified.scheme}:${path.basename(diff!.modified.path)} open; review.txt untouched`;
        },
    );
    // The driver leaves the review open E2E_REVIEW_WAIT_S (3 minutes) before it answers.
    const reviewWaitMs = Number(process.env.E2E_REVIEW_WAIT_S ?? '180') * 1000;
    await step(
        'review: left 3 minutes unanswered, then "Choose Hunks…" accepts one of the two hunks; the file holds exactly that and the diff closes',
        async () => {
            check(reviewOpened && proposal, 'no review is open');
            // The driver clicks Choose Hunks… in the diff's title, unchecks the second hunk and confirms.
            report.phase = 'review-choose-hunks';
            save();
            const env = await withTimeout(proposal!, 80_000 + reviewWaitMs, 'the reviewed apply_patch');
            check(env.ok && env.text.includes('applied hunk 1 of 2 in review.txt'), `apply_patch: ${env.code} ${env.text}`);
            const disk = fs.readFileSync(reviewPath, 'utf8');
            check(disk === 'r1\nR2\nr3\nr4\nr5\nr6\nr7\n', `review.txt = ${JSON.stringify(disk)}, want only the first hunk applied`);
            await waitFor(() => reviewDiffs().length === 0, 5000, 'the review diff to close');
            return env.text.split('\n')[0];
        },
        90_000 + reviewWaitMs,
    );
    await setReview('off');

    await step('update_plan and todo_add fill the Whale view', async () => {
        const plan = await invoke('whale_update_plan', {
            explanation: 'e2e plan',
            plan: [
                { step: 'Read the code', status: 'completed' },
                { step: 'Edit app.ts', status: 'in_progress' },
                { step: 'Run the tests', status: 'pending' },
            ],
        });
        check(!/^[a-z_]+: /.test(plan), `update_plan failed: ${plan}`);
        const todo = await invoke('whale_todo_add', { content: 'Write the e2e test' });
        check(!/^[a-z_]+: /.test(todo), `todo_add failed: ${todo}`);
        return 'plan and todo sent';
    });

    await step('a crashed whale-ls is restarted', async () => {
        const before = serverPids();
        check(before.length === 1, `expected one whale-ls child of the extension host, found ${JSON.stringify(before)}`);
        process.kill(before[0], 'SIGKILL');
        const until = Date.now() + 45_000;
        let last = '';
        for (;;) {
            await new Promise((r) => setTimeout(r, 500));
            const now = serverPids();
            if (now.length === 1 && now[0] !== before[0]) {
                try {
                    const env = await api!.execute('read_file', { file_path: path.join(root, 'hello.txt') });
                    if (env.ok) {
                        return `pid ${before[0]} killed; pid ${now[0]} answers`;
                    }
                    last = env.text;
                } catch (err) {
                    last = String(err);
                }
            }
            check(Date.now() < until, `whale-ls was not restarted: ${last} ${JSON.stringify(now)}`);
        }
    });

    await step('Whale: Show Terminals', async () => {
        await vscode.commands.executeCommand('whale.showTerminals');
        return 'ok';
    });

    await languageSteps(api, root);

    // Last, because it enables the bundled Copilot Chat and switches the
    // extension between its two ways of offering the tools. vscode.lm.tools
    // cannot tell: it lists contributed tools whatever their `when` clause,
    // so the check reads the tool list the chat sent to a model.
    const catalog = whaleCatalog();
    await step("chat: the chat's tool list holds each whale tool exactly once, as whale_<tool> (MCP server definition off by default)", async () =>
        exactlyOnce(await chatTurn('chat-turn-default'), catalog, 'languageModelTools'),
    );
    await setMcpServer(true);
    let mcpTools: ChatTool[] = [];
    await step('chat: with whale.mcpServer.enabled each whale tool is there exactly once, from the MCP server (whale_* hidden)', async () => {
        mcpTools = await chatTurn('chat-turn-mcp');
        return exactlyOnce(mcpTools, catalog, 'mcp');
    });
    await step("the MCP server's read_file answers from the workspace", async () => {
        const name = mcpTools.map((t) => t.name).find((n) => /^mcp_[^_]*whale[^_]*_read_file$/.test(n));
        check(name, 'no MCP read_file in the chat request');
        const out = await invoke(name!, { file_path: 'hello.txt' });
        check(out.includes('hello from the workspace'), `unexpected result: ${out}`);
        return `${name}: ${out.split('\n')[0]}`;
    });
    await setMcpServer(false);
    await step('chat: whale.mcpServer.enabled turned off again: each whale tool once, as whale_<tool>', async () =>
        exactlyOnce(await chatTurn('chat-turn-off'), catalog, 'languageModelTools'),
    );
}

/** The catalog tools that need the editor's language features (experimental.whale.languageFeatures). */
const languageTools = ['problems', 'symbols', 'document_symbols', 'definition', 'references', 'hover', 'rename'];

/**
 * The language tools against VS Code's built-in TypeScript support on the
 * project lang/ (a.ts exports greet, b.ts uses it). The rename runs while
 * b.ts is not open, then definition and references ask about its use in b.ts.
 */
async function languageSteps(api: WhaleApi, root: string): Promise<void> {
    const aPath = path.join(root, 'lang', 'a.ts');
    const bPath = path.join(root, 'lang', 'b.ts');
    const isOpen = (p: string) => vscode.workspace.textDocuments.find((d) => d.uri.fsPath === p);
    await step('language tools: listed by whale/tools and contributed as whale_<tool>', async () => {
        const names = (await api.tools()).map((t) => t.name);
        const missing = languageTools.filter((t) => !names.includes(t));
        check(missing.length === 0, `whale/tools lacks ${missing.join(', ')} (the extension declares languageFeatures): ${names.join(', ')}`);
        const contributed = vscode.lm.tools.map((t) => t.name);
        const notContributed = languageTools.filter((t) => !contributed.includes(`whale_${t}`));
        check(notContributed.length === 0, `not contributed: ${notContributed.join(', ')}`);
        return `whale/tools has ${languageTools.join(', ')} (${names.length} tools)`;
    });
    let aDoc: vscode.TextDocument | undefined;
    const ready = await step("VS Code's TypeScript support answers on lang/a.ts (built in, enabled on a fresh profile)", async () => {
        check(!isOpen(bPath), 'b.ts is open before the scenario opened it');
        aDoc = await vscode.workspace.openTextDocument(aPath);
        await vscode.window.showTextDocument(aDoc);
        const ts = vscode.extensions.getExtension('vscode.typescript-language-features');
        check(ts, 'the built-in extension vscode.typescript-language-features is not there');
        const until = Date.now() + 60_000;
        for (;;) {
            const syms = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', aDoc.uri);
            if (syms && syms.some((s) => s.name === 'greet')) {
                return `typescript-language-features ${ts!.isActive ? 'active' : 'inactive'}; outline: ${syms.map((s) => s.name).join(', ')}`;
            }
            check(Date.now() < until, `no outline of a.ts from the TypeScript support after 60 s (extension ${ts!.isActive ? 'active' : 'inactive'})`);
            await new Promise((r) => setTimeout(r, 1000));
        }
    });
    if (!ready || !aDoc) {
        return;
    }
    // A loaded machine may need more than the default 1.5 s for tsserver's diagnostics; the wait ends when they settle.
    await setProblemsWait(8000);
    const typeError = /lang\/a\.ts:5: error: Type 'string' is not assignable to type 'number'\. \(ts 2322\)/;
    await step('edit: a type error the edit introduced in the open a.ts is listed in the result', async () => {
        const out = await invoke('whale_edit', { file_path: aPath, search: 'export const count: number = 1;', replace: 'export const count: number = "one";' });
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        check(/The change introduced 1 problem:/.test(out) && typeError.test(out), `the type error is not reported: ${out}`);
        return out
            .split('\n')
            .filter((l) => /problem|error:/.test(l))
            .join(' / ');
    });
    await step('problems: the workspace and a.ts list the type error', async () => {
        const all = await invoke('whale_problems', {});
        check(typeError.test(all), `problems {}: ${all}`);
        const one = await invoke('whale_problems', { path: aPath });
        check(typeError.test(one), `problems {path: a.ts}: ${one}`);
        return one.replace(/\s+/g, ' ').slice(0, 200);
    });
    await step('edit: an edit that fixes it says there are no new problems', async () => {
        const out = await invoke('whale_edit', { file_path: aPath, search: 'export const count: number = "one";', replace: 'export const count: number = 2;' });
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        check(out.includes('No new problems in the changed files.'), `expected "No new problems in the changed files.": ${out}`);
        return out
            .split('\n')
            .filter((l) => /problem/i.test(l))
            .join(' / ');
    });
    await step('edit: a clean edit of the clean a.ts says there are no new problems', async () => {
        const t0 = Date.now();
        const out = await invoke('whale_edit', { file_path: aPath, search: 'export const count: number = 2;', replace: 'export const count: number = 3;' });
        const ms = Date.now() - t0;
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        check(/No new problems in the changed files[. ]/.test(out) && !/introduced/.test(out), `expected "No new problems in the changed files": ${out}`);
        // Settled by a counted publication, or (a language server that does not publish unchanged diagnostics again) the bound waited out.
        return `${out
            .split('\n')
            .filter((l) => /problem/i.test(l))
            .join(' / ')} (${ms} ms with the confirmation)`;
    });
    await step('edit: a plain-text file nothing diagnoses does not wait for problems', async () => {
        const notes = path.join(root, 'lang', 'notes.txt');
        fs.writeFileSync(notes, 'first\n');
        const t0 = Date.now();
        const out = await invoke('whale_edit', { file_path: notes, search: 'first', replace: 'second' });
        const ms = Date.now() - t0;
        check(out.startsWith('Edited'), `edit failed: ${out}`);
        check(!/problem/i.test(out), `a plain-text edit reports on problems: ${out}`);
        return `no problems note (${ms} ms with the confirmation)`;
    });
    await setProblemsWait(undefined);
    await step('rename greet → welcome from the open a.ts, b.ts not open: both files renamed on disk, a.ts saved, b.ts not left dirty', async () => {
        check(!isOpen(bPath), 'b.ts is open before the rename; the step needs it closed');
        const out = await invoke('whale_rename', { file_path: aPath, line: 1, symbol: 'greet', new_name: 'welcome' });
        check(out.startsWith('Renamed greet to welcome in 2 files.'), `rename: ${out}`);
        const a = fs.readFileSync(aPath, 'utf8');
        const b = fs.readFileSync(bPath, 'utf8');
        check(a.includes('export function welcome(name: string)') && !a.includes('greet'), `a.ts on disk: ${JSON.stringify(a)}`);
        check(b === "import { welcome } from './a';\n\nexport const message: string = welcome('whale');\n", `b.ts on disk: ${JSON.stringify(b)}`);
        await waitFor(() => !aDoc!.isDirty, 5000, 'a.ts to be saved').catch((err: unknown) => {
            throw new Error(`${err instanceof Error ? err.message : String(err)}; rename: ${out}`);
        });
        check(aDoc!.getText() === a, 'the a.ts buffer differs from the file');
        const bDoc = isOpen(bPath);
        await waitFor(() => !bDoc?.isDirty, 5000, 'b.ts not to be dirty').catch((err: unknown) => {
            throw new Error(
                `${err instanceof Error ? err.message : String(err)}: b.ts is open and dirty after the rename, its buffer ${JSON.stringify(bDoc?.getText())} (version ${bDoc?.version}); rename: ${out}`,
            );
        });
        check(!bDoc || bDoc.getText() === b, `the b.ts buffer differs from the file: ${JSON.stringify(bDoc?.getText())}`);
        return `${out.split('\n')[0]} b.ts ${bDoc ? 'open in the background (opened for its diagnostics), not dirty' : 'not open'}`;
    });
    await step('definition and references of welcome at its use in b.ts', async () => {
        const def = await invoke('whale_definition', { file_path: bPath, line: 3, symbol: 'welcome' });
        check(/lang\/a\.ts:1: export function welcome\(name: string\): string \{/.test(def), `definition: ${def}`);
        const refs = await invoke('whale_references', { file_path: bPath, line: 3, symbol: 'welcome' });
        check(/lang\/a\.ts:1: /.test(refs) && /lang\/b\.ts:1: /.test(refs) && /lang\/b\.ts:3: /.test(refs), `references: ${refs}`);
        return `${def.replace(/\s+/g, ' ').slice(0, 120)} | ${refs.split('\n')[0]}`;
    });
    await step('hover, document_symbols and symbols on the project', async () => {
        const hover = await invoke('whale_hover', { file_path: aPath, line: 1, symbol: 'welcome' });
        check(/^```typescript\nfunction welcome\(name: string\): string\n```/.test(hover), `hover: ${JSON.stringify(hover)}`);
        const outline = await invoke('whale_document_symbols', { file_path: aPath });
        check(/welcome/.test(outline) && /count/.test(outline), `document_symbols: ${outline}`);
        const syms = await invoke('whale_symbols', { query: 'welcome' });
        check(/welcome/.test(syms) && /a\.ts/.test(syms), `symbols: ${syms}`);
        return [hover, outline, syms].map((t) => t.replace(/\s+/g, ' ').slice(0, 80)).join(' | ');
    });
}

/** Sets the user's whale.edits.problemsWaitMs (undefined: the default) and waits until this extension host sees it. */
async function setProblemsWait(ms: number | undefined): Promise<void> {
    const cfg = () => vscode.workspace.getConfiguration('whale');
    await cfg().update('edits.problemsWaitMs', ms, vscode.ConfigurationTarget.Global);
    await waitFor(() => cfg().inspect('edits.problemsWaitMs')?.globalValue === ms, 5000, `whale.edits.problemsWaitMs = ${ms}`);
    await new Promise((r) => setTimeout(r, 300));
}

/** The catalog tools (`read_file`, …) the Whale extension contributes as `whale_<tool>`. */
function whaleCatalog(): string[] {
    const contributed: Array<{ name: string }> = vscode.extensions.getExtension('whale.whale-ls')?.packageJSON?.contributes?.languageModelTools ?? [];
    return contributed.map((t) => t.name.replace(/^whale_/, ''));
}

function exactlyOnce(tools: ChatTool[], catalog: string[], source: WhaleToolSource): string {
    check(catalog.length > 0, 'the Whale extension contributes no tools');
    const names = tools.map((t) => t.name);
    const problems = exactlyOnceProblems(names, catalog, source);
    const whale = names.filter((n) => /whale/i.test(n));
    check(problems.length === 0, `${problems.join('; ')}; whale tools offered: ${whale.join(', ')}`);
    return `${catalog.length} whale tools, each once (${whale.slice(0, 3).join(', ')}, …); ${names.length} tools in the request`;
}

/** The diff editors of whale reviews (whale-review: documents). */
function reviewDiffs(): vscode.TabInputTextDiff[] {
    return vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .map((t) => t.input)
        .filter((i): i is vscode.TabInputTextDiff => i instanceof vscode.TabInputTextDiff && i.modified.scheme === 'whale-review');
}

/** Sets the user's whale.edits.review and waits until this extension host sees it (the Whale extension then has told whale-ls). */
async function setReview(mode: 'ask' | 'off'): Promise<void> {
    await vscode.workspace.getConfiguration('whale').update('edits.review', mode, vscode.ConfigurationTarget.Global);
    await waitFor(() => vscode.workspace.getConfiguration('whale').get('edits.review') === mode, 5000, `whale.edits.review = ${mode}`);
    await new Promise((r) => setTimeout(r, 300));
}

async function setMcpServer(on: boolean): Promise<void> {
    await vscode.workspace.getConfiguration('whale').update('mcpServer.enabled', on, vscode.ConfigurationTarget.Global);
}

/**
 * Asks the driver for one chat turn with the Whale E2E model (the phase
 * names it) and returns the tools of the request the model received.
 */
async function chatTurn(phase: string): Promise<ChatTool[]> {
    const before = chatRequests.length;
    report.phase = phase;
    save();
    await waitFor(() => chatRequests.length > before, 85_000, `a chat request to the Whale E2E model (${phase})`);
    return chatRequests[chatRequests.length - 1];
}

export function activate(): void {
    if (!resultsFile) {
        return;
    }
    registerChatModel();
    save();
    run()
        .catch((err: unknown) => report.steps.push({ name: 'scenario', ok: false, detail: String(err), ms: 0 }))
        .finally(() => {
            report.phase = 'done';
            report.done = true;
            save();
        });
}

// ---------------------------------------------------------------------------
// The chat's tool list. A scripted chat model ("Whale E2E", vendor
// whale-e2e, registered like any BYOK model) receives each chat request with
// the tools the chat offers a model, records them and answers with a short
// text. What it records is what Copilot's own models get in agent mode.

interface ChatTool {
    name: string;
    description: string;
}

/** The tool lists of the chat requests the model received, oldest first. */
const chatRequests: ChatTool[][] = [];

// registerLanguageModelChatProvider is newer than @types/vscode 1.95; declared as far as used.
interface ChatModelInfo {
    id: string;
    name: string;
    family: string;
    version: string;
    maxInputTokens: number;
    maxOutputTokens: number;
    capabilities: { toolCalling?: boolean | number; imageInput?: boolean };
    isUserSelectable?: boolean;
}
interface ChatModelProvider {
    provideLanguageModelChatInformation(options: { silent: boolean }, token: vscode.CancellationToken): ChatModelInfo[];
    provideLanguageModelChatResponse(
        model: ChatModelInfo,
        messages: readonly unknown[],
        options: { tools?: readonly ChatTool[] },
        progress: vscode.Progress<unknown>,
        token: vscode.CancellationToken,
    ): Promise<void>;
    provideTokenCount(model: ChatModelInfo, text: unknown, token: vscode.CancellationToken): Promise<number>;
}

function registerChatModel(): void {
    const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?: (vendor: string, provider: ChatModelProvider) => vscode.Disposable };
    if (typeof lm.registerLanguageModelChatProvider !== 'function') {
        return;
    }
    lm.registerLanguageModelChatProvider('whale-e2e', {
        provideLanguageModelChatInformation: () => [
            {
                id: 'whale-e2e-model',
                name: 'Whale E2E',
                family: 'whale-e2e',
                version: '1',
                maxInputTokens: 200_000,
                maxOutputTokens: 4_000,
                capabilities: { toolCalling: 128 },
                isUserSelectable: true,
            },
        ],
        async provideLanguageModelChatResponse(_model, _messages, options, progress) {
            const tools = (options.tools ?? []).map((t) => ({ name: t.name, description: t.description }));
            chatRequests.push(tools);
            progress.report(new vscode.LanguageModelTextPart(`whale-e2e model: ${tools.length} tools offered`));
        },
        provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : JSON.stringify(text)).length / 4),
    });
}
