// The typed requests of src/requests.ts against the real whale-ls binary
// over stdio (vscode-jsonrpc, the library under vscode-languageclient).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { languageModelTools } from '../../src/contributions';
import * as map from '../../src/languageMapping';
import * as req from '../../src/requests';

const root = path.resolve(__dirname, '../../..');
const server = process.env.WHALE_LS_PATH || path.join(root, 'bin', 'whale-ls');
const skip = !existsSync(server) && process.env.WHALE_SKIP_CATALOG === '1';

let conn: MessageConnection;
let ws: string;
const events: { method: string; params: unknown }[] = [];
let stop: () => void = () => undefined;

// The editor side of the language features, answered in the shapes VS Code's
// API returns and converted by src/languageMapping.ts as the extension does.
const asUri = (p: string) => pathToFileURL(p).href;
/** Per file: the diagnostics of each successive whale/diagnostics (the last one repeats). */
const diagnosticReadings = new Map<string, map.CodeDiagnostic[][]>();
/** Per file, how many of the next whale/diagnostics find its diagnostics published once more. */
const republishing = new Map<string, number>();
const publications = new map.PublicationCounts();
const featureAnswers: Array<(p: req.LanguageFeatureParams) => unknown> = [];
const featureRequests: req.LanguageFeatureParams[] = [];

function waitFor<T>(find: () => T | undefined, ms: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
        const until = Date.now() + ms;
        const tick = () => {
            const v = find();
            if (v !== undefined) {
                resolve(v);
            } else if (Date.now() > until) {
                reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.method))}`));
            } else {
                setTimeout(tick, 20);
            }
        };
        tick();
    });
}

before(async () => {
    if (skip) {
        return;
    }
    assert.ok(existsSync(server), `no whale-ls binary at ${server}: run \`npm run build:server\``);
    ws = mkdtempSync(path.join(tmpdir(), 'whale-wire-'));
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
    const child = spawn(server, ['serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XDG_STATE_HOME: path.join(ws, '.state') } });
    child.stderr.resume();
    conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    for (const t of [req.terminalOpen, req.terminalOutput, req.terminalExit, req.prompt, req.plan, req.todos, req.changesChanged]) {
        conn.onNotification(t.method, (params: unknown) => {
            events.push({ method: t.method, params });
        });
    }
    conn.onRequest(req.diagnostics, (p) => {
        const entries: Array<[string, map.CodeDiagnostic[]]> = p.uris.map((u) => {
            const file = fileURLToPath(u);
            const readings = diagnosticReadings.get(file) ?? [[]];
            return [file, readings.length > 1 ? readings.shift()! : readings[0]];
        });
        publications.changed(
            p.uris.filter((u) => {
                const left = republishing.get(fileURLToPath(u)) ?? 0;
                republishing.set(fileURLToPath(u), left - 1);
                return left > 0;
            }),
        );
        const published = publications.of(p.uris);
        return { items: map.diagnosticItems(entries, asUri), ...(published ? { published } : {}) };
    });
    conn.onRequest(req.languageFeature, (p) => {
        featureRequests.push(p);
        const answer = featureAnswers.shift();
        return answer ? answer(p) : null;
    });
    conn.listen();
    stop = () => {
        conn.dispose();
        child.kill();
        rmSync(ws, { recursive: true, force: true });
    };
    const caps = req.extensionCapabilities;
    const init = await conn.sendRequest<{ capabilities: { executeCommandProvider: { commands: string[] } } }>('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(ws).href,
        workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }],
        capabilities: { experimental: { whale: caps } },
        initializationOptions: { execBoundary: { rules: [{ program: 'touch', decision: 'ask' }] }, shell: { yieldTimeMs: 20000 } },
    });
    assert.ok(init.capabilities.executeCommandProvider.commands.includes('whale.read_file'));
    await conn.sendNotification('initialized', {});
});

after(() => stop());

function run(tool: string, input: object): Promise<req.Envelope> {
    return conn.sendRequest<req.Envelope>('workspace/executeCommand', { command: `whale.${tool}`, arguments: [input] });
}

test('whale/tools is the catalog package.json was generated from', { skip }, async () => {
    const { tools } = await conn.sendRequest(req.tools);
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.deepEqual(
        languageModelTools(tools).map((t) => t.name),
        pkg.contributes.languageModelTools.map((t: { name: string }) => t.name),
    );
});

