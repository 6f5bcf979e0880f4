// The package.json contributions that come from the server's catalog
// (`whale-ls tools --json`) and from the settings table below. Pure: used by
// scripts/sync-package.ts, by the unit tests and by the extension itself.
import type { ToolInfo } from './requests';

/** The name of a catalog tool as a VS Code language-model tool. */
export function lmToolName(tool: string): string {
    return `whale_${tool}`;
}

/** The catalog tool behind a language-model tool name, or undefined. */
export function catalogToolName(lmName: string): string | undefined {
    return lmName.startsWith('whale_') ? lmName.slice('whale_'.length) : undefined;
}

export interface LanguageModelToolContribution {
    name: string;
    displayName: string;
    toolReferenceName: string;
    userDescription: string;
    modelDescription: string;
    canBeReferencedInPrompt: boolean;
    tags: string[];
    inputSchema: Record<string, unknown>;
}

const words: Record<string, string> = { stdin: 'Stdin', dir: 'Directory' };

/** "read_file" → "Read File", "list_dir" → "List Directory". */
export function displayName(tool: string): string {
    return tool
        .split('_')
        .map((w) => words[w] ?? w.charAt(0).toUpperCase() + w.slice(1))
        .join(' ');
}

/** The first sentence of a description, for people rather than models. */
export function firstSentence(text: string): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    const m = /^(.*?[.!?])(\s|$)/.exec(flat);
    const s = m ? m[1] : flat;
    return s.length > 200 ? s.slice(0, 197) + '...' : s;
}

/**
 * The `contributes.languageModelTools` entries for a catalog, in catalog
 * order. Names match VS Code's rule `[\w-]+` and never start with
 * `copilot_` or `vscode_`.
 */
export function languageModelTools(catalog: ToolInfo[]): LanguageModelToolContribution[] {
    return catalog
        .filter((t) => t.group !== 'test')
        .map((t) => {
            const name = lmToolName(t.name);
            if (!/^[\w-]+$/.test(name)) {
                throw new Error(`tool name ${JSON.stringify(t.name)} does not make a valid language-model tool name`);
            }
            return {
                name,
                displayName: `Whale: ${displayName(t.name)}`,
                toolReferenceName: name,
                userDescription: firstSentence(t.description),
                modelDescription: t.description,
                canBeReferencedInPrompt: true,
                tags: ['whale', `whale-${t.group}`],
                inputSchema: t.inputSchema,
            };
        });
}

/** One server setting, contributed as `whale.<key>`. */
export interface ServerSetting {
    key: string;
    schema: Record<string, unknown>;
}

/**
 * The server's settings (ARCHITECTURE.md "Settings"; toolbridge/settings.go).
 * Defaults here are documentation: only values the user set are sent, so the
 * server's own defaults apply otherwise.
 */
