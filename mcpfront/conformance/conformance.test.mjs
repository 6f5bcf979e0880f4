// MCP conformance of the real `whale-ls mcp`, driven by the official MCP
// TypeScript SDK client over stdio. What the SDK client cannot send
// (malformed lines, batches, deep nesting, requests before initialize) is
// written as raw lines to the same process's stdin, and every line the
// server writes is recorded raw, so that a test can also see what the
// client drops (an error with id null, a response after a cancel).
//
// Run: WHALE_LS=/path/to/whale-ls npm test (make mcp-conformance builds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.WHALE_LS;
if (!bin) {
    throw new Error('set WHALE_LS to the whale-ls binary (make mcp-conformance does)');
}

// Versions the server speaks as asked; an older one gets the newest the
// server has, which the client must accept.
const SERVER_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** A workspace folder with a.txt; also the runtime folder, so that no
 * running whale-ls language server is attached. */
function workspace(t) {
    const root = mkdtempSync(join(tmpdir(), 'whale-mcp-conformance-'));
    writeFileSync(join(root, 'a.txt'), 'alpha\nbeta\n');
    t.after(() => rmSync(root, { recursive: true, force: true }));
    return root;
}

function serverEnv(root) {
    return { ...process.env, XDG_RUNTIME_DIR: root, XDG_STATE_HOME: root };
}

/** Records every line a process writes to stdout, parsed. */
class Tap {
    constructor(stdout) {
        this.messages = [];
        this.waiters = [];
        let buf = '';
        stdout.on('data', chunk => {
            buf += chunk.toString('utf8');
            let i;
            while ((i = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, i);
                buf = buf.slice(i + 1);
                let msg;
                try {
                    msg = JSON.parse(line);
                } catch {
                    msg = { unparsable: line };
                }
                this.messages.push(msg);
                this.waiters = this.waiters.filter(w => !w());
            }
        });
    }

