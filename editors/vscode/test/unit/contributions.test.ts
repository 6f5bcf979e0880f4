import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readCatalog, readSettings, syncedPackageJson } from '../../scripts/catalog';
import { catalogToolName, displayName, firstSentence, languageModelTools, lmToolName, type SettingsResult } from '../../src/contributions';
import type { ToolInfo } from '../../src/requests';

const root = path.resolve(__dirname, '../../..');

const settings: SettingsResult = {
    settings: [{ key: 'shell.yieldTimeMs', schema: { type: 'integer', default: 15000, markdownDescription: 'How long shell_run waits.' } }],
};

const catalog: ToolInfo[] = [
    {
        name: 'read_file',
        description: 'Reads a file. Returns numbered lines.',
        inputSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
        readOnly: true,
        group: 'files',
    },
    { name: 'shell_run', description: 'Runs a command', inputSchema: { type: 'object' }, readOnly: false, group: 'shell' },
    { name: 'test_ask', description: 'Test tool.', inputSchema: { type: 'object' }, readOnly: true, group: 'test' },
];

test('languageModelTools maps each catalog tool to whale_<tool>', () => {
    const got = languageModelTools(catalog);
    assert.deepEqual(
        got.map((t) => t.name),
        ['whale_read_file', 'whale_shell_run'],
    );
    const read = got[0];
    assert.equal(read.displayName, 'Whale: Read File');
    assert.equal(read.toolReferenceName, 'whale_read_file');
    assert.equal(read.modelDescription, 'Reads a file. Returns numbered lines.');
    assert.equal(read.userDescription, 'Reads a file.');
    assert.equal(read.canBeReferencedInPrompt, true);
    assert.deepEqual(read.tags, ['whale', 'whale-files']);
    assert.deepEqual(read.inputSchema, catalog[0].inputSchema);
    assert.equal(read.when, '!whale.toolsViaMcp');
});

test('tool names follow VS Code rules', () => {
    for (const t of languageModelTools(catalog)) {
        assert.match(t.name, /^[\w-]+$/);
        assert.doesNotMatch(t.name, /^(copilot_|vscode_)/);
    }
    assert.throws(() => languageModelTools([{ ...catalog[0], name: 'bad name' }]), /valid language-model tool name/);
});

test('names round-trip', () => {
    for (const [tool, lm] of [
        ['edit', 'whale_edit'],
        ['write_stdin', 'whale_write_stdin'],
    ]) {
        assert.equal(lmToolName(tool), lm, `lmToolName(${tool})`);
        assert.equal(catalogToolName(lm), tool, `catalogToolName(${lm})`);
    }
    assert.equal(catalogToolName('copilot_x'), undefined);
});

test('displayName and firstSentence', () => {
    for (const [input, want] of [
        ['list_dir', 'List Directory'],
        ['write_stdin', 'Write Stdin'],
        ['grep', 'Grep'],
    ]) {
        assert.equal(displayName(input), want, `displayName(${input})`);
    }
    assert.equal(firstSentence('Replace text.\nUse it when...'), 'Replace text.');
    assert.equal(firstSentence('No period here'), 'No period here');
    assert.equal(firstSentence('Version 1.2 is fine. Next.'), 'Version 1.2 is fine.');
});

test('syncedPackageJson puts tools and settings into contributes and keeps the rest', () => {
    const text = JSON.stringify({ name: 'x', contributes: { commands: [{ command: 'a' }] } });
    const pkg = JSON.parse(syncedPackageJson(text, { tools: catalog }, settings));
    assert.deepEqual(pkg.contributes.commands, [{ command: 'a' }]);
    assert.equal(pkg.contributes.languageModelTools.length, 2);
    assert.ok(pkg.contributes.configuration.properties['whale.serverPath']);
    assert.deepEqual(pkg.contributes.configuration.properties['whale.shell.yieldTimeMs'], settings.settings[0].schema);
});

test("package.json is in sync with the catalog of a session with the extension's capabilities and `whale-ls settings --json`", async (t) => {
    const server = process.env.WHALE_LS_PATH || path.join(root, 'bin', 'whale-ls');
    if (!existsSync(server)) {
        if (process.env.WHALE_SKIP_CATALOG === '1') {
            t.skip('no whale-ls binary');
            return;
        }
        assert.fail(`no whale-ls binary at ${server}: run \`npm run build:server\` (or set WHALE_LS_PATH)`);
    }
    const file = path.join(root, 'package.json');
    const text = readFileSync(file, 'utf8');
    assert.equal(syncedPackageJson(text, await readCatalog(server), readSettings(server)), text, 'package.json is out of date; run `npm run sync`');
});
