// whale/terminal/* as VS Code terminals: one Pseudoterminal per task.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as req from './requests';
import { TerminalOutput, exitLine, terminalName } from './terminalBuffer';

interface Task {
    info: req.TerminalOpenParams;
    output: TerminalOutput;
    terminal: vscode.Terminal;
    exited: boolean;
    dims?: vscode.TerminalDimensions;
    /** The terminal was shown (at start with `whale.terminals.reveal`, else at its first output). */
    shown?: boolean;
}

/** The terminals of whale's shell tasks, for one client. */
export class WhaleTerminals implements vscode.Disposable {
    private readonly tasks = new Map<string, Task>();
    private readonly order: string[] = [];

    constructor(
        private readonly client: LanguageClient,
        private readonly log: vscode.LogOutputChannel,
        private readonly reveal: () => boolean,
    ) {}

    /** Registers the notification handlers; call before the client starts. */
    register(): vscode.Disposable[] {
        return [
            this.client.onNotification(req.terminalOpen, (p) => this.open(p)),
            this.client.onNotification(req.terminalOutput, (p) => this.output(p)),
            this.client.onNotification(req.terminalExit, (p) => this.exit(p)),
            this.client.onNotification(req.terminalWaiting, (p) => this.waiting(p)),
        ];
    }

    private request(type: { method: string }, params: unknown): void {
        this.client.sendRequest(type.method, params).then(undefined, (err: unknown) => {
            this.log.debug(`${type.method} failed: ${err instanceof Error ? err.message : String(err)}`);
        });
    }

    private open(info: req.TerminalOpenParams): void {
        if (this.tasks.has(info.taskId)) {
            return;
        }
        const output = new TerminalOutput(!info.pty);
        const write = new vscode.EventEmitter<string>();
        const close = new vscode.EventEmitter<number | undefined>();
        const taskId = info.taskId;
        const pty: vscode.Pseudoterminal = {
            onDidWrite: write.event,
            onDidClose: close.event,
            open: (dims) => {
                output.open((data) => write.fire(data));
                if (dims) {
                    this.resize(taskId, dims);
                }
            },
            close: () => {
                output.close();
                const t = this.tasks.get(taskId);
                if (t && !t.exited) {
                    this.request(req.terminalCancel, { taskId });
                }
                this.forget(taskId);
                write.dispose();
                close.dispose();
            },
            handleInput: (data) => {
                const t = this.tasks.get(taskId);
                if (t && !t.exited) {
                    this.request(req.terminalInput, { taskId, data });
                }
            },
            setDimensions: (dims) => this.resize(taskId, dims),
        };
        const terminal = vscode.window.createTerminal({
            name: terminalName(info.command, info.title),
            pty,
            iconPath: new vscode.ThemeIcon('terminal'),
        });
        this.tasks.set(taskId, { info, output, terminal, exited: false, shown: this.reveal() });
        this.order.push(taskId);
        if (this.reveal()) {
            terminal.show(true);
        }
        this.closeOldEnded();
    }

    /** Ended whale terminals beyond the newest few are closed when a new one opens, so they do not pile up. */
    private closeOldEnded(): void {
        const ended = this.order.filter((id) => this.tasks.get(id)?.exited);
        for (const id of ended.slice(0, Math.max(0, ended.length - WhaleTerminals.keepEnded))) {
            this.tasks.get(id)?.terminal.dispose();
            this.forget(id);
        }
    }

    /** How many ended whale terminals stay open. */
    static readonly keepEnded = 5;

    private resize(taskId: string, dims: vscode.TerminalDimensions): void {
        const t = this.tasks.get(taskId);
        if (!t || t.exited || !t.info.pty || dims.columns <= 0 || dims.rows <= 0) {
            return;
        }
        if (t.dims && t.dims.columns === dims.columns && t.dims.rows === dims.rows) {
            return;
        }
        t.dims = dims;
        this.request(req.terminalResize, { taskId, cols: dims.columns, rows: dims.rows });
    }

    private output(p: req.TerminalOutputParams): void {
        const t = this.tasks.get(p.taskId);
        t?.output.write(p.data, p.seq);
        // Shown at its first output, without taking the focus: what a command prints is seen where it runs.
        if (t && !t.shown && p.data !== '') {
            t.shown = true;
            t.terminal.show(true);
        }
    }

    private exit(p: req.TerminalExitParams): void {
        const t = this.tasks.get(p.taskId);
        if (!t || t.exited) {
            return;
        }
        t.exited = true;
        t.output.write(exitLine(p.exitCode, p.signal));
    }

    /**
     * A task waits for input: its terminal comes forward. A secret (a password asked with echo off)
     * is the user's to type, so that terminal takes the focus; other input the assistant may answer,
     * so the focus stays where the user is.
     */
    private waiting(p: req.TerminalWaitingParams): void {
        const t = this.tasks.get(p.taskId);
        if (!t || t.exited) {
            return;
        }
        t.shown = true;
        t.terminal.show(!p.secret);
        if (p.secret) {
            void vscode.window.showInformationMessage(`${t.terminal.name} asks for a secret (${p.prompt}): type it in its terminal.`);
        }
    }

    private forget(taskId: string): void {
        this.tasks.delete(taskId);
        const i = this.order.indexOf(taskId);
        if (i >= 0) {
            this.order.splice(i, 1);
        }
    }

    /** Shows the whale terminals: the only one, or a pick of all. */
    async show(): Promise<void> {
        const tasks = this.order.flatMap((id) => this.tasks.get(id) ?? []);
        if (tasks.length === 0) {
            void vscode.window.showInformationMessage('No whale terminals yet: they open when the assistant runs a shell command.');
            return;
        }
        if (tasks.length === 1) {
            tasks[0].terminal.show();
            return;
        }
        const picked = await vscode.window.showQuickPick(
            tasks.reverse().map((t) => ({ label: t.terminal.name, description: `${t.info.taskId}${t.exited ? ' (ended)' : ''}`, task: t })),
            { placeHolder: 'Show which whale terminal?' },
        );
        picked?.task.terminal.show();
    }

    /** The server went away: running tasks died with it. */
    serverStopped(): void {
        for (const t of this.tasks.values()) {
            if (!t.exited) {
                t.exited = true;
                t.output.write('\r\n\x1b[31m[whale: the server stopped; the task ended with it]\x1b[0m\r\n');
            }
        }
    }

    dispose(): void {
        this.serverStopped();
    }
}
