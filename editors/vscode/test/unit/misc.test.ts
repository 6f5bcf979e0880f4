import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { failureReason, shortName } from '../../src/applyEditReason';
import { confirmation, invocationMessage, neverAsk, patchFiles, previewConfirmation } from '../../src/invocation';
import { bundledTarget, CrashLimit, crashLimitMessage, crashWindowMs, maxRestarts, resolveServerPath, type ResolveEnv } from '../../src/serverPath';

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
        { tool: 'changes_list', input: {}, want: "Listing whale's changes" },
        { tool: 'changes_revert', input: { id: '01J7' }, want: 'Reverting change 01J7' },
        { tool: 'changes_revert', input: { to: '01J7' }, want: 'Reverting change 01J7 and every later one' },
        { tool: 'problems', input: { path: '/w/a.ts' }, want: 'Reading the problems of a.ts' },
        { tool: 'problems', input: {}, want: 'Reading the problems of the workspace' },
        { tool: 'definition', input: { file_path: '/w/b.ts', line: 3, symbol: 'greet' }, want: 'Finding the definition of `greet` in b.ts:3' },
        { tool: 'references', input: { file_path: '/w/b.ts', line: 3, symbol: 'greet' }, want: 'Finding the references to `greet` in b.ts:3' },
        { tool: 'rename', input: { file_path: '/w/a.ts', line: 1, symbol: 'greet', new_name: 'welcome' }, want: 'Renaming `greet` to `welcome` (from a.ts)' },
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
    assert.equal(confirmation('rename', { file_path: 'a.ts', symbol: 'f', new_name: 'g' }, false)?.message, 'Renaming `f` to `g` (from a.ts)');
});

test('confirmation: a shell command is asked about once, by VS Code or by the exec boundary', () => {
    const run = { command: 'touch a' };
    // The exec boundary asks (or refuses): VS Code does not ask too.
    assert.equal(confirmation('shell_run', run, false, undefined, { shell: { readOnly: false, boundary: 'ask' } }), undefined);
    assert.equal(confirmation('shell_run', run, false, undefined, { shell: { readOnly: false, boundary: 'deny' } }), undefined);
    // A read-only command: nobody asks.
    assert.equal(confirmation('shell_run', { command: 'ls' }, false, undefined, { shell: { readOnly: true, boundary: 'allow' } }), undefined);
    // The boundary lets it run, or nothing checks, or the server could not tell: VS Code asks.
    for (const shell of [{ readOnly: false, boundary: 'allow' as const }, { readOnly: false, boundary: 'unchecked' as const }, undefined]) {
        assert.equal(confirmation('shell_run', run, false, undefined, { shell })?.title, 'Run a command in a whale terminal?', JSON.stringify(shell));
    }
    // The review setting does not cover commands.
    assert.ok(confirmation('shell_run', run, false, undefined, { review: true }));
});

