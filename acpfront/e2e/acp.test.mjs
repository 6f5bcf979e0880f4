// The real `whale-ls acp` between a client built with the official ACP
// TypeScript SDK (the editor's side) and a scripted agent built with the
// same SDK (agent.mjs): reads, a stale write merged, a stale write refused,
// a fresh write, the same with --files editor (the client serves files), a
// terminal command the exec boundary denies and one it allows, a canceled
// turn; each checked on disk, in the journal
// (`whale-ls changes list --json`) and in the messages the client got.
//
// Run: WHALE_LS=/path/to/whale-ls npm test (make acp builds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';

const bin = process.env.WHALE_LS;
if (!bin) {
    throw new Error('set WHALE_LS to the whale-ls binary (make acp does)');
}
const agentScript = join(dirname(fileURLToPath(import.meta.url)), 'agent.mjs');

/** Whether the exec boundary can watch programs here: the kernel offers
 * seccomp user notification and no seccomp filter is already above us. The
 * deny/allow test skips, saying so, where it cannot. */
function gateProbe() {
    try {
        const actions = readFileSync('/proc/sys/kernel/seccomp/actions_avail', 'utf8');
        const status = readFileSync('/proc/self/status', 'utf8');
        if (!actions.split(/\s+/).includes('user_notif')) {
            return 'the kernel has no seccomp user notification';
        }
        if (!/^Seccomp:\s+0$/m.test(status)) {
            return 'a seccomp filter is already installed above this process';
        }
        return '';
    } catch (e) {
        return `seccomp cannot be probed here (${e.message})`;
    }
}

/** Starts whale-ls acp in front of the scripted agent on a new workspace
 * and connects an SDK client; returns the pieces a test checks. With
 * buffers (a Map of path to text), the client serves fs/* itself from it,
 * advertises so, and whale-ls acp runs with --files editor. */
async function start(t, settings, buffers) {
    const root = mkdtempSync(join(tmpdir(), 'whale-acp-e2e-'));
    const state = mkdtempSync(join(tmpdir(), 'whale-acp-state-'));
    t.after(() => {
        rmSync(root, { recursive: true, force: true });
        rmSync(state, { recursive: true, force: true });
    });
    const config = join(state, 'settings.json');
    writeFileSync(config, JSON.stringify(settings ?? {}));
    // No --root: the workspace is session/new's cwd. Its own runtime and
    // state folders: no running whale-ls is attached, and the journal is
    // this test's.
    const env = { ...process.env, XDG_RUNTIME_DIR: state, XDG_STATE_HOME: state };
    const filesArgs = buffers ? ['--files', 'editor'] : [];
    const proc = spawn(bin, ['acp', '--config', config, ...filesArgs, '--', process.execPath, agentScript], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', d => (stderr += d));
    const exited = new Promise(resolve => proc.on('exit', (code, signal) => resolve({ code, signal })));
    const updates = [];
    const permissions = [];
    const fsCalls = [];
    let waiters = [];
    let app = client()
        .onNotification('session/update', ({ params }) => {
            updates.push(params.update);
            waiters = waiters.filter(w => !w());
        })
        .onRequest('session/request_permission', ({ params }) => {
            permissions.push(params);
            return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        });
    if (buffers) {
        app = app
            .onRequest('fs/read_text_file', ({ params }) => {
                fsCalls.push('read ' + params.path);
                if (!buffers.has(params.path)) {
                    throw new Error('no such file');
                }
                return { content: buffers.get(params.path) };
            })
            .onRequest('fs/write_text_file', ({ params }) => {
                fsCalls.push('write ' + params.path);
                buffers.set(params.path, params.content);
                return {};
            });
    }
    const conn = app.connect(ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout)));
    const cx = conn.agent;
    t.after(async () => {
        proc.stdin.end();
        const r = await Promise.race([exited, new Promise(res => setTimeout(() => res('timeout'), 10000))]);
        if (r === 'timeout') {
            proc.kill('SIGKILL');
            assert.fail(`whale-ls acp did not exit within 10 s of its input ending; stderr:\n${stderr}`);
        }
    });
    const init = await cx.request('initialize', {
        protocolVersion: 1,
        // Without buffers the client serves no files and no terminals
        // itself: whale does.
        clientCapabilities: { fs: { readTextFile: !!buffers, writeTextFile: !!buffers }, terminal: false },
        clientInfo: { name: 'acp-e2e', version: '1' },
    });
    const session = await cx.request('session/new', { cwd: root, mcpServers: [] });
    /** Runs one turn of steps; returns its stop reason and the agent's
     * chunks ("ok …" / "error …") in order. */
    async function turn(steps, during) {
        const from = updates.length;
        const pending = cx.request('session/prompt', {
            sessionId: session.sessionId,
            prompt: [{ type: 'text', text: JSON.stringify(steps) }],
        });
        if (during) {
            await during(from);
        }
        const r = await pending;
        const chunks = updates
            .slice(from)
            .filter(u => u.sessionUpdate === 'agent_message_chunk')
            .map(u => u.content.text);
        return { stopReason: r.stopReason, chunks };
    }
    /** Resolves once the turn begun at update index from has n chunks. */
    function chunksAtLeast(from, n) {
        const have = () => updates.slice(from).filter(u => u.sessionUpdate === 'agent_message_chunk').length >= n;
        return new Promise(resolve => {
            if (have()) return resolve();
            waiters.push(() => (have() ? (resolve(), true) : false));
        });
    }
    const journal = () => {
        const out = execFileSync(bin, ['changes', '--root', root, '--json', 'list'], { env, encoding: 'utf8' });
        return JSON.parse(out).data.entries;
    };
    return { root, proc, exited, init, session, updates, permissions, fsCalls, turn, chunksAtLeast, journal, cx, stderr: () => stderr };
}

