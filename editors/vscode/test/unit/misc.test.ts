import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureReason, shortName } from '../../src/applyEditReason';
import { confirmation, invocationMessage, patchFiles } from '../../src/invocation';
import { CrashLimit, resolveServerPath, type ResolveEnv } from '../../src/serverPath';

test('invocation messages', () => {
    const rel = (p: string) => p.replace('/w/', '');
    for (const tc of [
        { tool: 'edit', input: { file_path: '/w/src/a.ts' }, want: 'Editing src/a.ts' },
        { tool: 'read_file', input: { file_path: '/w/b.go' }, want: 'Reading b.go' },
        { tool: 'shell_run', input: { command: 'go test ./...' }, want: 'Running `go test ./...`' },
        { tool: 'grep', input: { pattern: 'TODO', path: '/w/src' }, want: 'Searching for `TODO` in src' },
        { tool: 'apply_patch', input: { patch: '*** Begin Patch\n*** Update File: /w/x.go\n@@\n-a\n+b\n*** End Patch' }, want: 'Patching x.go' },
        { tool: 'shell_wait', input: { task_id: 't2' }, want: 'Waiting for task t2' },
        { tool: 'fetch', input: { url: 'https://x.test/a', method: 'post' }, want: 'Fetching POST https://x.test/a' },
        { tool: 'web_fetch', input: { url: 'https://x.test/' }, want: 'Fetching https://x.test/' },
        { tool: 'todo_add', input: { content: 'Write tests' }, want: 'Adding a todo: Write tests' },
        { tool: 'todo_update', input: { id: 3 }, want: 'Updating todo #3' },
        { tool: 'request_user_input', input: { question: 'Which branch?' }, want: 'Asking: Which branch?' },
        { tool: 'future_tool', input: {}, want: 'Running whale future_tool' },
    ]) {
        assert.equal(invocationMessage(tc.tool, tc.input, rel), tc.want, `invocationMessage(${tc.tool})`);
    }
    assert.match(invocationMessage('shell_run', { command: 'x'.repeat(300) }), /^Running `x+\.\.\.`$/);
});

test('patchFiles reads both patch formats', () => {
    assert.deepEqual(patchFiles('--- a/x.go\n+++ b/x.go\n@@'), ['x.go']);
    assert.deepEqual(patchFiles('*** Add File: n.txt\n*** Delete File: o.txt'), ['n.txt', 'o.txt']);
});

test('confirmation only for tools that change something', () => {
    assert.equal(confirmation('read_file', { file_path: 'a' }, true), undefined);
    assert.deepEqual(confirmation('shell_run', { command: 'make' }, false), { title: 'Run a command in a whale terminal?', message: '`make`' });
    assert.equal(confirmation('edit', { file_path: 'a.ts' }, false)?.message, 'Editing a.ts');
});

test('failureReason names stale documents', () => {
    const open = (uri: string) => (uri === 'file:///w/src/a.ts' ? { version: 7, isDirty: true } : undefined);
    assert.equal(
        failureReason([{ uri: 'file:///w/src/a.ts', version: 5 }], open),
        'stale document version: src/a.ts is at version 7 in the editor, the edit was made for version 5',
    );
    assert.match(failureReason([{ uri: 'file:///w/src/a.ts', version: 7 }], open), /refused/);
    assert.match(failureReason([{ uri: 'file:///w/other.ts', version: 1 }], open), /refused/);
    assert.equal(shortName('file:///w/my%20dir/a.ts'), 'my dir/a.ts');
});

test('resolveServerPath: setting, bundled, PATH, missing', () => {
    const base: ResolveEnv = { setting: '', extensionPath: '/ext', home: '/home/u', pathVar: '/usr/bin:/opt/bin', platform: 'linux', isExecutable: () => false };
    const withFiles = (...files: string[]) => ({ ...base, isExecutable: (f: string) => files.includes(f) });
    assert.deepEqual(resolveServerPath({ ...withFiles('/home/u/bin/whale-ls'), setting: '~/bin/whale-ls' }), { ok: true, path: '/home/u/bin/whale-ls', source: 'setting' });
    const bad = resolveServerPath({ ...withFiles('/ext/bin/whale-ls'), setting: '/nope' });
    assert.ok(!bad.ok && /whale.serverPath/.test(bad.message));
    assert.deepEqual(resolveServerPath(withFiles('/ext/bin/whale-ls', '/opt/bin/whale-ls')), { ok: true, path: '/ext/bin/whale-ls', source: 'bundled' });
    assert.deepEqual(resolveServerPath(withFiles('/opt/bin/whale-ls')), { ok: true, path: '/opt/bin/whale-ls', source: 'PATH' });
    const none = resolveServerPath(base);
    assert.ok(!none.ok && /go install/.test(none.message) && /whale.serverPath/.test(none.message));
});

test('CrashLimit allows a few crashes per window', () => {
    const c = new CrashLimit(2, 1000);
    assert.equal(c.crashed(0), true);
    assert.equal(c.crashed(10), true);
    assert.equal(c.crashed(20), false);
    assert.equal(c.crashed(2000), true, 'old crashes leave the window');
    c.reset();
    assert.equal(c.crashed(2001), true);
});