export const serverSettings: ServerSetting[] = [
    { key: 'shell.program', schema: { type: 'string', default: '', markdownDescription: 'Shell that runs `shell_run` commands (empty: `$SHELL`, else `/bin/sh`).' } },
    { key: 'shell.yieldTimeMs', schema: { type: 'integer', default: 15000, minimum: 0, markdownDescription: 'How long `shell_run` waits in the foreground before a task continues in the background and the model gets its `task_id`.' } },
    { key: 'shell.outputLimitBytes', schema: { type: 'integer', default: 0, minimum: 0, markdownDescription: 'Most output bytes of one task kept for the model (0: the server default, 1 MiB). The terminal always shows everything.' } },
    { key: 'execBoundary.mode', schema: { type: 'string', enum: ['enforce', 'best-effort', 'off'], enumDescriptions: ['Refuse to run commands when the exec boundary cannot be installed.', 'Run commands unchecked (and say so) when the exec boundary cannot be installed.', 'Do not check programs.'], default: 'enforce', markdownDescription: 'The exec boundary stops every program a shell task executes until the policy (`whale.execBoundary.rules`) allows it, asking you when a rule says `ask`. This says what happens where it cannot be installed.' } },
    { key: 'execBoundary.rules', schema: { type: 'array', items: { type: 'object', properties: { program: { type: 'string' }, argsPrefix: { type: 'array', items: { type: 'string' } }, argsAny: { type: 'array', items: { type: 'string' } }, decision: { type: 'string', enum: ['allow', 'ask', 'deny'] } }, required: ['program', 'decision'] }, markdownDescription: 'Exec policy rules `{program, argsPrefix?, argsAny?, decision: allow|ask|deny}`, matched on the resolved program, its name and (for ask/deny) copies of it; the strictest rule wins. When set, they replace the shipped defaults (ask before `sudo`, `dd`, `mkfs*`, `rm -r/-f`, `git push`, `npm publish`, power changes); an empty list allows everything.' } },
    { key: 'execBoundary.approvalTimeoutMs', schema: { type: 'integer', default: 0, minimum: 0, markdownDescription: 'How long an approval question waits for an answer before the program is denied (0: the server default, 120 s).' } },
    { key: 'read.approvedPaths', schema: { type: 'array', default: [], items: { type: 'string' }, markdownDescription: 'Folders outside the workspace that the read tools may read.' } },
    { key: 'skills.paths', schema: { type: 'array', default: [], items: { type: 'string' }, markdownDescription: 'Folders with skills for `load_skill`.' } },
    { key: 'edits.saveAfterApply', schema: { type: 'boolean', default: true, markdownDescription: 'Save documents after whale edited them in the editor, so that the next shell command sees the change on disk.' } },
    { key: 'web.search', schema: { type: 'object', default: {}, markdownDescription: 'Web search provider settings for the web tools.' } },
    { key: 'mcp.servers', schema: { type: 'object', default: {}, markdownDescription: 'MCP servers whose tools whale offers on demand (deferred tools).' } },
];

/** Settings of the extension itself, never sent to the server. */
export const clientSettings: Record<string, Record<string, unknown>> = {
    serverPath: { type: 'string', default: '', scope: 'machine-overridable', markdownDescription: 'Path of the `whale-ls` binary. Empty: the binary shipped in the extension, else `whale-ls` on `PATH`.' },
    'server.extraEnv': { type: 'object', default: {}, additionalProperties: { type: 'string' }, markdownDescription: 'Extra environment variables for the `whale-ls` process.' },
    'trace.server': { type: 'string', enum: ['off', 'messages', 'verbose'], default: 'off', markdownDescription: 'Trace the JSON-RPC traffic with whale-ls in the output channel **Whale Trace**.' },
    'terminals.reveal': { type: 'boolean', default: false, markdownDescription: 'Show a whale terminal as soon as its task starts (otherwise it opens in the background).' },
    registerMcpServer: { type: 'boolean', default: true, markdownDescription: 'Publish `whale-ls mcp` as an MCP server definition for chats that use MCP (VS Code 1.101 and later).' },
};

/** The `contributes.configuration` block. */
export function configuration(): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    for (const [k, schema] of Object.entries(clientSettings)) {
        properties[`whale.${k}`] = schema;
    }
    for (const s of serverSettings) {
        properties[`whale.${s.key}`] = { ...s.schema };
    }
    return { title: 'Whale', properties };
}

/**
 * The settings object for initializationOptions and
 * didChangeConfiguration: nested (`{shell:{yieldTimeMs:…}}`), with only the
 * keys for which `isSet` is true.
 */
export function serverSettingsObject(get: (key: string) => unknown, isSet: (key: string) => boolean): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const s of serverSettings) {
        if (!isSet(s.key)) {
            continue;
        }
        const value = get(s.key);
        if (value === undefined || value === null) {
            continue;
        }
        const [section, field] = s.key.split('.', 2);
        (out[section] ??= {})[field] = value;
    }
    return out;
}

/** The whole generated part of package.json's `contributes`. */
export function generatedContributes(catalog: ToolInfo[]): Record<string, unknown> {
    return { languageModelTools: languageModelTools(catalog), configuration: configuration() };
}
