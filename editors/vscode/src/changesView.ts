// The "Changes" section of the Whale view: lists whale's journal of changes
// (whale/changes/list), opens an entry's file as a diff editor of read-only
// `whale-change:` documents (whale/changes/diff) and reverts an entry or
// every entry from one on (whale/changes/revert). Owned by the Ctx, which
// hands it the running client and tells it when to refresh.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
    ChangeDocuments,
    ChangesModel,
    changeDocQuery,
    changeScheme,
    conflictMessage,
    conflictReport,
    diffTitle,
    entryIdOf,
    entryLabel,
    formatTime,
    listLimit,
    parseChangeDocQuery,
    revertMessage,
    type ChangeNode,
} from './changes';
import * as req from './requests';
import type { WhaleView } from './view';

function rel(p: string): string {
    return vscode.workspace.asRelativePath(p, false);
}

function message(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}

export class Changes implements vscode.Disposable {
    private readonly model = new ChangesModel();
    private readonly docs: ChangeDocuments;
    private readonly disposables: vscode.Disposable[] = [];
    /** A refresh running, and whether another one was asked for meanwhile. */
    private running: Promise<void> | undefined;
    private again = false;
    private timer: ReturnType<typeof setTimeout> | undefined;

    constructor(
        private readonly view: WhaleView,
        private readonly client: () => LanguageClient | undefined,
        private readonly log: vscode.LogOutputChannel,
    ) {
        this.docs = new ChangeDocuments(async (id) => this.runningClient().sendRequest(req.changesDiff, { id }));
        view.setChanges(this.model);
        this.disposables.push(
            // An entry never changes: its documents need no onDidChange.
            vscode.workspace.registerTextDocumentContentProvider(changeScheme, {
                provideTextDocumentContent: (uri) => this.content(uri),
            }),
            vscode.commands.registerCommand('whale.changes.refresh', () => this.refreshNow()),
            vscode.commands.registerCommand('whale.changes.openDiff', (arg?: unknown, path?: unknown) => this.openDiff(arg, path)),
            vscode.commands.registerCommand('whale.changes.revert', (arg?: unknown) => this.revert(arg, 'id')),
            vscode.commands.registerCommand('whale.changes.revertTo', (arg?: unknown) => this.revert(arg, 'to')),
        );
    }

    /** The running client; throws when there is none. */
    private runningClient(): LanguageClient {
        const c = this.client();
        if (!c || !c.isRunning()) {
            throw new Error('whale-ls is not running; run "Whale: Restart Server"');
        }
        return c;
    }

    private async content(uri: vscode.Uri): Promise<string> {
        const ref = parseChangeDocQuery(uri.query);
        if (!ref) {
            throw new Error(`not a whale change document: ${uri.toString()}`);
        }
        return this.docs.content(ref);
    }

