// The generated `whale.*` settings: from `whale-ls settings --json`'s list to
// package.json's configuration properties, back to the object sent to the
// server, and the --check report that names what is out of date.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageDrift, syncedPackageJson } from '../../scripts/catalog';
import { clientSettings, configuration, serverSettingKeys, serverSettingProperties, serverSettingsObject, type ServerSetting } from '../../src/contributions';

const rulesSchema = {
    type: 'array',
    markdownDescription: 'Rules.',
    default: [{ program: 'sudo', decision: 'ask' }],
    items: { type: 'object', properties: { program: { type: 'string' } }, required: ['program'], additionalProperties: false },
};

const list: ServerSetting[] = [
    { key: 'shell.program', schema: { type: 'string', markdownDescription: 'Shell. Empty: `/bin/bash`, else `/bin/sh`.', default: '' } },
    { key: 'execBoundary.rules', schema: rulesSchema },
    { key: 'web.allowPrivate', schema: { type: 'boolean', markdownDescription: 'Private addresses.', default: false } },
];

test('serverSettingProperties: whale.<key> → the schema as the server gave it, in its order', () => {
    const got = serverSettingProperties(list);
    assert.deepEqual(Object.keys(got), ['whale.shell.program', 'whale.execBoundary.rules', 'whale.web.allowPrivate']);
    assert.deepEqual(got['whale.execBoundary.rules'], rulesSchema);
    assert.equal(got['whale.web.allowPrivate'].default, false, 'a false default is kept');
    assert.equal(got['whale.shell.program'].default, '', 'an empty default is kept');
    got['whale.shell.program'].default = 'changed';
    assert.equal(list[0].schema.default, '', 'the input is not changed through the output');
    assert.deepEqual(serverSettingProperties([]), {});
});

test('serverSettingProperties refuses bad lists, naming the key', () => {
    for (const [bad, re] of [
        [[{ key: 'shell', schema: { type: 'string', markdownDescription: 'x' } }], /"shell" is not a section\.field/],
        [[{ key: 'a.b.c', schema: { type: 'string', markdownDescription: 'x' } }], /"a\.b\.c" is not a section\.field/],
        [[list[0], list[0]], /shell\.program is listed twice/],
        [[{ key: 'trace.server', schema: { type: 'string', markdownDescription: 'x' } }], /trace\.server has the name of an extension setting/],
        [[{ key: 'web.search', schema: { type: 'object' } }], /web\.search has no type or markdownDescription/],
    ] as [ServerSetting[], RegExp][]) {
        assert.throws(() => serverSettingProperties(bad), re);
    }
});

test('configuration: the extension settings first, then the server settings', () => {
    const { title, properties } = configuration(list);
    assert.equal(title, 'Whale');
    const own = Object.keys(clientSettings).map((k) => `whale.${k}`);
    assert.deepEqual(Object.keys(properties), [...own, 'whale.shell.program', 'whale.execBoundary.rules', 'whale.web.allowPrivate']);
    for (const name of ['whale.serverPath', 'whale.server.extraEnv', 'whale.trace.server', 'whale.terminals.reveal', 'whale.mcpServer.enabled']) {
        assert.ok(properties[name], `${name} is an extension setting`);
    }
    for (const [k, v] of Object.entries(properties)) {
        assert.ok(typeof v.markdownDescription === 'string' && v.markdownDescription.length > 5, `${k} has no description`);
    }
});

test('serverSettingKeys reads the server keys back from package.json, without the extension settings', () => {
    assert.deepEqual(serverSettingKeys(configuration(list).properties), ['shell.program', 'execBoundary.rules', 'web.allowPrivate']);
    assert.deepEqual(serverSettingKeys({ 'other.x': {}, 'whale.trace.server': {} }), []);
    assert.deepEqual(serverSettingKeys(undefined), []);
});

