// The Changes section's model (src/changes.ts): entries and files as the
// tree shows them, the whale-change: documents' texts, revert messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    ChangeDocuments,
    ChangesModel,
    binaryText,
    changeDocQuery,
    conflictMessage,
    conflictReport,
    diffTitle,
    entryIdOf,
    entryLabel,
    entryView,
    fileDescription,
    fileView,
    formatTime,
    parseChangeDocQuery,
    revertMessage,
    sideText,
    type ChangeNode,
} from '../../src/changes';
import type { ChangeEntry, ChangeFile, ChangesDiffResult, ChangesRevertResult } from '../../src/requests';

const file = (over: Partial<ChangeFile> = {}): ChangeFile => ({
    path: '/w/src/a.go',
    uri: 'file:///w/src/a.go',
    name: 'a.go',
    where: 'disk',
    added: 2,
    removed: 1,
    created: false,
    deleted: false,
    ...over,
});

const local = (y: number, mo: number, d: number, h: number, mi: number, s = 0) => new Date(y, mo, d, h, mi, s).toISOString();

const entry = (id: string, time: string, over: Partial<ChangeEntry> = {}): ChangeEntry => ({
    id,
    time,
    tool: 'edit',
    callId: 'c-' + id,
    summary: 'edit a.go (+2 -1)',
    files: [file()],
    ...over,
});

test('entryLabel: the summary names the tool; else tool: summary', () => {
    assert.equal(entryLabel(entry('1', local(2025, 0, 1, 0, 0))), 'edit a.go (+2 -1)');
    assert.equal(entryLabel(entry('1', local(2025, 0, 1, 0, 0), { tool: 'shell_run', summary: 'go generate: 3 files' })), 'shell_run: go generate: 3 files');
    assert.equal(entryLabel(entry('1', local(2025, 0, 1, 0, 0), { tool: 'write', summary: '' })), 'write');
    // A tool whose name is a prefix of the summary's first word is not taken for it.
    assert.equal(entryLabel(entry('1', local(2025, 0, 1, 0, 0), { tool: 'edit', summary: 'editor b.go' })), 'edit: editor b.go');
});

test('formatTime: today, this year, earlier', () => {
    const now = new Date(2025, 5, 10, 18, 0, 0);
    assert.equal(formatTime(local(2025, 5, 10, 9, 5, 7), now), '09:05:07');
    assert.equal(formatTime(local(2025, 2, 4, 14, 3), now), 'Mar 4 14:03');
    assert.equal(formatTime(local(2023, 2, 4, 14, 3), now), '2023-03-04 14:03');
    assert.equal(formatTime('not a time', now), 'not a time');
});

test('file items: name, +added −removed, created and deleted marks', () => {
    assert.equal(fileDescription(file()), '+2 \u22121');
    assert.equal(fileDescription(file({ created: true, added: 5, removed: 0 })), 'created +5 \u22120');
    assert.equal(fileDescription(file({ deleted: true, added: 0, removed: 7 })), 'deleted +0 \u22127');
    const e = entry('e1', local(2025, 0, 1, 0, 0));
    const v = fileView(e, file({ created: true }));
    assert.equal(v.label, 'a.go');
    assert.equal(v.icon, 'diff-added');
    assert.equal(v.contextValue, 'whale.changeFile');
    assert.equal(v.collapsible, false);
    assert.match(v.tooltip, /^\/w\/src\/a\.go\nchanged on disk/);
    assert.match(fileView(e, file({ where: 'editor' })).tooltip, /changed in the editor/);
    assert.equal(fileView(e, file({ deleted: true })).icon, 'diff-removed');
    assert.equal(fileView(e, file({ name: '', path: '/w/x/b.txt' })).label, 'b.txt');
    assert.equal(
        fileView(e, file({ name: 'x.o', relPath: 'build/sub/x.o', path: '/w/build/sub/x.o' })).label,
        'build/sub/x.o',
        'the path from the workspace folder',
    );
});

test('entry items: label, time, id as tooltip, revert icon, menus', () => {
    const now = new Date(2025, 0, 1, 12, 0, 0);
    const v = entryView(entry('01J-abc', local(2025, 0, 1, 11, 59, 30)), now);
    assert.deepEqual(
        { label: v.label, description: v.description, context: v.contextValue, collapsible: v.collapsible, icon: v.icon },
        { label: 'edit a.go (+2 -1)', description: '11:59:30', context: 'whale.changeEntry', collapsible: true, icon: 'edit' },
    );
    assert.equal(v.tooltip.split('\n')[0], '01J-abc');
    const r = entryView(entry('r1', local(2025, 0, 1, 11, 0), { tool: 'changes_revert', summary: 'changes_revert a.go (+1 -2)', revertOf: ['01J-abc'] }), now);
    assert.equal(r.icon, 'discard');
    assert.match(r.tooltip, /reverts 01J-abc/);
    assert.notEqual(v.id, r.id);
});

