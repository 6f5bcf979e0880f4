// The package.json contributions that come from the server: the catalog
// (whale/tools of a session with the extension's capabilities) and the
// settings (`whale-ls settings --json`), plus the extension's own settings. Pure: used by scripts/sync-package.ts,
// by the unit tests and by the extension itself.
import type { ToolInfo } from './requests';
import { languageModelToolsWhen, mcpServerSetting } from './toolSurface';

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
    /** Hides the tool from the chat while whale's tools come from its MCP server (src/toolSurface.ts). */
    when: string;
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
                // The chat's tool picker and `#` completion put the source ("Whale") before it already.
                displayName: displayName(t.name),
                toolReferenceName: name,
                userDescription: firstSentence(t.description),
                modelDescription: t.description,
                canBeReferencedInPrompt: true,
                tags: ['whale', `whale-${t.group}`],
                inputSchema: t.inputSchema,
                when: languageModelToolsWhen,
            };
        });
}

/** One server setting as `whale-ls settings --json` lists it (toolbridge.SettingSpec). */
export interface ServerSetting {
    /** Dotted key, e.g. `shell.yieldTimeMs`; contributed as `whale.<key>`. */
    key: string;
    /** JSON schema with default and markdownDescription, used as the property as it is. */
    schema: Record<string, unknown>;
}

/** The output of `whale-ls settings --json`. */
export interface SettingsResult {
    settings: ServerSetting[];
}

// ---------------------------------------------------------------------------
// Extension-only settings: hand-written here and nowhere else. Every other
// `whale.*` setting is the server's and is generated from
// `whale-ls settings --json` (toolbridge/settings.go) by `npm run sync`.
// ---------------------------------------------------------------------------

/**
 * Settings of the extension itself, never sent to the server. The two that
 * choose the program to start and its environment are user-only (`machine`
 * scope): a repository's `.vscode/settings.json` must not pick them.
 */
export const clientSettings: Record<string, Record<string, unknown>> = {
    serverPath: {
        type: 'string',
        default: '',
        scope: 'machine',
        markdownDescription: 'Path of the `whale-ls` binary. Empty: the binary shipped in the extension, else `whale-ls` on `PATH`.',
    },
    'server.extraEnv': {
        type: 'object',
        default: {},
        additionalProperties: { type: 'string' },
        scope: 'machine',
        markdownDescription: 'Extra environment variables for the `whale-ls` process.',
    },
    'trace.server': {
        type: 'string',
        enum: ['off', 'messages', 'verbose'],
        default: 'off',
        markdownDescription: 'Trace the JSON-RPC traffic with whale-ls in the output channel **Whale Trace**.',
    },
    'terminals.reveal': {
        type: 'boolean',
        default: false,
        markdownDescription: 'Show a whale terminal as soon as its task starts (otherwise it opens in the background).',
    },
    [mcpServerSetting]: {
        type: 'boolean',
        default: false,
        markdownDescription:
            "Offer whale's tools to VS Code chat through the MCP server definition **Whale** (`whale-ls mcp`, VS Code 1.101 and later) instead of as the extension's language-model tools `whale_*`, which are then hidden from the chat, so that each tool is there once. For chats that only take tools from MCP servers. Needs a local workspace folder; without one, or on an older VS Code, the `whale_*` tools stay.",
    },
};

// ---------------------------------------------------------------------------

/**
 * The configuration properties of the server's settings, `whale.<key>` →
 * the schema from `whale-ls settings --json`, in the server's order. Throws
 * on a key that is not `section.field`, is listed twice, or collides with an
 * extension setting.
 */