test('the agent meets whale: capabilities, auth methods and the MCP server', async t => {
    const w = await start(t);
    assert.equal(w.init.agentInfo.title, 'Scripted Agent');
    assert.deepEqual(w.init.authMethods.map(m => m.id), ['scripted-key']);
    const caps = w.init._meta.clientCapabilities;
    assert.equal(caps.fs.readTextFile, true, 'whale advertises fs.readTextFile to the agent');
    assert.equal(caps.fs.writeTextFile, true, 'whale advertises fs.writeTextFile to the agent');
    assert.equal(caps.terminal, true, 'whale advertises terminal to the agent');
    const servers = w.session._meta.mcpServers;
    assert.equal(servers.length, 1);
    assert.equal(servers[0].name, 'whale');
    assert.deepEqual(servers[0].args.slice(0, 3), ['mcp', '--root', w.root]);
});

test('reads, a stale write merged, a stale write refused, a fresh write', async t => {
    const w = await start(t);
    const a = join(w.root, 'a.txt');
    const b = join(w.root, 'b.txt');
    writeFileSync(a, 'one\r\ntwo\r\nthree\r\n');
    writeFileSync(b, 'alpha\n');

    let r = await w.turn([{ method: 'fs/read_text_file', params: { path: a } }, { method: 'fs/read_text_file', params: { path: a, line: 2, limit: 1 } }]);
    assert.deepEqual(r.chunks, ['ok {"content":"one\\ntwo\\nthree\\n"}', 'ok {"content":"two\\n"}']);

    // The user changes line 3 after the agent read the file; the agent
    // rewrites line 1 from what it read: whale merges both.
    writeFileSync(a, 'one\r\ntwo\r\nTHREE\r\n');
    r = await w.turn([{ toolCall: 'edit-1' }, { method: 'fs/write_text_file', params: { path: a, content: 'ONE\ntwo\nthree\n' } }, { toolCallDone: 'edit-1' }]);
    assert.deepEqual(r.chunks, ['ok {}']);
    assert.equal(readFileSync(a, 'utf8'), 'ONE\r\ntwo\r\nTHREE\r\n', 'both changes, CRLF kept');
    const diff = w.updates.find(u => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'edit-1');
    assert.ok(diff, 'the write is shown in the agent\'s edit tool call');
    assert.deepEqual(diff.content[0], { type: 'diff', path: a, oldText: 'one\ntwo\nTHREE\n', newText: 'ONE\ntwo\nTHREE\n' });

    // The user changes line 1 too; the agent's next write of line 1 from
    // its older text is refused and the file left as the user made it.
    writeFileSync(a, 'uno\r\ntwo\r\nTHREE\r\n');
    r = await w.turn([{ method: 'fs/write_text_file', params: { path: a, content: 'Eins\ntwo\nthree\n' } }]);
    assert.equal(r.chunks.length, 1);
    assert.match(r.chunks[0], /^error -?\d+ .*read the file again/);
    assert.equal(readFileSync(a, 'utf8'), 'uno\r\ntwo\r\nTHREE\r\n');

    // A fresh write: read, then write.
    r = await w.turn([{ method: 'fs/read_text_file', params: { path: b } }, { method: 'fs/write_text_file', params: { path: b, content: 'alpha\nbeta\n' } }]);
    assert.deepEqual(r.chunks, ['ok {"content":"alpha\\n"}', 'ok {}']);
    assert.equal(readFileSync(b, 'utf8'), 'alpha\nbeta\n');
    const own = w.updates.find(u => u.sessionUpdate === 'tool_call' && u.content?.[0]?.type === 'diff' && u.content[0].path === b);
    assert.ok(own, 'a write outside an edit tool call is shown in a tool call of whale\'s own');

    const titles = w.journal().map(e => e.title);
    assert.deepEqual(titles, ['Scripted Agent edited b.txt (+1 −0)', 'Scripted Agent edited a.txt (+1 −1)']);
});

