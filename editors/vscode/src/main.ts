// Entry point: creates the context, registers the commands, starts whale-ls.
import * as vscode from 'vscode';
import { Ctx, type WhaleApi } from './ctx';

let ctx: Ctx | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<WhaleApi> {
    ctx = new Ctx(extension);
    const c = ctx;
    extension.subscriptions.push(
        c,
        vscode.commands.registerCommand('whale.restartServer', () => c.restart()),
        vscode.commands.registerCommand('whale.showOutput', () => c.showOutput()),
        vscode.commands.registerCommand('whale.showTerminals', () => c.showTerminals()),
    );
    c.start().catch((err) => c.log.error(`whale-ls did not start: ${err instanceof Error ? err.message : String(err)}`));
    return c.api;
}

export async function deactivate(): Promise<void> {
    await ctx?.stop();
    ctx = undefined;
}
