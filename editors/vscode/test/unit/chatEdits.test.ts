import assert from 'node:assert/strict';
import { test } from 'node:test';
import { journalEntryOf, sessionIdOf } from '../../src/chatOrigin';
import { hunkRange, hunkSides, parseUnifiedDiff, undoHunkEdit } from '../../src/hunks';
import { statusText, statusTooltip } from '../../src/statusText';

const diff = [
    '--- a/src/app.ts',
    '+++ b/src/app.ts',
    '@@ -1,4 +1,5 @@',
    ' one',
    '-two',
    '+TWO',
    '+two and a half',
    ' three',
    ' four',
    '@@ -10,3 +11,2 @@',
    ' ten',
    '--- a removed line that starts with two dashes',
    ' twelve',
    '--- a/new.txt',
    '+++ b/new.txt',
    '@@ -0,0 +1,2 @@',
    '+made',
    '+new',
    '',
].join('\n');

test('parseUnifiedDiff reads files, hunks and their counts', () => {
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(
        files.map((f) => [f.path, f.hunks.length]),
        [
            ['src/app.ts', 2],
            ['new.txt', 1],
        ],
    );
    const [h1, h2] = files[0].hunks;
    assert.deepEqual([h1.oldStart, h1.oldLines, h1.newStart, h1.newLines, h1.added, h1.removed], [1, 4, 1, 5, 2, 1]);
    assert.deepEqual([h2.added, h2.removed], [0, 1]);
    assert.equal(h2.lines[1], '--- a removed line that starts with two dashes');
    assert.deepEqual(hunkSides(h1), { after: 'one\nTWO\ntwo and a half\nthree\nfour', before: 'one\ntwo\nthree\nfour' });
});

test('undoHunkEdit replaces the hunk as it is now by the lines before it', () => {
    const [h1] = parseUnifiedDiff(diff)[0].hunks;
    assert.deepEqual(undoHunkEdit('/w/src/app.ts', h1), {
        file_path: '/w/src/app.ts',
        search: 'one\nTWO\ntwo and a half\nthree\nfour',
        replace: 'one\ntwo\nthree\nfour',
    });
    const deletion = parseUnifiedDiff('--- a/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n')[0];
    assert.equal(deletion.path, 'x');
    assert.equal(undoHunkEdit('/w/x', deletion.hunks[0]), undefined);
});

test('hunkRange finds the changed lines near where the diff put them, also after the file moved on', () => {
    const [h1, h2] = parseUnifiedDiff(diff)[0].hunks;
    const text = 'one\nTWO\ntwo and a half\nthree\nfour\n';
    assert.deepEqual(hunkRange(text, h1), { start: 1, end: 2 });
    assert.deepEqual(hunkRange('inserted above\n' + text, h1), { start: 2, end: 3 });
    assert.equal(hunkRange('one\ntwo\nthree\nfour\n', h1), undefined);
    // A hunk that only removes marks the line after the removed one.
    assert.deepEqual(hunkRange('a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nten\ntwelve\n', h2), { start: 11, end: 11 });
});

test('journalEntryOf reads the entry id from a change result', () => {
    assert.equal(
        journalEntryOf('Edited f.txt: 1 replacement at line 2 (+2 -1 lines). (Journal entry 20261206T090604.847714Z-31af.)'),
        '20261206T090604.847714Z-31af',
    );
    // The form before the result's note was shortened.
    assert.equal(
        journalEntryOf('Edited f.txt: 1 replacement at line 2 (+2 -1 lines). (Journal entry 20261206T090604.847714Z-31af; changes_revert takes it back.)'),
        '20261206T090604.847714Z-31af',
    );
    assert.equal(journalEntryOf('Read 3 lines'), undefined);
});

test('sessionIdOf decodes a local chat session resource and keeps anything else', () => {
    const id = 'a1b2c3-session';
    assert.equal(sessionIdOf(`vscode-chat-session://local/${Buffer.from(id).toString('base64')}`), id);
    assert.equal(sessionIdOf('untitled:chat'), 'untitled:chat');
});

test('statusText and statusTooltip say whale state, tools, sandbox, boundary and review', () => {
    const facts = { state: 'running' as const, tools: 31, sandbox: 'workspace-write', review: 'off', boundary: 'enforce' };
    assert.equal(statusText(facts), '$(check) Whale 31');
    assert.equal(statusText({ ...facts, state: 'stopped' }), '$(error) Whale');
    assert.equal(statusText({ ...facts, state: 'missing' }), '$(warning) Whale');
    const tip = statusTooltip({ ...facts, review: 'ask', sandbox: 'off' });
    assert.match(tip, /whale-ls: running/);
    assert.match(tip, /Tools: 31/);
    assert.match(tip, /Sandbox: off \(commands may write anywhere/);
    assert.match(tip, /Exec boundary: enforce/);
    assert.match(tip, /Review: every change is shown first/);
    assert.match(
        statusTooltip({ ...facts, state: 'missing', tools: undefined }),
        /not found \(install whale-ls or set whale.serverPath\)[\s\S]*Tools: not known yet/,
    );
});
