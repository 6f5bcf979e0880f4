// whale's changes in the chat's editing flow, as far as VS Code lets an extension's tool take part.
//
// VS Code 1.139 puts an edit into a chat's editing session (file pill, working set with Keep/Undo,
// per-hunk Keep/Undo, undo by Start Over or a checkpoint) only when the chat participant itself
// streams it (ChatResponseStream.textEdit/workspaceEdit/externalEdit). A language-model tool, which
// is what whale's tools are to Copilot's agent, gets no stream, and no event tells an extension
// that the user started over or restored a checkpoint. So whale does the equivalent itself:
// - the tool's result in the chat names the files it changed with their +/- counts and links
//   (ExtendedLanguageModelToolResult where VS Code offers it, else the text the model reads);
// - each open editor of a changed file marks the changed lines and offers Keep / Undo per hunk
//   (CodeLens); Undo is a whale edit that puts the hunk's old lines back, journaled like any other;
// - whale remembers which chat and which request made each change, and when VS Code tells it a
//   chat was closed or cleared (chat.onDidDisposeChatSession) it offers to revert that chat's
//   changes; "Whale: Undo Changes of a Chat Turn…" does the same at any time (after Start Over).
import * as path from 'path';
import * as vscode from 'vscode';
import { parseUnifiedDiff, hunkRange, undoHunkEdit, type Hunk } from './hunks';
import { changingTools, journalEntryOf, type ChatOrigin } from './chatOrigin';
import type * as req from './requests';

/** What chatEdits needs from the extension. */
export interface ChatEditsHost {
    execute(tool: string, input: unknown, token: vscode.CancellationToken): Promise<req.Envelope>;
    diff(id: string): Promise<req.ChangesDiffResult>;
    revert(id: string): Promise<req.ChangesRevertResult>;
    log: vscode.LogOutputChannel;
}

interface TrackedHunk {
    hunk: Hunk;
    state: 'open' | 'kept' | 'undone';
}

interface TrackedChange {
    id: string;
    origin?: ChatOrigin;
    files: Array<{ uri: vscode.Uri; path: string; added: number; removed: number; hunks: TrackedHunk[] }>;
    time: number;
}

const maxTracked = 50;
const maxDiffLines = 60;

/** Listens for chat sessions closed or cleared, where VS Code says so (proposed: chatParticipantPrivate); undefined elsewhere. */
export function onChatDisposed(listener: (session: string) => void): vscode.Disposable | undefined {
    const chat = vscode.chat as unknown as { onDidDisposeChatSession?: vscode.Event<string> };
    return typeof chat.onDidDisposeChatSession === 'function' ? chat.onDidDisposeChatSession(listener) : undefined;
}

export class ChatEdits implements vscode.Disposable {
    private readonly changes: TrackedChange[] = [];
    private readonly lensChanged = new vscode.EventEmitter<void>();
    private readonly added = vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    private readonly disposables: vscode.Disposable[] = [];

    constructor(private readonly host: ChatEditsHost) {
        this.disposables.push(
            this.lensChanged,
            this.added,
            vscode.languages.registerCodeLensProvider(
                { scheme: 'file' },
                { onDidChangeCodeLenses: this.lensChanged.event, provideCodeLenses: (d) => this.lenses(d) },
            ),
            vscode.commands.registerCommand('whale.chat.keepHunk', (id: string, file: string, k: number) => this.keep(id, file, k)),
            vscode.commands.registerCommand('whale.chat.undoHunk', (id: string, file: string, k: number) => this.undo(id, file, k)),
            vscode.commands.registerCommand('whale.chat.undoTurn', () => this.undoTurnPicked()),
            vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
            vscode.workspace.onDidChangeTextDocument((e) => {
                if (this.changes.some((c) => c.files.some((f) => f.uri.toString() === e.document.uri.toString()))) {
                    this.decorate();
                }
            }),
        );
        const disposed = onChatDisposed((id) => void this.chatDisposed(id));
        if (disposed) {
            this.disposables.push(disposed);
        }
    }

    dispose(): void {
        for (const d of this.disposables) {
            d.dispose();
        }
    }