test('confirmation: with edits.review "ask" the review is the one question for a change', () => {
    for (const tool of ['edit', 'multi_edit', 'write', 'apply_patch', 'changes_revert']) {
        assert.equal(confirmation(tool, { file_path: 'a.ts' }, false, undefined, { review: true }), undefined, tool);
        assert.ok(confirmation(tool, { file_path: 'a.ts' }, false, undefined, { review: false }), tool);
    }
    assert.ok(confirmation('web_fetch', { url: 'https://example.com' }, false, undefined, { review: true }));
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
    const base: ResolveEnv = {
        setting: '',
        extensionPath: '/ext',
        home: '/home/u',
        pathVar: '/usr/bin:/opt/bin',
        platform: 'linux',
        isExecutable: () => false,
    };
    const withFiles = (...files: string[]) => ({ ...base, isExecutable: (f: string) => files.includes(f) });
    assert.deepEqual(resolveServerPath({ ...withFiles('/home/u/bin/whale-ls'), setting: '~/bin/whale-ls' }), {
        ok: true,
        path: '/home/u/bin/whale-ls',
        source: 'setting',
    });
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

test('CrashLimit: the extension restarts maxRestarts times within the window, then stops', () => {
    const c = new CrashLimit(maxRestarts, crashWindowMs);
    const step = Math.floor(crashWindowMs / (maxRestarts + 2));
    for (let i = 0; i < maxRestarts; i++) {
        assert.equal(c.crashed(i * step), true, `crash ${i + 1} of ${maxRestarts} is restarted`);
    }
    assert.equal(c.crashed(maxRestarts * step), false, `crash ${maxRestarts + 1} within the window stops the server`);
    assert.equal(c.crashed(maxRestarts * step + 1), false, 'and it stays stopped while the crashes are in the window');
    c.reset();
    assert.equal(c.crashed(maxRestarts * step + 2), true, 'a restart by the user starts counting afresh');
});

test('CrashLimit: a crash exactly one window later no longer counts', () => {
    const c = new CrashLimit(1, 1000);
    assert.equal(c.crashed(0), true);
    assert.equal(c.crashed(999), false, 'two crashes within the window');
    const d = new CrashLimit(1, 1000);
    assert.equal(d.crashed(0), true);
    assert.equal(d.crashed(1000), true, 'the first crash has left the window');
    assert.equal(d.crashed(1500), false);
});

test('crashLimitMessage counts the crashes that stopped the server and names the fix', () => {
    const msg = crashLimitMessage(new CrashLimit(maxRestarts, crashWindowMs));
    assert.equal(
        msg,
        `whale-ls stopped ${maxRestarts + 1} times in 3 minutes and will not be restarted. Its log is in the output channel "Whale"; fix the cause, then run "Whale: Restart Server".`,
    );
    assert.match(crashLimitMessage(new CrashLimit(1, 60_000)), /stopped 2 times in 1 minute and/);
    assert.match(crashLimitMessage(new CrashLimit(2, 90_000)), /stopped 3 times in 90 seconds/);
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    assert.ok(readme.includes(`(${maxRestarts + 1} times in ${crashWindowMs / 60_000} minutes)`), 'README states the crash limit the extension uses');
});

test('resolveServerPath: what the messages tell the user to do', () => {
    const base: ResolveEnv = { setting: '', extensionPath: '/ext', home: '/home/u', pathVar: '/usr/bin', platform: 'linux', isExecutable: () => false };
    const bad = resolveServerPath({ ...base, setting: '  /opt/whale-ls  ' });
    assert.ok(!bad.ok);
    assert.equal(
        bad.message,
        'whale.serverPath is "/opt/whale-ls", but no executable file is there. Fix the setting, or clear it to use the bundled whale-ls or the one on PATH.',
    );

    const goMod = readFileSync(path.resolve(__dirname, '../../../../../go.mod'), 'utf8');
    const module = /^module (\S+)/m.exec(goMod)?.[1];
    assert.ok(module, 'go.mod names the module');
    const none = resolveServerPath(base);
    assert.ok(!none.ok);
    assert.ok(none.message.includes(`go install ${module}/cmd/whale-ls@latest`), `the install command names the module of go.mod: ${none.message}`);
    assert.match(none.message, /or set whale\.serverPath\.$/);
});

test('resolveServerPath: a bundled binary for another target is not started', () => {
    const base: ResolveEnv = {
        setting: '',
        extensionPath: '/ext',
        home: '/home/u',
        pathVar: '/opt/bin',
        platform: 'darwin',
        arch: 'arm64',
        isExecutable: (f) => f === '/ext/bin/whale-ls',
    };
    assert.deepEqual(resolveServerPath({ ...base, bundledTarget: 'darwin-arm64' }), { ok: true, path: '/ext/bin/whale-ls', source: 'bundled' });
    const wrong = resolveServerPath({ ...base, bundledTarget: 'linux-x64' });
    assert.ok(
        !wrong.ok && /carries the linux-x64 binary, but VS Code runs on darwin-arm64/.test(wrong.message) && /whale-ls-darwin-arm64\.vsix/.test(wrong.message),
        JSON.stringify(wrong),
    );
    const onPath = resolveServerPath({ ...base, bundledTarget: 'linux-x64', isExecutable: (f) => f === '/ext/bin/whale-ls' || f === '/opt/bin/whale-ls' });
    assert.deepEqual(onPath, { ok: true, path: '/opt/bin/whale-ls', source: 'PATH' }, 'a misfit bundle falls back to PATH');
    const odd = resolveServerPath({ ...base, platform: 'freebsd', arch: 'x64', bundledTarget: 'linux-x64' });
    assert.ok(!odd.ok && /freebsd-x64 has no whale-ls package/.test(odd.message));
    assert.equal(
        bundledTarget('/ext', () => '{"target":"win32-x64"}'),
        'win32-x64',
    );
    assert.equal(
        bundledTarget('/ext', () => {
            throw new Error('ENOENT');
        }),
        undefined,
    );
});

test('resolveServerPath: PATH lookup', () => {
    const base: ResolveEnv = { setting: '', extensionPath: '/ext', home: '/home/u', pathVar: '', platform: 'linux', isExecutable: () => false };
    const relative = resolveServerPath({ ...base, pathVar: ':/opt/bin', isExecutable: (f) => f === 'whale-ls' });
    assert.ok(!relative.ok, 'an empty PATH entry does not find whale-ls in the current folder');
    const win = resolveServerPath({
        ...base,
        platform: 'win32',
        pathVar: 'C:\\bin;D:\\tools',
        isExecutable: (f) => f.endsWith('whale-ls.exe') && f.startsWith('D:'),
    });
    assert.ok(
        win.ok && win.source === 'PATH' && win.path.startsWith('D:\\tools'),
        `Windows PATH is split at ; and the binary is whale-ls.exe: ${JSON.stringify(win)}`,
    );
    const home = resolveServerPath({ ...base, setting: '~/go/bin/whale-ls', isExecutable: (f) => f === '/home/u/go/bin/whale-ls' });
    assert.deepEqual(home, { ok: true, path: '/home/u/go/bin/whale-ls', source: 'setting' });
});

test('never asked: read-only tools, the plan, todos and questions to the user', () => {
    for (const tool of ['update_plan', 'todo_add', 'todo_update', 'todo_remove', 'request_user_input']) {
        assert.equal(confirmation(tool, {}, false), undefined, `confirmation(${tool})`);
    }
    assert.equal(confirmation('write', { file_path: 'a_b.ts' }, false)?.title, 'Allow whale write?');
    assert.equal(confirmation('multi_edit', { file_path: 'a.ts' }, false)?.title, 'Allow whale multi edit?', 'plain words, no underscore for markdown to eat');
});

test('previewConfirmation: the diff or the command as whale previews it; nobody asks when it reads, whale asks, or it fails', () => {
    const p = { readOnly: false, whaleAsks: false, title: 'Edit src/main.go (+3 \u22121)', detail: '```diff\n-a\n+b\n```' };
    assert.deepEqual(previewConfirmation(p), { title: p.title, message: p.detail });
    assert.equal(previewConfirmation({ ...p, readOnly: true }), undefined);
    assert.equal(previewConfirmation({ ...p, whaleAsks: true }), undefined);
    assert.equal(previewConfirmation({ ...p, error: 'search text not found' }), undefined);
    assert.ok(neverAsk.has('todo_add'));
});