export function serverSettingProperties(settings: ServerSetting[]): Record<string, Record<string, unknown>> {
    const properties: Record<string, Record<string, unknown>> = {};
    for (const s of settings) {
        if (!/^[A-Za-z][\w-]*\.[A-Za-z][\w-]*$/.test(s.key)) {
            throw new Error(`server setting ${JSON.stringify(s.key)} is not a section.field key; fix the entry in toolbridge/settings.go`);
        }
        if (s.key in clientSettings) {
            throw new Error(`server setting ${s.key} has the name of an extension setting; rename one of them`);
        }
        const name = `whale.${s.key}`;
        if (name in properties) {
            throw new Error(`server setting ${s.key} is listed twice by \`whale-ls settings --json\`; remove one entry in toolbridge/settings.go`);
        }
        if (typeof s.schema?.type !== 'string' || typeof s.schema.markdownDescription !== 'string') {
            throw new Error(`server setting ${s.key} has no type or markdownDescription; complete its entry in toolbridge/settings.go`);
        }
        properties[name] = { ...s.schema };
    }
    return properties;
}

/** The `contributes.configuration` block: the extension's settings, then the server's. */
export function configuration(settings: ServerSetting[]): { title: string; properties: Record<string, Record<string, unknown>> } {
    const properties: Record<string, Record<string, unknown>> = {};
    for (const [k, schema] of Object.entries(clientSettings)) {
        properties[`whale.${k}`] = schema;
    }
    return { title: 'Whale', properties: { ...properties, ...serverSettingProperties(settings) } };
}

/**
 * The server's setting keys (`shell.yieldTimeMs`, …) among package.json's
 * configuration properties: every `whale.*` property that is not an
 * extension setting.
 */
export function serverSettingKeys(properties: Record<string, unknown> | undefined): string[] {
    return Object.keys(properties ?? {})
        .filter((name) => name.startsWith('whale.'))
        .map((name) => name.slice('whale.'.length))
        .filter((key) => !(key in clientSettings));
}

/**
 * The settings object for initializationOptions and
 * didChangeConfiguration: nested (`{shell:{yieldTimeMs:…}}`), with only the
 * keys for which `isSet` is true.
 */
export function serverSettingsObject(keys: string[], get: (key: string) => unknown, isSet: (key: string) => boolean): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const key of keys) {
        if (!isSet(key)) {
            continue;
        }
        const value = get(key);
        if (value === undefined || value === null) {
            continue;
        }
        const [section, field] = key.split('.', 2);
        (out[section] ??= {})[field] = value;
    }
    return out;
}

// ---------------------------------------------------------------------------
// Tool sets and the Whale agent
// ---------------------------------------------------------------------------

/** One `contributes.languageModelToolSets` entry (VS Code 1.139: name, description, icon, tools). */
export interface ToolSetContribution {
    name: string;
    description: string;
    icon: string;
    /** Tool reference names (`whale_edit`) or names of tool sets listed before this one. */
    tools: string[];
}

/** The tool set `#whale`: every whale tool, through the sub-sets. */
export const whaleToolSet = 'whale';

/** The sub-sets of `#whale`, in picker order; `groups` are catalog groups, `names` single tools (they win). */
const subSets: Array<{ name: string; description: string; icon: string; groups: string[]; names: string[] }> = [
    {
        name: 'whale-files',
        description: 'Read, search, edit and revert files through whale (journaled, version-checked edits)',
        icon: '$(files)',
        groups: ['files', 'search', 'edit'],
        names: [],
    },
    {
        name: 'whale-shell',
        description: "Shell commands in whale's editor terminals, behind its exec boundary",
        icon: '$(terminal)',
        groups: ['shell'],
        names: [],
    },
    {
        name: 'whale-plan',
        description: "The plan, the todo list and questions to you, shown in whale's view",
        icon: '$(checklist)',
        groups: ['plan', 'todo', 'input'],
        names: [],
    },
    {
        name: 'whale-language',
        description: "What VS Code's language servers know: problems, symbols, definitions, references, hover, rename",
        icon: '$(symbol-class)',
        groups: [],
        names: ['problems', 'symbols', 'document_symbols', 'definition', 'references', 'hover', 'rename'],
    },
    { name: 'whale-web', description: 'Web search and fetching pages', icon: '$(globe)', groups: ['web'], names: [] },
];

