// Entry point: creates the context, registers the commands, starts whale-ls.
import type * as vscode from 'vscode';
import { startWhale } from './activation';
import type { Ctx, WhaleApi } from './ctx';

let ctx: Ctx | undefined;

export function activate(extension: vscode.ExtensionContext): WhaleApi {
    ctx = startWhale(extension);
    return ctx.api;
}

export async function deactivate(): Promise<void> {
    await ctx?.stop();
    ctx = undefined;
}