test('--files editor: reads and writes go to the client after whale\'s checks, journaled', async t => {
    const buffers = new Map();
    const w = await start(t, {}, buffers);
    const path = join(w.root, 'a.txt');
    writeFileSync(path, 'on disk\n');
    buffers.set(path, 'one\ntwo\nthree\n');
    const r = await w.turn([{ method: 'fs/read_text_file', params: { path } }]);
    assert.deepEqual(r.chunks, ['ok {"content":"one\\ntwo\\nthree\\n"}']);
    // The user changes line 3 in the editor; the agent's change of line 1
    // is merged onto it and written by the client.
    buffers.set(path, 'one\ntwo\nTHREE\n');
    const w1 = await w.turn([{ method: 'fs/write_text_file', params: { path, content: 'ONE\ntwo\nthree\n' } }]);
    assert.deepEqual(w1.chunks, ['ok {}']);
    assert.equal(buffers.get(path), 'ONE\ntwo\nTHREE\n');
    assert.equal(readFileSync(path, 'utf8'), 'on disk\n', 'the client, not whale, wrote');
    // A conflicting change is refused; the client is not asked to write.
    buffers.set(path, 'uno\ntwo\nTHREE\n');
    const w2 = await w.turn([{ method: 'fs/write_text_file', params: { path, content: 'Eins\ntwo\nTHREE\n' } }]);
    assert.match(w2.chunks[0], /^error .*read the file again/);
    assert.equal(buffers.get(path), 'uno\ntwo\nTHREE\n');
    // A path outside the workspace never reaches the client.
    const w3 = await w.turn([{ method: 'fs/write_text_file', params: { path: '/etc/whale-e2e.txt', content: 'x' } }]);
    assert.match(w3.chunks[0], /^error /);
    assert.deepEqual(w.fsCalls, ['read ' + path, 'read ' + path, 'write ' + path, 'read ' + path]);
    assert.deepEqual(w.journal().map(e => e.title), ['Scripted Agent edited a.txt (+1 −1)']);
});