test('ChangesModel: newest first, files as children, dropped last, through()', () => {
    const m = new ChangesModel();
    const older = entry('a', local(2025, 0, 1, 10, 0));
    const newer = entry('b', local(2025, 0, 1, 11, 0), { files: [file(), file({ path: '/w/b.go', uri: 'file:///w/b.go', name: 'b.go' })] });
    const newest = entry('c', local(2025, 0, 1, 12, 0), { files: [] });
    assert.equal(m.set({ entries: [older, newest, newer], dropped: 2 }), true);
    assert.equal(m.set({ entries: [newest, newer, older], dropped: 2 }), false, 'the same listing changes nothing');
    const roots = m.roots();
    assert.deepEqual(
        roots.map((n) => (n.kind === 'entry' ? n.entry.id : n.kind)),
        ['c', 'b', 'a', 'dropped'],
    );
    assert.deepEqual(roots[3], { kind: 'dropped', count: 2 });
    const kids = m.children(roots[1]);
    assert.deepEqual(
        kids.map((k) => (k.kind === 'file' ? `${k.entry.id}:${k.file.name}` : k.kind)),
        ['b:a.go', 'b:b.go'],
    );
    assert.deepEqual(m.children(kids[0]), []);
    assert.deepEqual(m.children(roots[0]), []);
    assert.equal(entryView(newest).collapsible, false);
    assert.deepEqual(
        m.through('b').map((e) => e.id),
        ['c', 'b'],
    );
    assert.deepEqual(
        m.through('a').map((e) => e.id),
        ['c', 'b', 'a'],
    );
    assert.deepEqual(m.through('nope'), []);
    assert.equal(m.entry('a'), older);
    assert.equal(m.size, 3);
    assert.equal(m.clear(), true);
    assert.deepEqual(m.roots(), []);
});

test('entryIdOf: tree nodes, entries and ids', () => {
    const e = entry('x1', local(2025, 0, 1, 0, 0));
    const entryNode: ChangeNode = { kind: 'entry', entry: e };
    const fileNode: ChangeNode = { kind: 'file', entry: e, file: e.files[0] };
    assert.equal(entryIdOf({ kind: 'change', node: entryNode }), 'x1');
    assert.equal(entryIdOf({ kind: 'change', node: fileNode }), 'x1');
    assert.equal(entryIdOf(entryNode), 'x1');
    assert.equal(entryIdOf(e), 'x1');
    assert.equal(entryIdOf('x2'), 'x2');
    for (const none of [undefined, '', {}, { kind: 'change', node: { kind: 'dropped', count: 1 } }, { kind: 'section', label: 'Changes' }]) {
        assert.equal(entryIdOf(none), undefined, JSON.stringify(none));
    }
});

test('whale-change: queries round-trip, with odd paths', () => {
    for (const ref of [
        { kind: 'side', id: '01J&x=1', path: '/w/a b/c?.go', side: 'before' },
        { kind: 'side', id: 'e', path: 'C:\\w\\ü.txt', side: 'after' },
        { kind: 'conflicts', key: '3' },
    ] as const) {
        assert.deepEqual(parseChangeDocQuery(changeDocQuery(ref)), ref);
    }
    assert.equal(parseChangeDocQuery(''), undefined);
    assert.equal(parseChangeDocQuery('id=1&path=/a&side=middle'), undefined);
});

const diffFile = (over: Partial<ChangesDiffResult['files'][number]> = {}) => ({
    path: '/w/src/a.go',
    uri: 'file:///w/src/a.go',
    before: 'old\n',
    after: 'new\n',
    beforeExists: true,
    afterExists: true,
    binary: false,
    ...over,
});

test('sideText: texts, the missing side of a created or deleted file is empty, binary placeholder', () => {
    assert.equal(sideText(diffFile(), 'before'), 'old\n');
    assert.equal(sideText(diffFile(), 'after'), 'new\n');
    const created = diffFile({ before: undefined, beforeExists: false });
    assert.equal(sideText(created, 'before'), '');
    assert.equal(sideText(created, 'after'), 'new\n');
    const deleted = diffFile({ after: undefined, afterExists: false });
    assert.equal(sideText(deleted, 'after'), '');
    const bin = diffFile({ before: undefined, after: undefined, binary: true });
    assert.equal(sideText(bin, 'before'), binaryText);
    assert.equal(sideText(diffFile({ after: '' }), 'after'), '', 'an emptied file');
});

