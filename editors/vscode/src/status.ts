// The status bar item: whale's state (running, tools, sandbox, review) and a menu (output, restart,
// settings, walkthrough).
import * as vscode from 'vscode';
import { statusText, statusTooltip, type ServerState } from './statusText';

export const statusMenuCommand = 'whale.statusMenu';

export class WhaleStatus implements vscode.Disposable {
    private readonly item = vscode.window.createStatusBarItem('whale.status', vscode.StatusBarAlignment.Right, 100);
    private readonly disposables: vscode.Disposable[] = [];
    private state: ServerState = 'starting';
    private tools: number | undefined;

    constructor(extensionId: string) {
        this.item.name = 'Whale';
        this.item.command = statusMenuCommand;
        this.disposables.push(
            this.item,
            vscode.commands.registerCommand(statusMenuCommand, () => this.menu(extensionId)),
            vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('whale') && this.render()),
        );
        this.render();
        this.item.show();
    }

    dispose(): void {
        for (const d of this.disposables) {
            d.dispose();
        }
    }

    set(state: ServerState, tools?: number): void {
        this.state = state;
        if (tools !== undefined || state !== 'running') {
            this.tools = state === 'running' ? tools : this.tools;
        }
        this.render();
    }

    private render(): void {
        const c = vscode.workspace.getConfiguration('whale');
        const facts = {
            state: this.state,
            tools: this.tools,
            sandbox: c.get<string>('shell.sandbox') ?? 'workspace-write',
            review: c.get<string>('edits.review') ?? 'off',
            boundary: c.get<string>('execBoundary.mode') ?? 'enforce',
        };
        this.item.text = statusText(facts);
        this.item.tooltip = statusTooltip(facts);
        this.item.backgroundColor = this.state === 'stopped' || this.state === 'missing' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    }

    private async menu(extensionId: string): Promise<void> {
        const items: Array<vscode.QuickPickItem & { run: () => unknown }> = [
            { label: '$(output) Show Output', description: "whale-ls's log", run: () => vscode.commands.executeCommand('whale.showOutput') },
            { label: '$(debug-restart) Restart Server', run: () => vscode.commands.executeCommand('whale.restartServer') },
            {
                label: '$(settings-gear) Open Settings',
                description: 'whale.*',
                run: () => vscode.commands.executeCommand('workbench.action.openSettings', `@ext:${extensionId}`),
            },
            { label: '$(terminal) Show Terminals', run: () => vscode.commands.executeCommand('whale.showTerminals') },
            { label: '$(discard) Undo Changes of a Chat Turn…', run: () => vscode.commands.executeCommand('whale.chat.undoTurn') },
            {
                label: '$(book) Get Started with Whale',
                run: () => vscode.commands.executeCommand('workbench.action.openWalkthrough', `${extensionId}#whale.start`, false),
            },
        ];
        const picked = await vscode.window.showQuickPick(items, { title: `Whale (whale-ls ${this.state})`, placeHolder: 'What to do' });
        await picked?.run();
    }
}
