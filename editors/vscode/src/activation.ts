// Activation shared by the extension's entry point (main.ts) and the
// end-to-end test's build of it (test/e2e/whale/main.ts): creates the
// context, registers the commands and starts whale-ls.
import * as vscode from 'vscode';
import { Ctx, type CtxOptions } from './ctx';

export function startWhale(extension: vscode.ExtensionContext, options?: CtxOptions): Ctx {
    const c = new Ctx(extension, options);
    extension.subscriptions.push(
        c,
        vscode.commands.registerCommand('whale.restartServer', () => c.restart()),
        vscode.commands.registerCommand('whale.showOutput', () => c.showOutput()),
        vscode.commands.registerCommand('whale.showTerminals', () => c.showTerminals()),
    );
    c.start().catch((err: unknown) => c.log.error(`whale-ls did not start: ${err instanceof Error ? err.message : String(err)}`));
    return c;
}
