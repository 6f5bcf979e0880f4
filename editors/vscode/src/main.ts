// Entry point: creates the context, registers the commands, starts whale-ls.
import type * as vscode from 'vscode';
import { startWhale } from './activation';
import type { Ctx, WhaleApi } from './ctx';

let ctx: Ctx | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<WhaleApi> {
    ctx = startWhale(extension);
    return ctx.api;
}

export async function deactivate(): Promise<void> {
    await ctx?.stop();
    ctx = undefined;
}