test('executeCommand returns an Envelope', { skip }, async () => {
    const ok = await run('read_file', { file_path: path.join(ws, 'a.txt') });
    assert.equal(ok.ok, true);
    assert.match(ok.text, /alpha/);
    const bad = await run('read_file', { file_path: path.join(ws, 'missing.txt') });
    assert.equal(bad.ok, false);
    assert.equal(bad.code, 'not_found');
});

test('shell_run streams whale/terminal/open, output and exit', { skip }, async () => {
    const env = await run('shell_run', { command: 'echo wire-ok; exit 4', mode: 'pipe' });
    assert.match(env.text, /wire-ok/);
    const open = await waitFor(() => events.find((e) => e.method === req.terminalOpen.method), 5000, 'terminal/open');
    const o = open.params as req.TerminalOpenParams;
    assert.equal(o.pty, false);
    assert.match(o.command, /echo wire-ok/);
    // Output notifications may arrive after the executeCommand response.
    const outputOf = () =>
        events
            .filter((e) => e.method === req.terminalOutput.method && (e.params as { taskId?: string }).taskId === o.taskId)
            .map((e) => (e.params as req.TerminalOutputParams).data)
            .join('');
    await waitFor(() => (/wire-ok/.test(outputOf()) ? true : undefined), 5000, 'terminal/output with wire-ok');
    const exit = await waitFor(
        () => events.find((e) => e.method === req.terminalExit.method && (e.params as { taskId?: string }).taskId === o.taskId),
        5000,
        'terminal/exit',
    );
    assert.equal((exit.params as req.TerminalExitParams).exitCode, 4);
    const list = await conn.sendRequest(req.terminalList);
    assert.ok(Array.isArray(list.tasks) && list.tasks.length >= 1);
});

test('an exec approval arrives as whale/prompt and the answer decides', { skip }, async () => {
    const pending = run('shell_run', { command: 'touch wire-denied.txt; echo status=$?', mode: 'pipe' });
    const p = await waitFor(() => events.find((e) => e.method === req.prompt.method), 10_000, 'whale/prompt');
    const q = p.params as req.PromptParams;
    assert.equal(q.kind, 'approval');
    assert.deepEqual(q.options.map((o) => o.id).sort(), ['allow_once', 'allow_session', 'deny']);
    assert.match(q.detail ?? '', /touch/);
    await conn.sendRequest(req.promptAnswer, { promptId: q.promptId, optionId: 'deny' });
    const env = await pending;
    assert.doesNotMatch(env.text, /status=0/);
    assert.equal(existsSync(path.join(ws, 'wire-denied.txt')), false);
});

test('update_plan sends whale/plan', { skip }, async () => {
    const env = await run('update_plan', { plan: [{ step: 'one', status: 'in_progress' }] });
    assert.equal(env.ok, true);
    const plan = await waitFor(() => events.find((e) => e.method === req.plan.method), 5000, 'whale/plan');
    assert.deepEqual((plan.params as req.PlanParams).steps, [{ step: 'one', status: 'in_progress' }]);
});

test('whale/changes: an edit is listed, diffed and reverted; a conflicting revert changes nothing', { skip }, async () => {
    const file = path.join(ws, 'changes.txt');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const seen = events.length;
    const env = await run('edit', { file_path: file, search: 'two', replace: 'TWO' });
    assert.equal(env.ok, true, env.text);
    const note = await waitFor(() => events.slice(seen).find((e) => e.method === req.changesChanged.method), 5000, 'whale/changes/changed');
    const list = await conn.sendRequest(req.changesList, { limit: 5 });
    const e = list.entries[0];
    assert.equal((note.params as req.ChangesChangedParams).latest, e.id);
    assert.equal(e.tool, 'edit');
    assert.ok(!Number.isNaN(Date.parse(e.time)), e.time);
    assert.deepEqual(
        e.files.map((f) => ({ path: f.path, name: f.name, where: f.where, added: f.added, removed: f.removed, created: f.created, deleted: f.deleted })),
        [{ path: file, name: 'changes.txt', where: 'disk', added: 1, removed: 1, created: false, deleted: false }],
    );
    assert.equal(e.files[0].uri, pathToFileURL(file).href);
    assert.equal(typeof list.dropped, 'number');
    const diff = await conn.sendRequest(req.changesDiff, { id: e.id });
    assert.equal(diff.id, e.id);
    assert.match(diff.diff, /-two\n\+TWO/);
    assert.deepEqual(
        diff.files.map((f) => ({ path: f.path, before: f.before, after: f.after, beforeExists: f.beforeExists, afterExists: f.afterExists, binary: f.binary })),
        [{ path: file, before: 'one\ntwo\nthree\n', after: 'one\nTWO\nthree\n', beforeExists: true, afterExists: true, binary: false }],
    );
    assert.equal((await conn.sendRequest(req.changesList, { since: e.id })).entries.length, 0, 'nothing newer than the newest');

    // The same line changed since: the revert is refused and the file stays.
    writeFileSync(file, 'one\nTWO!\nthree\n');
    const refused = await conn.sendRequest(req.changesRevert, { id: e.id });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'write_conflict');
    assert.deepEqual(
        refused.conflicts?.map((c) => c.path),
        [file],
    );
    assert.ok((refused.conflicts?.[0].hunks.length ?? 0) > 0, JSON.stringify(refused));
    assert.equal(readFileSync(file, 'utf8'), 'one\nTWO!\nthree\n');

    // Another line changed since: the revert keeps it.
    writeFileSync(file, 'one\nTWO\nthree, kept\n');
    const ok = await conn.sendRequest(req.changesRevert, { id: e.id });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.deepEqual(ok.reverted, [e.id], 'the ids of the entries it reverted');
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\nthree, kept\n');
    const after = await conn.sendRequest(req.changesList, { limit: 1 });
    assert.equal(after.entries[0].id, ok.entry);
    assert.deepEqual(after.entries[0].revertOf, [e.id]);

    const missing = await conn.sendRequest(req.changesRevert, { id: 'no-such-entry' });
    assert.equal(missing.ok, false);
    assert.equal(missing.code, 'not_found');
});

