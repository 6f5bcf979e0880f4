// Which whale tools a chat request offers the model, and how often: used by
// the end-to-end companion on the tool list the chat sent its scripted model,
// and by a unit test on a tool list recorded in code-server 4.139.1.
//
// A whale tool reaches the chat either as the extension's language-model tool
// `whale_<tool>` or as a tool of the MCP server, which VS Code names
// `mcp_<server>_<tool>` (the server calls itself whale-ls: `mcp_whale-ls_edit`).

/** Where whale's tools should come from in one request. */
export type WhaleToolSource = 'languageModelTools' | 'mcp';

const mcpName = /^mcp_([^_]*whale[^_]*)_(.+)$/i;

/**
 * Checks that every catalog tool is in `names` exactly once, from `source`
 * only, and that no other tool name mentions whale (such as a group that
 * hides tools behind an `activate_…` tool). Returns the problems, none when
 * it holds.
 */
export function exactlyOnceProblems(names: readonly string[], catalog: readonly string[], source: WhaleToolSource): string[] {
    const known = new Set(catalog);
    const found = new Map<string, string[]>(catalog.map((t) => [t, []]));
    const stray: string[] = [];
    for (const name of names) {
        const tool = name.startsWith('whale_') && known.has(name.slice('whale_'.length)) ? name.slice('whale_'.length) : mcpName.exec(name)?.[2];
        if (tool !== undefined && known.has(tool)) {
            found.get(tool)!.push(name);
        } else if (/whale/i.test(name)) {
            stray.push(name);
        }
    }
    const problems: string[] = [];
    for (const [tool, seen] of found) {
        const fromSource = seen.filter((n) => (source === 'mcp' ? mcpName.test(n) : n.startsWith('whale_')));
        if (seen.length === 0) {
            problems.push(`${tool} is missing`);
        } else if (seen.length > 1) {
            problems.push(`${tool} is there ${seen.length} times (${seen.join(', ')})`);
        } else if (fromSource.length !== 1) {
            problems.push(`${tool} comes from the wrong source (${seen[0]}; want ${source === 'mcp' ? 'the MCP server' : `whale_${tool}`})`);
        }
    }
    if (stray.length > 0) {
        problems.push(`other tools name whale: ${stray.join(', ')}`);
    }
    return problems;
}