test('ChangeDocuments: one fetch per entry, sides and reports, failures not kept, bounded', async () => {
    const fetched: string[] = [];
    let fail = true;
    const docs = new ChangeDocuments(async (id) => {
        fetched.push(id);
        if (id === 'bad' && fail) {
            throw new Error('not_found');
        }
        return {
            id,
            diff: '',
            files: [diffFile(), diffFile({ path: '/w/new.txt', uri: 'file:///w/new.txt', before: undefined, beforeExists: false, after: `made by ${id}\n` })],
        };
    }, 2);
    assert.equal(await docs.content({ kind: 'side', id: 'e1', path: '/w/src/a.go', side: 'before' }), 'old\n');
    assert.equal(await docs.content({ kind: 'side', id: 'e1', path: '/w/src/a.go', side: 'after' }), 'new\n');
    assert.equal(await docs.content({ kind: 'side', id: 'e1', path: '/w/new.txt', side: 'before' }), '');
    assert.equal(await docs.content({ kind: 'side', id: 'e1', path: '/w/new.txt', side: 'after' }), 'made by e1\n');
    assert.deepEqual(fetched, ['e1'], 'an entry is fetched once');
    await assert.rejects(docs.content({ kind: 'side', id: 'e1', path: '/w/other', side: 'after' }), /did not change \/w\/other/);
    await assert.rejects(docs.content({ kind: 'side', id: 'bad', path: '/w/src/a.go', side: 'after' }), /not_found/);
    fail = false;
    assert.equal(await docs.content({ kind: 'side', id: 'bad', path: '/w/src/a.go', side: 'after' }), 'new\n', 'a failure is fetched again');
    // Bounded to 2 ids: e1 was used less recently than bad, e2 pushes it out.
    await docs.diff('e2');
    await docs.diff('bad');
    await docs.diff('e1');
    assert.deepEqual(fetched, ['e1', 'bad', 'bad', 'e2', 'e1']);
    const key = docs.addReport('the report');
    assert.notEqual(docs.addReport('another'), key);
    assert.equal(await docs.content({ kind: 'conflicts', key }), 'the report');
    await assert.rejects(docs.content({ kind: 'conflicts', key: '999' }), /gone/);
});

test('revert messages and the conflict report', () => {
    const rel = (p: string) => p.replace('/w/', '');
    const ok: ChangesRevertResult = { ok: true, code: '', text: 'Reverted e1 in 2 files.\n\nEdited a.go', reverted: ['e1'], entry: 'r1' };
    assert.equal(
        revertMessage(ok, (id) => (id === 'e1' ? 'edit a.go (+2 -1)' : undefined)),
        'Reverted "edit a.go (+2 -1)" (2 files).',
    );
    assert.equal(revertMessage(ok), 'Reverted change e1 (2 files).');
    assert.equal(revertMessage({ ...ok, reverted: ['e3', 'e2', 'e1'], text: 'Reverted e3, e2, e1 in 1 file.' }), 'Reverted 3 changes, newest first (1 file).');
    assert.equal(revertMessage({ ...ok, reverted: [], text: 'nothing to do\nmore' }), 'nothing to do');
    const refused: ChangesRevertResult = {
        ok: false,
        code: 'write_conflict',
        text: 'a.go changed since',
        reverted: [],
        conflicts: [{ path: '/w/a.go', reason: 'the same lines changed since', hunks: ['@@ -1,1 +1,1 @@\n-new\n+old\n', '@@ -9 +9 @@\n-x\n+y'] }],
    };
    assert.equal(conflictMessage(refused, rel), 'Not reverted: a.go changed since, where the revert would write (1 conflict). Nothing was changed.');
    const report = conflictReport(refused, '"edit a.go (+2 -1)"', rel);
    assert.match(report, /^# whale could not revert "edit a\.go \(\+2 -1\)": write_conflict\n/);
    assert.match(report, /# a\.go: the same lines changed since\n@@ -1,1 \+1,1 @@\n-new\n\+old\n@@ -9 \+9 @@\n-x\n\+y\n/);
});

test('diffTitle names the file, the tool and the time', () => {
    const e = entry('e', local(2025, 0, 1, 8, 30, 0));
    assert.equal(diffTitle(e, e.files[0], new Date(2025, 0, 1, 9)), 'a.go (edit, 08:30:00) before \u2194 after');
});
