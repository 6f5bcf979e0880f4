// The VS Code → LSP conversions of src/languageMapping.ts, on objects in the
// shapes VS Code's API returns (positions, severities and kinds as VS Code
// numbers them; a Uri stands in as an object that the converter turns into
// the client's URI string).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as map from '../../src/languageMapping';

interface FakeUri {
    fsPath: string;
}
const uri = (p: string): FakeUri => ({ fsPath: p });
const asUri = (u: FakeUri) => `file://${u.fsPath}`;
const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test('diagnostics: severity 0..3 becomes 1..4, a code {value, target} its value, no empty source or code', () => {
    const items = map.diagnosticItems(
        [
            [
                uri('/w/a.ts'),
                [
                    { range: r(2, 4, 2, 9), message: "Type 'number' is not assignable to type 'string'.", severity: 0, source: 'ts', code: 2322 },
                    { range: r(0, 0, 0, 1), message: 'unused', severity: 3, source: 'eslint', code: { value: 'no-unused-vars', target: { scheme: 'https' } } },
                    { range: r(5, 0, 5, 1), message: 'spelling', severity: 2, source: '', code: '' },
                ],
            ],
            [uri('/w/b.ts'), [{ range: r(1, 0, 1, 3), message: 'deprecated', severity: 1 }]],
        ],
        asUri,
    );
    assert.deepEqual(items, [
        { uri: 'file:///w/a.ts', range: r(2, 4, 2, 9), severity: 1, message: "Type 'number' is not assignable to type 'string'.", source: 'ts', code: 2322 },
        { uri: 'file:///w/a.ts', range: r(0, 0, 0, 1), severity: 4, message: 'unused', source: 'eslint', code: 'no-unused-vars' },
        { uri: 'file:///w/a.ts', range: r(5, 0, 5, 1), severity: 3, message: 'spelling' },
        { uri: 'file:///w/b.ts', range: r(1, 0, 1, 3), severity: 2, message: 'deprecated' },
    ]);
});

test('a range keeps only line and character of VS Code positions', () => {
    const pos = { line: 3, character: 7, translate() {}, isBefore() {} };
    assert.deepEqual(map.range({ start: pos, end: pos }), r(3, 7, 3, 7));
});

test('locations: Location stays, LocationLink keeps its target (a missing selection range is the target range)', () => {
    const got = map.locations<FakeUri>(
        [
            { uri: uri('/w/a.ts'), range: r(0, 16, 0, 21) },
            { targetUri: uri('/w/a.ts'), targetRange: r(0, 0, 2, 1), targetSelectionRange: r(0, 16, 0, 21), originSelectionRange: r(3, 0, 3, 5) },
            { targetUri: uri('/w/c.ts'), targetRange: r(4, 0, 4, 8) },
        ],
        asUri,
    );
    assert.deepEqual(got, [
        { uri: 'file:///w/a.ts', range: r(0, 16, 0, 21) },
        { targetUri: 'file:///w/a.ts', targetRange: r(0, 0, 2, 1), targetSelectionRange: r(0, 16, 0, 21), originSelectionRange: r(3, 0, 3, 5) },
        { targetUri: 'file:///w/c.ts', targetRange: r(4, 0, 4, 8), targetSelectionRange: r(4, 0, 4, 8) },
    ]);
    assert.deepEqual(map.locations(undefined, asUri), []);
});

test('hover: the contents of every provider become one markdown MarkupContent; nothing said is null', () => {
    const got = map.hover([
        { contents: [{ value: '\n```typescript\nfunction greet(name: string): string\n```\n' }, 'Says hello.'], range: r(1, 9, 1, 14) },
        { contents: [{ language: 'ts', value: 'let x: number' }, ''] },
    ]);
    assert.deepEqual(got, {
        contents: { kind: 'markdown', value: '```typescript\nfunction greet(name: string): string\n```\n\nSays hello.\n\n```ts\nlet x: number\n```' },
        range: r(1, 9, 1, 14),
    });
    assert.equal(map.hover([]), null);
    assert.equal(map.hover([{ contents: [' '] }]), null);
    assert.equal(map.hover(undefined), null);
});

