// The typed requests of src/requests.ts against the real whale-ls binary
// over stdio (vscode-jsonrpc, the library under vscode-languageclient).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { languageModelTools } from '../../src/contributions';
import * as req from '../../src/requests';

const root = path.resolve(__dirname, '../../..');
const server = process.env.WHALE_LS_PATH || path.join(root, 'bin', 'whale-ls');
const skip = !existsSync(server) && process.env.WHALE_SKIP_CATALOG === '1';

let conn: MessageConnection;
let ws: string;
const events: { method: string; params: any }[] = [];
let stop: () => void = () => undefined;

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
    conn.listen();
    stop = () => {
        conn.dispose();
        child.kill();
        rmSync(ws, { recursive: true, force: true });
    };
    const caps: req.WhaleClientCapabilities = { terminals: true, prompts: true, saveDocuments: true };
    const init: any = await conn.sendRequest('initialize', {
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
    return conn.sendRequest('workspace/executeCommand', { command: `whale.${tool}`, arguments: [input] }) as Promise<req.Envelope>;
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
    const o: req.TerminalOpenParams = open.params;
    assert.equal(o.pty, false);
    assert.match(o.command, /echo wire-ok/);
    // Output notifications may arrive after the executeCommand response.
    const outputOf = () => events.filter((e) => e.method === req.terminalOutput.method && e.params.taskId === o.taskId).map((e) => (e.params as req.TerminalOutputParams).data).join('');
    await waitFor(() => (/wire-ok/.test(outputOf()) ? true : undefined), 5000, 'terminal/output with wire-ok');
    const exit = await waitFor(() => events.find((e) => e.method === req.terminalExit.method && e.params.taskId === o.taskId), 5000, 'terminal/exit');
    assert.equal((exit.params as req.TerminalExitParams).exitCode, 4);
    const list = await conn.sendRequest(req.terminalList);
    assert.ok(Array.isArray(list.tasks) && list.tasks.length >= 1);
});

test('an exec approval arrives as whale/prompt and the answer decides', { skip }, async () => {
    const pending = run('shell_run', { command: 'touch wire-denied.txt; echo status=$?', mode: 'pipe' });
    const p = await waitFor(() => events.find((e) => e.method === req.prompt.method), 10_000, 'whale/prompt');
    const q: req.PromptParams = p.params;
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
    assert.deepEqual(diff.files.map((f) => ({ path: f.path, before: f.before, after: f.after, beforeExists: f.beforeExists, afterExists: f.afterExists, binary: f.binary })), [
        { path: file, before: 'one\ntwo\nthree\n', after: 'one\nTWO\nthree\n', beforeExists: true, afterExists: true, binary: false },
    ]);
    assert.equal((await conn.sendRequest(req.changesList, { since: e.id })).entries.length, 0, 'nothing newer than the newest');

    // The same line changed since: the revert is refused and the file stays.
    writeFileSync(file, 'one\nTWO!\nthree\n');
    const refused = await conn.sendRequest(req.changesRevert, { id: e.id });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'write_conflict');
    assert.deepEqual(refused.conflicts?.map((c) => c.path), [file]);
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