/**
 * `contributes.languageModelToolSets`: one sub-set per kind of tool, then
 * `whale` holding the sub-sets. Every contributed tool is in exactly one
 * sub-set; a tool whose catalog group no sub-set takes throws, naming where to
 * place it.
 */
export function toolSets(catalog: ToolInfo[]): ToolSetContribution[] {
    const sets = subSets.map((s) => ({ name: s.name, description: s.description, icon: s.icon, tools: [] as string[] }));
    for (const t of catalog.filter((c) => c.group !== 'test')) {
        let i = subSets.findIndex((s) => s.names.includes(t.name));
        if (i < 0) {
            i = subSets.findIndex((s) => s.groups.includes(t.group));
        }
        if (i < 0) {
            throw new Error(`tool ${t.name} (group ${t.group}) is in no whale tool set; add its group to subSets in src/contributions.ts`);
        }
        sets[i].tools.push(lmToolName(t.name));
    }
    const used = sets.filter((s) => s.tools.length > 0);
    return [
        ...used,
        {
            name: whaleToolSet,
            description: "Every whale tool: files, shell, plan, language, web (whale's edits are journaled and revertible)",
            icon: '$(tools)',
            tools: used.map((s) => s.name),
        },
    ];
}

/**
 * Built-in tools the Whale agent keeps because whale has no equivalent:
 * `agent` (VS Code's tool set of `runSubagent`). Nothing that edits files or
 * runs commands: those are whale's.
 */
export const agentBuiltinTools: readonly string[] = ['agent'];

/** Where the Whale agent's file lives in the extension (contributes.chatAgents). */
export const agentFilePath = 'agents/whale.agent.md';

/**
 * The Whale agent (a VS Code custom agent, `.agent.md`): whale's tools by
 * their reference names (which work whether or not VS Code registers the tool
 * sets) plus agentBuiltinTools, and instructions to do all file and shell work
 * through them.
 */
export function agentFile(catalog: ToolInfo[]): string {
    const tools = [...languageModelTools(catalog).map((t) => t.toolReferenceName), ...agentBuiltinTools];
    return [
        '---',
        'name: Whale',
        "description: Coding agent whose every edit and command goes through whale: exact, journaled, revertible edits in the editor's buffers; commands in editor terminals behind whale's exec boundary.",
        `tools: [${tools.map((t) => `'${t}'`).join(', ')}]`,
        '---',
        '<!-- Generated by `npm run sync` from the whale-ls catalog (src/contributions.ts, agentFile). -->',
        "You are a coding agent working in the user's workspace through whale's tools.",
        '',
        '- Read before you edit: `whale_read_file`, `whale_grep`, `whale_search_files`, `whale_list_dir`.',
        '- Change files only with `whale_edit`, `whale_multi_edit`, `whale_write` or `whale_apply_patch`. Each change is',
        '  journaled; `whale_changes_list` shows them and `whale_changes_revert` takes one back.',
        '- Run commands only with `whale_shell_run` (then `whale_shell_wait`, `whale_write_stdin`, `whale_shell_cancel`).',
        '- Use the language tools (`whale_problems`, `whale_definition`, `whale_references`, `whale_rename`, …) for what the',
        "  editor's language servers know, and check `whale_problems` after an edit.",
        '- Keep the plan and todos current with `whale_update_plan` and the `whale_todo_*` tools; ask the user with',
        '  `whale_request_user_input` when a choice is theirs.',
        '- When a tool result says what to do next (re-read, add context, wait for a task), do that.',
        '',
    ].join('\n');
}

/** The whole generated part of package.json's `contributes`. */
export function generatedContributes(catalog: ToolInfo[], settings: ServerSetting[]): Record<string, unknown> {
    return {
        languageModelTools: languageModelTools(catalog),
        languageModelToolSets: toolSets(catalog),
        chatAgents: [{ path: `./${agentFilePath}` }],
        configuration: configuration(settings),
    };
}