test('terminals: a command the exec boundary denies, one it allows', async t => {
    const why = gateProbe();
    if (why) {
        t.skip(why);
        return;
    }
    const w = await start(t, { execBoundary: { mode: 'enforce', rules: [{ program: 'rm', decision: 'deny' }, { program: 'touch', decision: 'ask' }] } });
    const victim = join(w.root, 'keep.txt');
    writeFileSync(victim, 'x');
    const r = await w.turn([
        { method: 'terminal/create', params: { command: 'rm', args: [victim] } },
        { method: 'terminal/create', params: { command: 'printf', args: ['hello\\n'], cwd: w.root } },
        { method: 'terminal/wait_for_exit', params: { terminalId: 't1' } },
        { method: 'terminal/output', params: { terminalId: 't1' } },
        { method: 'terminal/release', params: { terminalId: 't1' } },
    ]);
    assert.match(r.chunks[0], /^error -?\d+ whale's exec boundary refuses this command/);
    assert.ok(existsSync(victim), 'the denied rm did not run');
    assert.deepEqual(r.chunks.slice(1), [
        'ok {"terminalId":"t1"}',
        'ok {"exitCode":0,"signal":null}',
        'ok {"exitStatus":{"exitCode":0,"signal":null},"output":"hello\\n","truncated":false}',
        'ok {}',
    ]);
    // The shell task's run is no change: the journal stays empty.
    assert.deepEqual(w.journal(), []);

    // A program the boundary asks about is asked in the client with
    // session/request_permission (this client allows once).
    const made = join(w.root, 'made.txt');
    const asked = await w.turn([
        { method: 'terminal/create', params: { command: 'touch', args: [made] } },
        { method: 'terminal/wait_for_exit', params: { terminalId: 't2' } },
    ]);
    assert.deepEqual(asked.chunks, ['ok {"terminalId":"t2"}', 'ok {"exitCode":0,"signal":null}']);
    assert.equal(w.permissions.length, 1);
    assert.match(w.permissions[0].toolCall.title, /touch/);
    assert.deepEqual(w.permissions[0].options.map(o => o.kind), ['allow_once', 'allow_always', 'reject_once']);
    assert.ok(existsSync(made), 'the allowed touch ran');
    assert.deepEqual(w.journal().map(e => e.title), ['`touch ' + made + '` created made.txt (+0)']);
});

test('session/cancel ends the turn and whale\'s terminal wait', async t => {
    const w = await start(t);
    const r = await w.turn(
        [
            { method: 'terminal/create', params: { command: 'sleep', args: ['30'] } },
            { method: 'terminal/wait_for_exit', params: { terminalId: 't1' } },
            { method: 'terminal/kill', params: { terminalId: 't1' } },
            { method: 'terminal/wait_for_exit', params: { terminalId: 't1' } },
            { waitCancel: true },
        ],
        async from => {
            await w.chunksAtLeast(from, 1);
            await new Promise(res => setTimeout(res, 300));
            await w.cx.notify('session/cancel', { sessionId: w.session.sessionId });
        },
    );
    assert.equal(r.stopReason, 'cancelled');
    assert.equal(r.chunks[0], 'ok {"terminalId":"t1"}');
    assert.match(r.chunks[1], /^error -32800 /);
    assert.equal(r.chunks[2], 'ok {}');
    assert.match(r.chunks[3], /^ok \{"exitCode":null,"signal":"SIG[A-Z]+"\}$/);
});

test('the agent stops with whale-ls acp', async t => {
    const w = await start(t);
    const pid = w.init._meta.pid;
    w.proc.stdin.end();
    const { code } = await w.exited;
    assert.equal(code, 0, `whale-ls acp exited with ${code}; stderr:\n${w.stderr()}`);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, `the agent (pid ${pid}) outlived whale-ls acp`);
});