test('document symbols: DocumentSymbol[] (kinds + 1, children kept); SymbolInformation[] when an entry has no selectionRange', () => {
    // VS Code's own result objects are both at once (location and selectionRange).
    const merged = [
        {
            name: 'Greeter',
            detail: '',
            kind: 4, // vscode.SymbolKind.Class; LSP 5
            range: r(0, 0, 4, 1),
            selectionRange: r(0, 13, 0, 20),
            location: { uri: uri('/w/a.ts'), range: r(0, 0, 4, 1) },
            children: [{ name: 'greet', kind: 5, range: r(1, 4, 3, 5), selectionRange: r(1, 4, 1, 9), children: [] }],
        },
    ];
    assert.deepEqual(map.documentSymbols(merged, asUri), [
        {
            name: 'Greeter',
            kind: 5,
            range: r(0, 0, 4, 1),
            selectionRange: r(0, 13, 0, 20),
            children: [{ name: 'greet', kind: 6, range: r(1, 4, 3, 5), selectionRange: r(1, 4, 1, 9), children: [] }],
        },
    ]);
    const infos = [{ name: 'greet', kind: 11, containerName: 'a', location: { uri: uri('/w/a.ts'), range: r(2, 0, 4, 1) } }];
    assert.deepEqual(map.documentSymbols(infos, asUri), [
        { name: 'greet', kind: 12, containerName: 'a', location: { uri: 'file:///w/a.ts', range: r(2, 0, 4, 1) } },
    ]);
    assert.deepEqual(map.workspaceSymbols(infos, asUri), [
        { name: 'greet', kind: 12, containerName: 'a', location: { uri: 'file:///w/a.ts', range: r(2, 0, 4, 1) } },
    ]);
    assert.deepEqual(map.documentSymbols(undefined, asUri), []);
});

test('rename: text edits become `changes`; with a file operation every part is a documentChanges entry, the operation with its kind', () => {
    const entries: Array<[FakeUri, map.CodeTextEdit[]]> = [
        [uri('/w/a.ts'), [{ range: r(0, 16, 0, 21), newText: 'welcome' }]],
        [
            uri('/w/b.ts'),
            [
                { range: r(0, 9, 0, 14), newText: 'welcome' },
                { range: r(2, 0, 2, 5), newText: 'welcome' },
            ],
        ],
    ];
    assert.deepEqual(map.workspaceEdit(entries, [], asUri), {
        changes: {
            'file:///w/a.ts': [{ range: r(0, 16, 0, 21), newText: 'welcome' }],
            'file:///w/b.ts': [
                { range: r(0, 9, 0, 14), newText: 'welcome' },
                { range: r(2, 0, 2, 5), newText: 'welcome' },
            ],
        },
    });
    const ops = [{ from: uri('/w/a.ts'), to: uri('/w/welcome.ts') }, { to: uri('/w/new.ts') }, { from: uri('/w/old.ts') }];
    assert.deepEqual(map.workspaceEdit(entries.slice(0, 1), ops, asUri), {
        documentChanges: [
            { textDocument: { uri: 'file:///w/a.ts', version: null }, edits: [{ range: r(0, 16, 0, 21), newText: 'welcome' }] },
            { kind: 'rename', oldUri: 'file:///w/a.ts', newUri: 'file:///w/welcome.ts' },
            { kind: 'create', uri: 'file:///w/new.ts' },
            { kind: 'delete', uri: 'file:///w/old.ts' },
        ],
    });
    assert.throws(() => map.workspaceEdit([[uri('/w/a.ts'), [{ range: r(0, 0, 0, 1) }]]], [], asUri), /a snippet edit\); rename the symbol with multi_edit/);
});

test("fileOperations reads the file operations of a WorkspaceEdit from the extension host's _allEntries()", () => {
    // The extension host's WorkspaceEdit (1.139): renameFile/createFile/deleteFile push {_type: 1, from, to}; text edits are _type 2.
    const edit = {
        _allEntries: () => [
            { _type: 2, uri: uri('/w/a.ts'), edit: { range: r(0, 0, 0, 1), newText: 'x' } },
            { _type: 1, from: uri('/w/a.ts'), to: uri('/w/b.ts'), options: undefined },
            { _type: 1, from: undefined, to: uri('/w/c.ts') },
        ],
    };
    assert.deepEqual(map.fileOperations(edit), [
        { from: uri('/w/a.ts'), to: uri('/w/b.ts') },
        { from: undefined, to: uri('/w/c.ts') },
    ]);
    assert.deepEqual(map.fileOperations({}), []);
    assert.deepEqual(map.fileOperations(undefined), []);
});

test('PublicationCounts: per URI the diagnostics changes seen; URIs never diagnosed are left out', () => {
    const counts = new map.PublicationCounts();
    assert.equal(counts.of(['file:///w/a.ts']), undefined);
    counts.changed(['file:///w/a.ts', 'file:///w/b.ts']);
    counts.changed(['file:///w/a.ts']);
    assert.deepEqual(counts.of(['file:///w/a.ts', 'file:///w/b.ts', 'file:///w/c.ts']), { 'file:///w/a.ts': 2, 'file:///w/b.ts': 1 });
});
