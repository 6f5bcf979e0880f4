import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { clientSettings, languageModelTools } from '../../src/contributions';
import { languageModelToolsWhen, mcpServerSetting, toolSurface, toolsViaMcpContextKey, type ToolSurfaceInput } from '../../src/toolSurface';

const root = path.resolve(__dirname, '../../..');

const on: ToolSurfaceInput = { mcpServerEnabled: true, mcpApi: true, folderScheme: 'file', serverFound: true };

test('toolSurface: one surface at a time, the language-model tools unless the MCP server can be offered', () => {
    for (const tc of [
        { name: 'default (setting off)', input: { ...on, mcpServerEnabled: false }, mcpServer: false, fallback: undefined },
        {
            name: 'setting off, nothing else there',
            input: { mcpServerEnabled: false, mcpApi: false, folderScheme: undefined, serverFound: false },
            mcpServer: false,
            fallback: undefined,
        },
        { name: 'setting on', input: on, mcpServer: true, fallback: undefined },
        { name: 'setting on, VS Code before 1.101', input: { ...on, mcpApi: false }, mcpServer: false, fallback: /1\.101/ },
        { name: 'setting on, no folder', input: { ...on, folderScheme: undefined }, mcpServer: false, fallback: /no workspace folder/ },
        {
            name: 'setting on, remote folder',
            input: { ...on, folderScheme: 'vscode-remote' },
            mcpServer: false,
            fallback: /not a local folder \(vscode-remote:\)/,
        },
        { name: 'setting on, no whale-ls', input: { ...on, serverFound: false }, mcpServer: false, fallback: /not found/ },
    ]) {
        const got = toolSurface(tc.input);
        assert.equal(got.mcpServer, tc.mcpServer, `toolSurface(${tc.name}).mcpServer = ${got.mcpServer}, want ${tc.mcpServer}`);
        if (tc.fallback) {
            assert.match(got.fallback ?? '', tc.fallback, `toolSurface(${tc.name}).fallback`);
        } else {
            assert.equal(got.fallback, undefined, `toolSurface(${tc.name}).fallback = ${got.fallback}, want none`);
        }
    }
});

test('the contributed tools are hidden exactly while the context key says the tools come through MCP', () => {
    assert.equal(languageModelToolsWhen, `!${toolsViaMcpContextKey}`);
    const tools = languageModelTools([{ name: 'edit', description: 'Edit.', inputSchema: { type: 'object', properties: {} }, readOnly: false, group: 'edit' }]);
    assert.deepEqual(
        tools.map((t) => t.when),
        [languageModelToolsWhen],
    );
});

test('whale.mcpServer.enabled is an extension setting, off by default', () => {
    const s = clientSettings[mcpServerSetting];
    assert.ok(s, `clientSettings has no ${mcpServerSetting}`);
    assert.equal(s.type, 'boolean');
    assert.equal(s.default, false);
    assert.equal('registerMcpServer' in clientSettings, false, 'the old always-on setting is gone');
});

test('package.json: every whale_* tool has the when clause, and the MCP server definition provider is declared', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const tools: Array<{ name: string; when?: string }> = pkg.contributes.languageModelTools;
    assert.ok(tools.length > 0, 'no languageModelTools');
    for (const t of tools) {
        assert.equal(t.when, languageModelToolsWhen, `${t.name}.when = ${t.when}, want ${languageModelToolsWhen}`);
    }
    assert.deepEqual(
        pkg.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id),
        ['whale.mcp'],
    );
    assert.equal(pkg.contributes.configuration.properties[`whale.${mcpServerSetting}`]?.default, false);
});