    /** The first message from index `from` on that pred accepts. */
    waitFor(pred, what, from = 0, ms = 30000) {
        return new Promise((resolve, reject) => {
            const check = () => {
                const found = this.messages.slice(from).find(pred);
                if (found !== undefined) {
                    clearTimeout(timer);
                    resolve(found);
                    return true;
                }
                return false;
            };
            const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms; got ${JSON.stringify(this.messages.slice(from)).slice(0, 2000)}`)), ms);
            if (!check()) {
                this.waiters.push(check);
            }
        });
    }

    /** The response (or array of responses) with this id. */
    response(id, from = 0) {
        const has = m => m.id === id && (m.result !== undefined || m.error !== undefined);
        return this.waitFor(m => (Array.isArray(m) ? m.some(has) : has(m)), `response to ${JSON.stringify(id)}`, from);
    }
}

/**
 * Starts `whale-ls mcp --standalone` and connects the SDK client to it.
 * `version` replaces the protocol version of the client's initialize.
 */
async function connect(t, { version, args = [] } = {}) {
    const root = workspace(t);
    const transport = new StdioClientTransport({
        command: bin,
        args: ['mcp', '--standalone', '--root', root, ...args],
        env: serverEnv(root),
        stderr: 'pipe',
    });
    const sent = [];
    const send = transport.send.bind(transport);
    transport.send = (msg, opts) => {
        if (version && msg.method === 'initialize') {
            msg = { ...msg, params: { ...msg.params, protocolVersion: version } };
        }
        sent.push(msg);
        return send(msg, opts);
    };
    let tap, child;
    const start = transport.start.bind(transport);
    transport.start = async () => {
        await start();
        // The SDK keeps the child process private; the raw lines need it.
        child = transport._process;
        tap = new Tap(child.stdout);
    };
    const client = new Client({ name: 'whale-conformance', version: '1.0.0' });
    const clientErrors = [];
    client.onerror = e => clientErrors.push(e);
    await client.connect(transport);
    t.after(() => client.close());
    const raw = line => child.stdin.write(line + '\n');
    return { client, transport, tap, raw, sent, clientErrors, root };
}

const text = res => res.content.filter(c => c.type === 'text').map(c => c.text).join('');

/** Checks that the session still answers, through the SDK client. */
async function stillServes(client, what) {
    await client.ping();
    const res = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
    assert.match(text(res), /beta/, `read_file after ${what}`);
}

for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    test(`initialize with protocol version ${version}, list, call`, async t => {
        const { client, tap } = await connect(t, { version });
        const init = await tap.response(0);
        const negotiated = init.result.protocolVersion;
        if (SERVER_VERSIONS.includes(version)) {
            assert.equal(negotiated, version, 'the server answers the version asked for');
        } else {
            assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes(negotiated), `negotiated ${negotiated}`);
        }
        assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: true } }, 'tools only');
        assert.equal(client.getServerVersion().name, 'whale-ls');

        const { tools } = await client.listTools();
        const names = tools.map(tool => tool.name);
        for (const want of ['read_file', 'edit', 'grep', 'shell_run', 'shell_wait', 'web_fetch']) {
            assert.ok(names.includes(want), `tools/list has ${want}`);
        }
        for (const tool of tools) {
            assert.equal(tool.outputSchema, undefined, `${tool.name} declares no outputSchema`);
            assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
        }

        const ok = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
        assert.match(text(ok), /2\tbeta/);
        assert.ok(!ok.isError);
        assert.equal(ok.structuredContent, undefined, 'no structured content unless asked for');
        assert.equal(ok._meta['whale/code'], 'ok');
        assert.equal(ok._meta['whale/truncated'], false);

        const failed = await client.callTool({ name: 'read_file', arguments: { file_path: 'nope.txt' } });
        assert.equal(failed.isError, true);
        assert.match(text(failed), /^not_found: /, 'the failure code leads the text');
        assert.equal(failed._meta['whale/code'], 'not_found');
    });
}

test('--structured puts the Envelope in structuredContent', async t => {
    const { client } = await connect(t, { args: ['--structured'] });
    const res = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
    assert.equal(res.structuredContent.code, 'ok');
    assert.equal(res.structuredContent.ok, true);
    assert.match(res.structuredContent.text, /beta/);
    assert.equal(res._meta['whale/code'], 'ok');
});

test('unadvertised capabilities are method not found', async t => {
    const { client } = await connect(t);
    await assert.rejects(client.listResources(), { code: -32601 });
    await assert.rejects(client.listPrompts(), { code: -32601 });
    await assert.rejects(client.listResourceTemplates(), { code: -32601 });
    await assert.rejects(client.setLoggingLevel('info'), { code: -32601 });
    await stillServes(client, 'unadvertised methods');
});

test('malformed lines are parse errors and the session goes on', async t => {
    const { client, tap, raw } = await connect(t);
    for (const line of ['not json', '{"jsonrpc":"2.0","id":"raw-1","method":"ping"', '{"a":1} {"b":2}']) {
        const from = tap.messages.length;
        raw(line);
        const reply = await tap.waitFor(m => m.error !== undefined, `error for ${line}`, from);
        assert.equal(reply.error.code, -32700, line);
        assert.equal(reply.id, null, line);
        await stillServes(client, line);
    }
    const from = tap.messages.length;
    raw('{"jsonrpc":"1.0","id":"raw-2","method":"ping"}');
    assert.equal((await tap.response('raw-2', from)).error.code, -32600, 'not JSON-RPC 2.0');
    await stillServes(client, 'a JSON-RPC 1.0 message');
});

test('a batch is answered with errors, never run, and the session goes on', async t => {
    const { client, tap, raw, root } = await connect(t);
    const from = tap.messages.length;
    raw(JSON.stringify([
        { jsonrpc: '2.0', id: 'raw-b1', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'raw-b2', method: 'tools/call', params: { name: 'write', arguments: { file_path: 'b.txt', content: 'x' } } },
    ]));
    const replies = await tap.response('raw-b1', from);
    assert.ok(Array.isArray(replies), 'a batch of requests is answered with an array');
    assert.deepEqual(replies.map(r => [r.id, r.error.code]), [['raw-b1', -32600], ['raw-b2', -32600]]);
    assert.match(replies[0].error.message, /batch/);
    const fromEmpty = tap.messages.length;
    raw('[]');
    const empty = await tap.waitFor(m => m.error !== undefined, 'error for []', fromEmpty);
    assert.deepEqual([empty.id, empty.error.code], [null, -32600]);
    await stillServes(client, 'a batch');
    const { existsSync } = await import('node:fs');
    assert.ok(!existsSync(join(root, 'b.txt')), 'the write in the batch did not run');
});

test('deep nesting is an error response and the session goes on', async t => {
    const { client, tap, raw } = await connect(t);
    const deep = '['.repeat(2000) + ']'.repeat(2000);
    let from = tap.messages.length;
    raw(`{"jsonrpc":"2.0","id":"raw-d1","method":"tools/call","params":{"name":"grep","arguments":{"pattern":${deep}}}}`);
    const call = await tap.response('raw-d1', from);
    assert.equal(call.result.isError, true);
    assert.match(call.result.content[0].text, /^invalid_input: invalid input for grep: the message nests 2003 levels/);
    assert.equal(call.result._meta['whale/code'], 'invalid_input');

    from = tap.messages.length;
    raw(`{"jsonrpc":"2.0","id":"raw-d2","method":"ping","params":{"x":${deep}}}`);
    assert.equal((await tap.response('raw-d2', from)).error.code, -32600);

    from = tap.messages.length;
    raw(`[{"jsonrpc":"2.0","id":"raw-d3","method":"ping","params":{"x":${deep}}}]`);
    assert.equal((await tap.response('raw-d3', from))[0].error.code, -32600);

    from = tap.messages.length;
    raw(`{"jsonrpc":"2.0","method":"notifications/x","params":{"x":${deep}}}`);
    await stillServes(client, 'deep messages');
    assert.deepEqual(tap.messages.slice(from).filter(m => m.error), [], 'nothing answers a notification');
});

test('requests before initialize get a JSON-RPC error code, not 0', async t => {
    const root = workspace(t);
    const child = spawn(bin, ['mcp', '--standalone', '--root', root], { env: serverEnv(root), stdio: ['pipe', 'pipe', 'ignore'] });
    t.after(() => child.kill());
    const tap = new Tap(child.stdout);
    const raw = line => child.stdin.write(line + '\n');
    raw('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    const early = await tap.response(1);
    assert.equal(early.error.code, -32600);
    assert.match(early.error.message, /before initialize/);
    raw('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    assert.deepEqual((await tap.response(2)).result, {}, 'ping is answered before initialize');
    raw('{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
    assert.equal((await tap.response(3)).result.protocolVersion, '2025-06-18');
    raw('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    raw('{"jsonrpc":"2.0","id":4,"method":"tools/list"}');
    assert.ok((await tap.response(4)).result.tools.length > 0);
});

test('a cancelled request gets no response', async t => {
    const { client, tap, sent } = await connect(t);
    const ac = new AbortController();
    const call = client.callTool({ name: 'shell_run', arguments: { command: 'sleep 30', yield_time_ms: 25000 } }, undefined, { signal: ac.signal });
    const request = sent.find(m => m.method === 'tools/call' && m.params.name === 'shell_run');
    await new Promise(r => setTimeout(r, 700)); // the task runs
    const from = tap.messages.length;
    ac.abort('the user stopped it');
    await assert.rejects(call);
    assert.ok(sent.some(m => m.method === 'notifications/cancelled' && m.params.requestId === request.id), 'the client sent notifications/cancelled');
    await stillServes(client, 'a cancelled call');
    await new Promise(r => setTimeout(r, 1500));
    const answers = tap.messages.slice(from).filter(m => m.id === request.id);
    assert.deepEqual(answers, [], 'no response after notifications/cancelled');
});

test('progress notifications for a long call with a progressToken', async t => {
    const { client, tap, sent } = await connect(t);
    const progress = [];
    const res = await client.callTool(
        { name: 'shell_run', arguments: { command: 'sleep 3; echo done', yield_time_ms: 20000 } },
        undefined,
        { onprogress: p => progress.push(p) },
    );
    assert.match(text(res), /done/);
    assert.ok(progress.length >= 2, `${progress.length} progress notifications for a 3 s call`);
    for (let i = 1; i < progress.length; i++) {
        assert.ok(progress[i].progress > progress[i - 1].progress, 'progress increases');
    }
    assert.match(progress[0].message, /shell_run still running/);
    // On the wire: every notification for the token comes before the result.
    const request = sent.find(m => m.method === 'tools/call' && m.params._meta?.progressToken !== undefined);
    const token = request.params._meta.progressToken;
    const at = tap.messages.findIndex(m => m.id === request.id && m.result);
    await new Promise(r => setTimeout(r, 1200));
    const late = tap.messages.slice(at + 1).filter(m => m.method === 'notifications/progress' && m.params.progressToken === token);
    assert.deepEqual(late, [], 'no progress after the result');

    // shell_wait reports progress too; a quick call reports none.
    const bg = await client.callTool({ name: 'shell_run', arguments: { command: 'sleep 2; echo later', background: true } });
    const taskID = text(bg).match(/\bt\d+\b/)[0];
    const waited = [];
    const wres = await client.callTool({ name: 'shell_wait', arguments: { task_id: taskID, timeout_ms: 20000 } }, undefined, { onprogress: p => waited.push(p) });
    assert.match(text(wres), /later/);
    assert.ok(waited.length >= 1, 'shell_wait progress');
    const quick = [];
    await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } }, undefined, { onprogress: p => quick.push(p) });
    assert.deepEqual(quick, [], 'no progress for a call under a second');
});

test('a yielded shell_run says truthfully how long its task lives', async t => {
    const { client } = await connect(t);
    const res = await client.callTool({ name: 'shell_run', arguments: { command: 'sleep 30', yield_time_ms: 300 } });
    const said = text(res);
    assert.match(said, /still running/);
    assert.match(said, /keeps running after this call returns/);
    assert.doesNotMatch(said, /killed/, 'in an MCP session the task outlives the call');
    const taskID = said.match(/\bt\d+\b/)[0];
    const later = await client.callTool({ name: 'shell_wait', arguments: { task_id: taskID, timeout_ms: 100 } });
    assert.match(text(later), /still running/, 'the task is alive after the call returned');
    await client.callTool({ name: 'shell_cancel', arguments: { task_id: taskID } });
});
