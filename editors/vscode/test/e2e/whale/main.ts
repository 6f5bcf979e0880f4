// The Whale extension as the end-to-end test packages it (whale-ls-e2e.vsix):
// src/main.ts's activation, plus a test seam and the catalog its API exports
// to the test companion. The shipped whale-ls.vsix is built from src/main.ts, which
// passes Ctx no options and exports only WhaleApi {ready, execute}.
import type * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams } from 'vscode-languageclient/node';
import { startWhale } from '../../../src/activation';
import type { Ctx, WhaleApi } from '../../../src/ctx';
import type { ToolInfo } from '../../../src/requests';

/** The API of the test build: the shipped one plus the seam. */
export interface WhaleTestApi extends WhaleApi {
    /** Awaited before VS Code applies a server's workspace edit; the test sets and clears it. */
    beforeApplyEdit?: (params: ApplyWorkspaceEditParams) => Promise<void>;
    /** The running server's catalog (whale/tools). */
    tools(): Promise<ToolInfo[]>;
}

let ctx: Ctx | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<WhaleTestApi> {
    const api: WhaleTestApi = {
        ready: () => ctx!.api.ready(),
        execute: (tool, input, token) => ctx!.api.execute(tool, input, token),
        tools: () => ctx!.catalog(),
    };
    ctx = startWhale(extension, { beforeApplyEdit: async (params) => api.beforeApplyEdit?.(params) });
    return api;
}

export async function deactivate(): Promise<void> {
    await ctx?.stop();
    ctx = undefined;
}