test('whale/preview: an edit planned as its commit would be, nothing written; a todo changes nothing', { skip }, async () => {
    const file = path.join(ws, 'preview.txt');
    writeFileSync(file, 'one\ntwo\n');
    const p = await conn.sendRequest(req.preview, { tool: 'edit', input: { file_path: file, search: 'two', replace: 'TWO' } });
    assert.equal(p.title, 'Edit preview.txt (+1 −1)');
    assert.match(p.detail, /^```diff\n--- a\/preview\.txt\n\+\+\+ b\/preview\.txt\n[^]*-two\n\+TWO\n```$/);
    assert.deepEqual(p.files, [{ path: 'preview.txt', added: 1, removed: 1 }]);
    assert.equal(p.readOnly, false);
    assert.equal(p.error, undefined);
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\n', 'nothing written');
    const missing = await conn.sendRequest(req.preview, { tool: 'edit', input: { file_path: file, search: 'three', replace: '3' } });
    assert.match(missing.error ?? '', /preview\.txt/);
    const todo = await conn.sendRequest(req.preview, { tool: 'todo_add', input: { content: 'check' } });
    assert.equal(todo.readOnly, true);
});

const rng = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test("languageFeatures: the language tools are listed, and an edit reports the problem the editor's whale/diagnostics add", { skip }, async () => {
    const { tools } = await conn.sendRequest(req.tools);
    for (const name of ['problems', 'symbols', 'document_symbols', 'definition', 'references', 'hover', 'rename']) {
        assert.ok(
            tools.some((t) => t.name === name),
            `${name} is not in whale/tools`,
        );
    }
    const file = path.join(ws, 'lang.ts');
    writeFileSync(file, 'export const n: number = 1;\n');
    // Before the edit no problem; after it VS Code's diagnostic (severity 0 = Error, a code with a target).
    const error: map.CodeDiagnostic = {
        range: rng(0, 13, 0, 14),
        message: "Type 'string' is not assignable to type 'number'.",
        severity: 0,
        source: 'ts',
        code: { value: 2322, target: {} },
    };
    diagnosticReadings.set(file, [[], [error]]);
    const env = await run('edit', { file_path: file, search: '= 1;', replace: '= "one";' });
    assert.equal(env.ok, true, env.text);
    assert.match(env.text, /The change introduced 1 problem:\n {2}lang\.ts:1: error: Type 'string' is not assignable to type 'number'\. \(ts 2322\)/);
    // An edit that removes it: no new problems.
    diagnosticReadings.set(file, [[error], []]);
    const fixed = await run('edit', { file_path: file, search: '= "one";', replace: '= 1;' });
    assert.equal(fixed.ok, true, fixed.text);
    assert.match(fixed.text, /No new problems in the changed files\./);
    diagnosticReadings.delete(file);
});