test('serverSettingsObject sends only what is set, nested', () => {
    const keys = serverSettingKeys(configuration(list).properties);
    const values: Record<string, unknown> = { 'shell.program': '/bin/zsh', 'execBoundary.rules': [], 'web.allowPrivate': true };
    const set = new Set(['shell.program', 'execBoundary.rules']);
    assert.deepEqual(
        serverSettingsObject(
            keys,
            (k) => values[k],
            (k) => set.has(k),
        ),
        { shell: { program: '/bin/zsh' }, execBoundary: { rules: [] } },
    );
    assert.deepEqual(
        serverSettingsObject(
            keys,
            () => undefined,
            () => true,
        ),
        {},
    );
    assert.deepEqual(
        serverSettingsObject(
            ['shell.program'],
            () => 'x',
            () => true,
        ),
        { shell: { program: 'x' } },
    );
});

test('packageDrift names each out-of-date setting and tool', () => {
    const base = JSON.stringify({ name: 'x', contributes: {} });
    const tool = { name: 'grep', description: 'Search.', inputSchema: { type: 'object' }, readOnly: true, group: 'search' };
    const good = syncedPackageJson(base, { tools: [tool] }, { settings: list });
    assert.deepEqual(packageDrift(good, good), []);

    const old = syncedPackageJson(
        base,
        { tools: [tool] },
        {
            settings: [
                { key: 'shell.program', schema: { type: 'string', markdownDescription: 'Shell (empty: `$SHELL`).', default: '' } },
                { key: 'execBoundary.rules', schema: rulesSchema },
                { key: 'web.gone', schema: { type: 'boolean', markdownDescription: 'Removed.' } },
            ],
        },
    );
    const drift = packageDrift(old, good).join('\n');
    assert.match(drift, /setting whale\.shell\.program differs from `whale-ls settings --json` \(markdownDescription\)/);
    assert.match(drift, /setting whale\.web\.allowPrivate is missing/);
    assert.match(drift, /setting whale\.web\.gone is no longer generated/);
    assert.doesNotMatch(drift, /execBoundary\.rules/);

    const ownChanged = good.replace('Trace the JSON-RPC traffic', 'Trace traffic');
    assert.match(packageDrift(ownChanged, good).join('\n'), /setting whale\.trace\.server differs from clientSettings in src\/contributions\.ts/);

    const noTool = syncedPackageJson(base, { tools: [] }, { settings: list });
    assert.match(packageDrift(noTool, good).join('\n'), /language-model tool whale_grep is missing/);

    const reordered = syncedPackageJson(base, { tools: [tool] }, { settings: [list[1], list[0], list[2]] });
    assert.match(packageDrift(reordered, good).join('\n'), /another order/);

    assert.match(packageDrift(good.replace(/\n {4}/g, '\n  '), good).join('\n'), /formatting/);
});

test('package.json: settings that start programs or relax a guard cannot be set by a workspace', () => {
    // Read the shipped package.json: the scope must survive generation.
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
    const properties: Record<string, { scope?: string }> = pkg.contributes.configuration.properties;
    // machine: paths and programs, read from the settings of the machine the server runs on.
    for (const name of [
        'whale.serverPath',
        'whale.server.extraEnv',
        'whale.shell.program',
        'whale.read.approvedPaths',
        'whale.skills.paths',
        'whale.mcp.servers',
    ]) {
        assert.equal(properties[name]?.scope, 'machine', `${name} must have scope "machine" so that a workspace cannot set it`);
    }
    // application: the user's policy, the same in local and remote windows.
    for (const name of ['whale.execBoundary.mode', 'whale.execBoundary.rules', 'whale.web.allowPrivate', 'whale.web.search']) {
        assert.equal(properties[name]?.scope, 'application', `${name} must have scope "application" so that a workspace cannot set it`);
    }
    assert.equal(properties['whale.shell.yieldTimeMs']?.scope, undefined, 'harmless settings stay settable per workspace');
});
