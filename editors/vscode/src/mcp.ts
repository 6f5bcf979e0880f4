// Publishes `whale-ls mcp --root <workspace>` as an MCP server definition
// (VS Code 1.101+) while whale's tools reach the chat through MCP instead of
// as language-model tools (src/toolSurface.ts: `whale.mcpServer.enabled`,
// off by default). Older VS Code lacks the API: then nothing is registered.
import * as vscode from 'vscode';

// The MCP API is newer than engines.vscode; declared here as far as used.
interface McpStdioServerDefinition {
    cwd?: vscode.Uri;
}
type McpStdioServerDefinitionCtor = new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
) => McpStdioServerDefinition;
interface McpProvider {
    onDidChangeMcpServerDefinitions?: vscode.Event<void>;
    provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
}
type RegisterMcp = (id: string, provider: McpProvider) => vscode.Disposable;

/** The id in package.json's contributes.mcpServerDefinitionProviders. */
export const mcpProviderId = 'whale.mcp';

export interface McpHost {
    /** The whale-ls binary, or undefined when it cannot be found. */
    serverPath(): string | undefined;
    extraEnv(): Record<string, string>;
    /** Whether the definition is offered now (toolSurface().mcpServer). */
    offered(): boolean;
    version: string;
}

function mcpApi(): { register: RegisterMcp; Definition: McpStdioServerDefinitionCtor } | undefined {
    const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterMcp } | undefined;
    const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
    if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
        return undefined;
    }
    const register = lm.registerMcpServerDefinitionProvider.bind(lm);
    return { register, Definition };
}

/** Whether this VS Code can take MCP server definitions from an extension. */
export function hasMcpApi(): boolean {
    return mcpApi() !== undefined;
}

/**
 * Registers the provider. Call the returned `changed` when what `host`
 * answers may have changed (settings, workspace folders): VS Code then asks
 * again, and starts or stops the server.
 */
export function registerMcpProvider(host: McpHost): { disposables: vscode.Disposable[]; changed: () => void } {
    const api = mcpApi();
    if (!api) {
        return { disposables: [], changed: () => undefined };
    }
    const { Definition } = api;
    const changed = new vscode.EventEmitter<void>();
    const provider: McpProvider = {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions() {
            const folder = vscode.workspace.workspaceFolders?.[0];
            const command = host.serverPath();
            if (!host.offered() || !folder || folder.uri.scheme !== 'file' || !command) {
                return [];
            }
            const root = folder.uri.fsPath;
            const def = new Definition('Whale', command, ['mcp', '--root', root], host.extraEnv(), host.version);
            def.cwd = folder.uri;
            return [def];
        },
    };
    return { disposables: [changed, api.register(mcpProviderId, provider)], changed: () => changed.fire() };
}
