import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readCatalog, readSettings, syncedPackageJson } from '../../scripts/catalog';
import {
    agentBuiltinTools,
    agentFile,
    catalogToolName,
    displayName,
    firstSentence,
    languageModelTools,
    lmToolName,
    toolSets,
    type SettingsResult,
} from '../../src/contributions';
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
    // VS Code puts the source before it ("Whale: Read File"); a prefix of our own doubled it.
    assert.equal(read.displayName, 'Read File');
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

test('toolSets: each tool in exactly one sub-set, `whale` holds the sub-sets, sub-sets come first', () => {
    const full: ToolInfo[] = [
        ...catalog,
        { name: 'edit', description: 'Edit.', inputSchema: { type: 'object' }, readOnly: false, group: 'edit' },
        { name: 'update_plan', description: 'Plan.', inputSchema: { type: 'object' }, readOnly: false, group: 'plan' },
        { name: 'rename', description: 'Rename.', inputSchema: { type: 'object' }, readOnly: false, group: 'edit' },
    ];
    const sets = toolSets(full);
    const byName = Object.fromEntries(sets.map((s) => [s.name, s.tools]));
    assert.deepEqual(byName['whale-files'], ['whale_read_file', 'whale_edit']);
    assert.deepEqual(byName['whale-shell'], ['whale_shell_run']);
    assert.deepEqual(byName['whale-plan'], ['whale_update_plan']);
    assert.deepEqual(byName['whale-language'], ['whale_rename'], 'a named tool wins over its group');
    assert.equal(byName['whale-web'], undefined, 'an empty sub-set is left out');
    assert.equal(sets[sets.length - 1].name, 'whale');
    assert.deepEqual(byName.whale, ['whale-files', 'whale-shell', 'whale-plan', 'whale-language']);
    for (const s of sets) {
        assert.match(s.name, /^[\w-]+$/);
    }
    assert.throws(() => toolSets([{ ...catalog[0], name: 'odd', group: 'nowhere' }]), /group nowhere.*subSets/);
});

test('agentFile: the Whale agent lists every whale tool and only built-ins whale has no equivalent of', () => {
    const text = agentFile(catalog);
    const header = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
    assert.match(header, /^name: Whale$/m);
    const tools = /^tools: \[(.*)\]$/m
        .exec(header)?.[1]
        .split(', ')
        .map((t) => t.replace(/'/g, ''));
    assert.deepEqual(tools, ['whale_read_file', 'whale_shell_run', ...agentBuiltinTools]);
    for (const builtin of ['edit', 'editFiles', 'runInTerminal', 'execute', 'runCommands', 'replace_string_in_file', 'run_in_terminal', 'terminal']) {
        assert.ok(!tools.includes(builtin), `the Whale agent must not offer ${builtin}`);
    }
});

test('agents/whale.agent.md is the one generated from the catalog', async (t) => {
    const server = process.env.WHALE_LS_PATH || path.join(root, 'bin', 'whale-ls');
    if (!existsSync(server)) {
        t.skip('no whale-ls binary (the package.json test above says how to build it)');
        return;
    }
    const have = readFileSync(path.join(root, 'agents', 'whale.agent.md'), 'utf8');
    assert.equal(have, agentFile((await readCatalog(server)).tools), 'agents/whale.agent.md is out of date; run `npm run sync`');
});