    /** Refreshes the list soon, coalescing the calls of a burst (tool results, notifications). */
    refresh(): void {
        if (this.timer) {
            return;
        }
        this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.refreshNow();
        }, 150);
    }

    /** Lists the journal now; a call during a refresh runs one more after it. */
    refreshNow(): Promise<void> {
        if (this.running) {
            this.again = true;
            return this.running;
        }
        this.running = (async () => {
            do {
                this.again = false;
                await this.list();
            } while (this.again);
        })().finally(() => {
            this.running = undefined;
        });
        return this.running;
    }

    private async list(): Promise<void> {
        const c = this.client();
        if (!c || !c.isRunning()) {
            return;
        }
        try {
            const r = await c.sendRequest(req.changesList, { limit: listLimit });
            if (this.model.set(r)) {
                this.view.refresh();
            }
        } catch (err) {
            this.log.warn(`${req.changesList.method} failed: ${message(err)}`);
        }
    }

    /** The server stopped: its entries stay listed (the journal is on disk), actions fail until it is back. */
    serverStopped(): void {
        if (this.timer) {
            clearTimeout(this.timer);
            this.timer = undefined;
        }
    }

    private async openDiff(arg: unknown, pathArg: unknown): Promise<void> {
        const node = (arg as { node?: ChangeNode } | undefined)?.node;
        const id = entryIdOf(arg);
        const path = node?.kind === 'file' ? node.file.path : typeof pathArg === 'string' ? pathArg : undefined;
        if (!id) {
            void vscode.window.showInformationMessage('Open a change from the Changes section of the Whale view.');
            return;
        }
        let diff: req.ChangesDiffResult;
        try {
            diff = await this.docs.diff(id);
        } catch (err) {
            void vscode.window.showErrorMessage(`whale could not show change ${id}: ${message(err)}`);
            return;
        }
        const file = diff.files.find((f) => f.path === path) ?? (path === undefined ? diff.files[0] : undefined);
        if (!file) {
            void vscode.window.showErrorMessage(`Change ${id} did not change ${path ?? 'any file'}.`);
            return;
        }
        const entry = this.model.entry(id) ?? (node && node.kind !== 'dropped' ? node.entry : undefined);
        const listed = entry?.files.find((f) => f.path === file.path);
        const base = vscode.Uri.parse(file.uri);
        const side = (s: 'before' | 'after') =>
            base.with({ scheme: changeScheme, query: changeDocQuery({ kind: 'side', id, path: file.path, side: s }), fragment: '' });
        const title = entry && listed ? diffTitle(entry, listed) : `${rel(file.path)} (change ${id}) before \u2194 after`;
        await vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), title, { preview: true });
    }

    private async pick(placeHolder: string): Promise<req.ChangeEntry | undefined> {
        await this.refreshNow();
        const entries = this.model.all();
        if (entries.length === 0) {
            void vscode.window.showInformationMessage('whale has no changes to revert in this workspace.');
            return undefined;
        }
        const picked = await vscode.window.showQuickPick(
            entries.map((e) => ({ label: entryLabel(e), description: formatTime(e.time), detail: e.id, entry: e })),
            { placeHolder, matchOnDescription: true, matchOnDetail: true },
        );
        return picked?.entry;
    }

    private async revert(arg: unknown, mode: 'id' | 'to'): Promise<void> {
        let id = entryIdOf(arg);
        let entry = id ? this.model.entry(id) : undefined;
        if (!id) {
            entry = await this.pick(mode === 'id' ? 'Revert which change?' : 'Revert to before which change? (it and every later one)');
            id = entry?.id;
        }
        if (!id) {
            return;
        }
        const what = entry ? `"${entryLabel(entry)}"` : `change ${id}`;
        if (mode === 'id') {
            const ok = await vscode.window.showWarningMessage(
                `Revert ${what}?`,
                { modal: true, detail: 'Edits made since elsewhere in the files are kept. The revert is itself a change that can be reverted.' },
                'Revert',
            );
            if (ok !== 'Revert') {
                return;
            }
        }
        if (mode === 'to') {
            const through = this.model.through(id);
            const n = Math.max(through.length, 1);
            const detail =
                through
                    .slice(0, 10)
                    .map((e) => `${formatTime(e.time)}  ${entryLabel(e)}`)
                    .join('\n') + (through.length > 10 ? `\n… and ${through.length - 10} more` : '');
            const ok = await vscode.window.showWarningMessage(
                n === 1 ? `Revert ${what}?` : `Revert ${what} and the ${n - 1} later ${n === 2 ? 'change' : 'changes'}?`,
                {
                    modal: true,
                    detail: `${detail}\n\nNewest first, all or nothing; edits made since elsewhere in the files are kept. The revert is itself a change that can be reverted.`,
                },
                'Revert',
            );
            if (ok !== 'Revert') {
                return;
            }
        }
        let r: req.ChangesRevertResult;
        try {
            r = await this.runningClient().sendRequest(req.changesRevert, mode === 'id' ? { id } : { to: id });
        } catch (err) {
            void vscode.window.showErrorMessage(`whale could not revert ${what}: ${message(err)}`);
            return;
        }
        this.refresh();
        if (r.ok) {
            this.log.info(`reverted ${mode === 'to' ? 'to before ' : ''}${id}: ${r.text.split('\n')[0]}`);
            void vscode.window.showInformationMessage(
                revertMessage(r, (i) => {
                    const e = this.model.entry(i);
                    return e && entryLabel(e);
                }),
            );
            return;
        }
        this.log.warn(`revert of ${id} refused: ${r.code}: ${r.text}`);
        if (r.conflicts?.length) {
            const key = this.docs.addReport(conflictReport(r, what, rel));
            const pick = await vscode.window.showWarningMessage(conflictMessage(r, rel), 'Show conflicts');
            if (pick === 'Show conflicts') {
                const uri = vscode.Uri.from({ scheme: changeScheme, path: `/revert-conflicts-${key}.diff`, query: changeDocQuery({ kind: 'conflicts', key }) });
                await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
            }
            return;
        }
        void vscode.window.showErrorMessage(
            r.code === 'not_found' ? `${what} is no longer in the journal: ${r.text}` : `whale could not revert ${what}: ${r.code}: ${r.text}`,
        );
    }

    dispose(): void {
        this.serverStopped();
        for (const d of this.disposables) {
            d.dispose();
        }
    }
}