test(
    'languageFeatures: a clean edit of a clean file whose diagnostics are published again says "No new problems" without waiting out the bound',
    { skip },
    async () => {
        const file = path.join(ws, 'clean.ts');
        writeFileSync(file, 'export const a = 1;\n');
        // Published before the edit (the baseline) and once after it, always with no problems.
        republishing.set(file, 2);
        const env = await run('edit', { file_path: file, search: 'a = 1', replace: 'a = 2' });
        republishing.delete(file);
        assert.equal(env.ok, true, env.text);
        // Not "No new problems in the changed files (the editor's diagnostics did not change within 1.5s; …)": the bound was not waited out.
        assert.match(env.text, /No new problems in the changed files\.(\n|$)/, 'the counted publication settles it');
    },
);

test('languageFeatures: definition and references from LocationLink/Location, rename applied from `changes`, a file operation refused', { skip }, async () => {
    const a = path.join(ws, 'greet.ts');
    const b = path.join(ws, 'use.ts');
    writeFileSync(a, 'export function greet(): string {\n    return "hi";\n}\n');
    writeFileSync(b, 'import { greet } from "./greet";\nconsole.log(greet());\n');
    featureAnswers.push(() =>
        map.locations(
            [{ targetUri: a, targetRange: rng(0, 0, 2, 1), targetSelectionRange: rng(0, 16, 0, 21), originSelectionRange: rng(1, 12, 1, 17) }],
            asUri,
        ),
    );
    const def = await run('definition', { file_path: b, line: 2, symbol: 'greet' });
    assert.equal(def.ok, true, def.text);
    assert.match(def.text, /greet\.ts:1: export function greet\(\): string \{/);
    assert.deepEqual(featureRequests.at(-1), { kind: 'definition', uri: asUri(b), position: { line: 1, character: 12 } });

    featureAnswers.push(() =>
        map.locations(
            [
                { uri: a, range: rng(0, 16, 0, 21) },
                { uri: b, range: rng(0, 9, 0, 14) },
                { uri: b, range: rng(1, 12, 1, 17) },
            ],
            asUri,
        ),
    );
    const refs = await run('references', { file_path: a, line: 1, symbol: 'greet' });
    assert.equal(refs.ok, true, refs.text);
    assert.match(refs.text, /^3 references to greet:\ngreet\.ts:1: .*\nuse\.ts:1: .*\nuse\.ts:2: /);

    const renameEdits = (): Array<[string, map.CodeTextEdit[]]> => [
        [a, [{ range: rng(0, 16, 0, 21), newText: 'welcome' }]],
        [
            b,
            [
                { range: rng(0, 9, 0, 14), newText: 'welcome' },
                { range: rng(1, 12, 1, 17), newText: 'welcome' },
            ],
        ],
    ];
    featureAnswers.push(() => map.workspaceEdit(renameEdits(), [{ from: a, to: path.join(ws, 'welcome.ts') }], asUri));
    const refused = await run('rename', { file_path: a, line: 1, symbol: 'greet', new_name: 'welcome' });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'edit_rejected', refused.text);
    assert.match(refused.text, /would also rename a file/);
    assert.match(readFileSync(a, 'utf8'), /function greet/, 'a refused rename changed nothing');

    featureAnswers.push(() => map.workspaceEdit(renameEdits(), [], asUri));
    const renamed = await run('rename', { file_path: a, line: 1, symbol: 'greet', new_name: 'welcome' });
    assert.equal(renamed.ok, true, renamed.text);
    assert.equal(featureRequests.at(-1)?.newName, 'welcome');
    assert.equal(readFileSync(a, 'utf8'), 'export function welcome(): string {\n    return "hi";\n}\n');
    assert.equal(readFileSync(b, 'utf8'), 'import { welcome } from "./greet";\nconsole.log(welcome());\n');
});

test('whale/preview answers with the contract, or MethodNotFound (the extension then confirms as before)', { skip }, async () => {
    writeFileSync(path.join(ws, 'preview.txt'), 'one\ntwo\n');
    let r: req.PreviewResult | undefined;
    try {
        r = await conn.sendRequest(req.preview, { tool: 'edit', input: { file_path: 'preview.txt', search: 'two', replace: 'TWO' } });
    } catch (err) {
        assert.equal((err as { code?: number }).code, -32601, `whale/preview failed with something else than MethodNotFound: ${String(err)}`);
        return;
    }
    assert.equal(typeof r.readOnly, 'boolean');
    assert.equal(typeof r.whaleAsks, 'boolean');
    assert.equal(r.readOnly, false);
    assert.match(r.title, /preview\.txt/);
    assert.match(r.detail, /```diff[\s\S]*-two[\s\S]*\+TWO/);
    assert.equal(readFileSync(path.join(ws, 'preview.txt'), 'utf8'), 'one\ntwo\n', 'a preview changes nothing');
});
