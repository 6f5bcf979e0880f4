// How whale's tools reach VS Code chat: as the extension's language-model
// tools (`whale_<tool>`, the default) or as the tools of the MCP server
// definition `whale-ls mcp` (setting `whale.mcpServer.enabled`), never both,
// so that each whale tool reaches the chat exactly once. Pure: used by the
// extension, by src/contributions.ts (the tools' `when` clause) and by the
// unit tests.
//
// Why a context key and not just "do not call lm.registerTool": VS Code lists
// a tool contributed in package.json in the chat whether or not the extension
// registered an implementation for it; only the contribution's `when` clause
// takes it out of the chat's tool list. So every contributed whale tool has
// `when: "!whale.toolsViaMcp"`, and the extension sets that context key to
// true exactly when it offers the MCP server definition. Before the extension
// has activated the key is unset and the language-model tools are listed.

/** The context key that is true while whale's tools reach the chat through MCP. */
export const toolsViaMcpContextKey = 'whale.toolsViaMcp';

/** The `when` clause of every contributed `whale_<tool>`. */
export const languageModelToolsWhen = `!${toolsViaMcpContextKey}`;

/** The extension-only setting (under `whale.`) that switches to the MCP server definition. */
export const mcpServerSetting = 'mcpServer.enabled';

/** What decides the surface. */
export interface ToolSurfaceInput {
    /** `whale.mcpServer.enabled`. */
    mcpServerEnabled: boolean;
    /** VS Code has `lm.registerMcpServerDefinitionProvider` and `McpStdioServerDefinition` (1.101+). */
    mcpApi: boolean;
    /** The URI scheme of the first workspace folder; undefined without a folder. */
    folderScheme: string | undefined;
    /** The whale-ls binary was found. */
    serverFound: boolean;
}

export interface ToolSurface {
    /** Offer the MCP server definition; the `whale_*` tools are then hidden from the chat. */
    mcpServer: boolean;
    /** Why `whale.mcpServer.enabled` is on but the language-model tools are used anyway. */
    fallback?: string;
}

/**
 * The MCP server definition is offered only when the user turned it on and
 * it can work: VS Code knows MCP server definitions, the workspace is a local
 * folder (`whale-ls mcp --root` needs a path) and whale-ls is there. In every
 * other case the language-model tools stay, so that the chat never gets
 * whale's tools twice and, with a server to run them, never loses them.
 */
export function toolSurface(input: ToolSurfaceInput): ToolSurface {
    if (!input.mcpServerEnabled) {
        return { mcpServer: false };
    }
    if (!input.mcpApi) {
        return { mcpServer: false, fallback: 'this VS Code has no MCP server definitions (they need 1.101 or later)' };
    }
    if (input.folderScheme === undefined) {
        return { mcpServer: false, fallback: 'no workspace folder is open (whale-ls mcp needs one as its root)' };
    }
    if (input.folderScheme !== 'file') {
        return { mcpServer: false, fallback: `the workspace folder is not a local folder (${input.folderScheme}:)` };
    }
    if (!input.serverFound) {
        return { mcpServer: false, fallback: 'whale-ls was not found' };
    }
    return { mcpServer: true };
}
