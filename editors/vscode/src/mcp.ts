// Publishes `whale-ls mcp --root <workspace>` as an MCP server definition, so
// that VS Code chat (1.101+) sees whale's tools over MCP too, including tools
// activated later. Older VS Code lacks the API: then nothing is registered.
import * as vscode from 'vscode';

// The MCP API is newer than engines.vscode; declared here as far as used.
interface McpStdioServerDefinition {
    cwd?: vscode.Uri;
}
type McpStdioServerDefinitionCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpStdioServerDefinition;
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
    enabled(): boolean;
    version: string;
}

export function registerMcpProvider(host: McpHost): vscode.Disposable[] {
    const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterMcp };
    const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
    if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
        return [];
    }
    const changed = new vscode.EventEmitter<void>();
    const provider: McpProvider = {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions() {
            const folder = vscode.workspace.workspaceFolders?.[0];
            const command = host.serverPath();
            if (!host.enabled() || !folder || folder.uri.scheme !== 'file' || !command) {
                return [];
            }
            const root = folder.uri.fsPath;
            const def = new Definition('Whale', command, ['mcp', '--root', root], host.extraEnv(), host.version);
            def.cwd = folder.uri;
            return [def];
        },
    };
    return [
        changed,
        lm.registerMcpServerDefinitionProvider(mcpProviderId, provider),
        vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
        vscode.workspace.onDidChangeConfiguration((e) => {
            if (e.affectsConfiguration('whale.registerMcpServer') || e.affectsConfiguration('whale.serverPath') || e.affectsConfiguration('whale.server.extraEnv')) {
                changed.fire();
            }
        }),
    ];
}