    /**
     * Records a change a tool call made (from its result text) and returns
     * what the chat shows under the call: one line per file with +/- counts.
     */
    async changed(tool: string, env: req.Envelope, origin: ChatOrigin | undefined): Promise<{ message: string; uris: vscode.Uri[] } | undefined> {
        if (!changingTools.has(tool) || !env.ok) {
            return undefined;
        }
        const id = journalEntryOf(env.text);
        if (!id) {
            return undefined;
        }
        let diff: req.ChangesDiffResult;
        try {
            diff = await this.host.diff(id);
        } catch (err) {
            this.host.log.warn(`whale/changes/diff ${id} failed: ${err instanceof Error ? err.message : String(err)}`);
            return undefined;
        }
        const parsed = parseUnifiedDiff(diff.diff);
        const files = diff.files.map((f) => {
            const hunks = parsed.find((p) => p.path === f.path || f.path.endsWith('/' + p.path) || p.path.endsWith(path.basename(f.path)))?.hunks ?? [];
            return {
                uri: vscode.Uri.parse(f.uri),
                path: f.path,
                added: hunks.reduce((n, h) => n + h.added, 0),
                removed: hunks.reduce((n, h) => n + h.removed, 0),
                hunks: hunks.map((hunk) => ({ hunk, state: 'open' as const })),
            };
        });
        this.changes.unshift({ id, origin, files, time: Date.now() });
        this.changes.splice(maxTracked);
        this.lensChanged.fire();
        this.decorate();
        const lines = files.map((f) => `[${vscode.workspace.asRelativePath(f.uri, false)}](${f.uri.toString()}) +${f.added} \u2212${f.removed}`);
        const verb = tool === 'changes_revert' ? 'Reverted' : 'Changed';
        // The diff as the chat used to show it in the call's output, which this message replaces; bounded.
        const diffLines = diff.diff.split('\n');
        const shownDiff =
            diffLines.length > maxDiffLines ? [...diffLines.slice(0, maxDiffLines), `… ${diffLines.length - maxDiffLines} more lines`] : diffLines;
        return {
            message: `${verb} ${lines.join(', ')} (whale change ${id}; Keep or Undo each hunk in the editor, or "Whale: Undo Changes of a Chat Turn…")\n\n\`\`\`diff\n${shownDiff.join('\n').replace(/`{3}/g, "'''")}\n\`\`\``,
            uris: files.map((f) => f.uri),
        };
    }

    private open(doc: vscode.TextDocument): Array<{ change: TrackedChange; file: number; k: number; h: TrackedHunk }> {
        const out: Array<{ change: TrackedChange; file: number; k: number; h: TrackedHunk }> = [];
        for (const change of this.changes) {
            change.files.forEach((f, file) => {
                if (f.uri.toString() === doc.uri.toString()) {
                    f.hunks.forEach((h, k) => h.state === 'open' && out.push({ change, file, k, h }));
                }
            });
        }
        return out;
    }

    private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
        const text = doc.getText();
        const out: vscode.CodeLens[] = [];
        for (const { change, file, k, h } of this.open(doc)) {
            const r = hunkRange(text, h.hunk);
            if (!r) {
                continue;
            }
            const at = new vscode.Range(r.start, 0, r.start, 0);
            const counts = `+${h.hunk.added} \u2212${h.hunk.removed}`;
            out.push(
                new vscode.CodeLens(at, {
                    title: `$(check) Keep (whale ${counts})`,
                    command: 'whale.chat.keepHunk',
                    arguments: [change.id, change.files[file].path, k],
                }),
                new vscode.CodeLens(at, { title: '$(discard) Undo', command: 'whale.chat.undoHunk', arguments: [change.id, change.files[file].path, k] }),
            );
        }
        return out;
    }

    private decorate(): void {
        for (const ed of vscode.window.visibleTextEditors) {
            const text = ed.document.getText();
            const ranges: vscode.Range[] = [];
            for (const { h } of this.open(ed.document)) {
                const r = hunkRange(text, h.hunk);
                if (r && h.hunk.added > 0) {
                    ranges.push(new vscode.Range(r.start, 0, r.end, 0));
                }
            }
            ed.setDecorations(this.added, ranges);
        }
    }

    private find(id: string, file: string, k: number): { f: TrackedChange['files'][number]; h: TrackedHunk } | undefined {
        const f = this.changes.find((c) => c.id === id)?.files.find((x) => x.path === file);
        const h = f?.hunks[k];
        return f && h ? { f, h } : undefined;
    }

    private keep(id: string, file: string, k: number): void {
        const found = this.find(id, file, k);
        if (found) {
            found.h.state = 'kept';
            this.lensChanged.fire();
            this.decorate();
        }
    }

    /** Undo of one hunk: a whale edit that puts its old lines back (journaled, so it can be reverted too). */
    private async undo(id: string, file: string, k: number): Promise<void> {
        const found = this.find(id, file, k);
        if (!found) {
            return;
        }
        const input = undoHunkEdit(file, found.h.hunk);
        if (!input) {
            void vscode.window.showWarningMessage(`This hunk cannot be undone on its own; revert whale change ${id} in the Whale view.`);
            return;
        }
        const env = await this.host.execute('edit', input, new vscode.CancellationTokenSource().token);
        if (!env.ok) {
            void vscode.window.showWarningMessage(`whale could not undo that hunk of ${path.basename(file)}: ${env.code}: ${env.text.split('\n')[0]}`);
            return;
        }
        found.h.state = 'undone';
        this.host.log.info(`undid hunk ${k + 1} of ${file} (change ${id}): ${env.text.split('\n')[0]}`);
        this.lensChanged.fire();
        this.decorate();
    }

    /** The chat turns whale changed files in, newest first. */
    turns(): Array<{ key: string; session: string; request: string; changes: TrackedChange[] }> {
        const out = new Map<string, { key: string; session: string; request: string; changes: TrackedChange[] }>();
        for (const c of this.changes) {
            // Without the chat's ids (a VS Code that does not pass them to tools) each change is its own turn.
            const key = c.origin ? `${c.origin.session}\u0000${c.origin.request}` : c.id;
            let t = out.get(key);
            if (!t) {
                t = { key, session: c.origin?.session ?? '', request: c.origin?.request ?? c.id, changes: [] };
                out.set(key, t);
            }
            t.changes.push(c);
        }
        return [...out.values()];
    }

    private async undoTurnPicked(): Promise<void> {
        const turns = this.turns();
        if (turns.length === 0) {
            void vscode.window.showInformationMessage('whale made no change from a chat in this window yet.');
            return;
        }
        const picked = await vscode.window.showQuickPick(
            turns.map((t) => ({
                label: t.changes
                    .flatMap((c) => c.files.map((f) => `${path.basename(f.path)} +${f.added} \u2212${f.removed}`))
                    .slice(0, 4)
                    .join(', '),
                description: `${t.changes.length} whale ${t.changes.length === 1 ? 'change' : 'changes'}, ${new Date(t.changes[0].time).toLocaleTimeString()}`,
                turn: t,
            })),
            { title: "Undo whale's changes of a chat turn", placeHolder: 'The chat turn whose whale changes to revert (newest first)' },
        );
        if (picked) {
            await this.revertChanges(picked.turn.changes);
        }
    }

    private async chatDisposed(session: string): Promise<void> {
        const changes = this.changes.filter((c) => c.origin?.session === session);
        if (changes.length === 0) {
            return;
        }
        const files = [...new Set(changes.flatMap((c) => c.files.map((f) => vscode.workspace.asRelativePath(f.uri, false))))];
        const pick = await vscode.window.showWarningMessage(
            `That chat was cleared or closed, but whale's ${changes.length === 1 ? 'change' : `${changes.length} changes`} to ${files.slice(0, 3).join(', ')}${files.length > 3 ? ' …' : ''} ${changes.length === 1 ? 'is' : 'are'} still in the files. Revert ${changes.length === 1 ? 'it' : 'them'}?`,
            'Revert',
            'Keep',
        );
        if (pick === 'Revert') {
            await this.revertChanges(changes);
        } else {
            this.forget(changes);
        }
    }

    private forget(changes: TrackedChange[]): void {
        for (const c of changes) {
            const i = this.changes.indexOf(c);
            if (i >= 0) {
                this.changes.splice(i, 1);
            }
        }
        this.lensChanged.fire();
        this.decorate();
    }

    /** Reverts the changes newest first through whale's journal; stops at the first refusal and says why. */
    private async revertChanges(changes: TrackedChange[]): Promise<void> {
        for (const c of [...changes].sort((a, b) => b.time - a.time)) {
            let r: req.ChangesRevertResult;
            try {
                r = await this.host.revert(c.id);
            } catch (err) {
                void vscode.window.showErrorMessage(`whale could not revert change ${c.id}: ${err instanceof Error ? err.message : String(err)}`);
                return;
            }
            if (!r.ok) {
                void vscode.window.showWarningMessage(
                    `whale could not revert change ${c.id}: ${r.code}: ${r.text.split('\n')[0]} (the Whale view's Changes list shows it)`,
                );
                return;
            }
            this.forget([c]);
        }
        void vscode.window.showInformationMessage(`Reverted whale's ${changes.length === 1 ? 'change' : `${changes.length} changes`} of that chat turn.`);
    }
}
