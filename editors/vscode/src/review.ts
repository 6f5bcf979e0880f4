// Reviews of proposed changes (whale/prompt of kind "review"): each file's
// current text ↔ the proposed text in a diff editor of read-only virtual
// documents, with Accept, Reject… and Choose Hunks… in the diff's editor
// title, the command palette and a non-modal notification. One review is
// shown at a time; the others wait in a queue. Closing the diff leaves the
// review pending ("Whale: Show Pending Review" opens it again) until the
// server's timeout, when it is dropped: whale-ls has rejected it by then.
import * as vscode from 'vscode';
import type * as req from './requests';
import { hunkItems, reviewAnswer, reviewDiffTitle, type HunkItem, type ReviewChoice } from './promptMapping';

/** The scheme of the diff's virtual documents: whale-review:<file path>?p=<promptId>&f=<file>&s=before|after. */
export const reviewScheme = 'whale-review';
/** True while a review is shown; the editor-title and palette entries depend on it. */
const pendingContextKey = 'whale.reviewPending';
/** At most this many diff editors open by themselves; the others through Show Pending Review. */
const maxOpenDiffs = 8;

interface Pending {
    p: req.PromptParams;
    resolve: (answer: req.PromptAnswer | undefined) => void;
    timer?: ReturnType<typeof setTimeout>;
    /** Its notification is showing. */
    notified: boolean;
    /** The InputBox or hunk list of a choice being made; hidden when the review ends. */
    widget?: { hide(): void };
}

type Decision = 'accept' | 'reject' | 'hunks';

interface HunkPick extends vscode.QuickPickItem {
    hunk: HunkItem;
}

export class Reviews implements vscode.Disposable {
    /** The pending reviews; the first is the one shown. */
    private queue: Pending[] = [];
    private readonly disposables: vscode.Disposable[];

    constructor(private readonly log: vscode.LogOutputChannel) {
        this.disposables = [
            vscode.workspace.registerTextDocumentContentProvider(reviewScheme, { provideTextDocumentContent: (uri) => this.content(uri) }),
            // From the editor title they get the diff's URI: a click on a diff
            // whose review is over must not answer the next one.
            vscode.commands.registerCommand('whale.review.accept', (uri?: unknown) => this.decide('accept', uri)),
            vscode.commands.registerCommand('whale.review.reject', (uri?: unknown) => this.decide('reject', uri)),
            vscode.commands.registerCommand('whale.review.chooseHunks', (uri?: unknown) => this.decide('hunks', uri)),
            vscode.commands.registerCommand('whale.review.show', () => this.show()),
        ];
    }

    /**
     * Queues a review and resolves with its answer, or with undefined when
     * it expired (timeoutMs passed) or whale-ls went away: then nothing is
     * to be sent.
     */
    review(p: req.PromptParams): Promise<req.PromptAnswer | undefined> {
        return new Promise((resolve) => {
            const item: Pending = { p, resolve, notified: false };
            if (p.timeoutMs !== undefined && p.timeoutMs > 0) {
                item.timer = setTimeout(() => this.expire(item), p.timeoutMs);
            }
            this.queue.push(item);
            if (this.queue[0] === item) {
                void this.open(item);
            } else {
                this.log.info(`review ${p.promptId} queued behind ${this.queue.length - 1} other(s)`);
            }
        });
    }

    dispose(): void {
        const items = this.queue;
        this.queue = [];
        for (const item of items) {
            this.end(item, undefined);
        }
        void vscode.commands.executeCommand('setContext', pendingContextKey, false);
        for (const d of this.disposables) {
            d.dispose();
        }
    }

    private content(uri: vscode.Uri): string {
        const q = new URLSearchParams(uri.query);
        const item = this.queue.find((i) => i.p.promptId === q.get('p'));
        const f = item?.p.files?.[Number(q.get('f'))];
        if (!f) {
            return '';
        }
        return q.get('s') === 'before' ? f.before : f.after;
    }

    private uri(item: Pending, file: number, side: 'before' | 'after'): vscode.Uri {
        const f = (item.p.files ?? [])[file];
        let filePath = f.path;
        try {
            filePath = vscode.Uri.parse(f.uri, true).path;
        } catch {
            // keep the path
        }
        const query = new URLSearchParams({ p: item.p.promptId, f: String(file), s: side }).toString();
        return vscode.Uri.from({ scheme: reviewScheme, path: filePath.startsWith('/') ? filePath : `/${filePath}`, query });
    }

    /** Shows a review: its diffs, the context key of the title actions, the notification. */
    private async open(item: Pending): Promise<void> {
        await vscode.commands.executeCommand('setContext', pendingContextKey, true);
        const n = Math.min(item.p.files?.length ?? 0, maxOpenDiffs);
        try {
            for (let i = 0; i < n; i++) {
                await this.openDiff(item, i, { preserveFocus: i > 0 });
            }
            if (n > 1) {
                await this.openDiff(item, 0, {});
            }
        } catch (err) {
            this.log.error(`opening the review ${item.p.promptId}: ${String(err)}`);
        }
        void this.notify(item);
    }

    private async openDiff(item: Pending, file: number, options: { preserveFocus?: boolean; selection?: vscode.Range }): Promise<void> {
        const f = (item.p.files ?? [])[file];
        await vscode.commands.executeCommand('vscode.diff', this.uri(item, file, 'before'), this.uri(item, file, 'after'), reviewDiffTitle(f), {
            preview: false,
            ...options,
        });
    }

    /** The non-modal notification with the choices; dismissing it leaves the review pending. */
    private async notify(item: Pending): Promise<void> {
        if (item.notified || this.queue[0] !== item) {
            return;
        }
        item.notified = true;
        const waiting = this.queue.length - 1;
        const message = `${item.p.title}. ${item.p.detail ?? ''}${waiting > 0 ? ` (${waiting} more ${waiting === 1 ? 'review' : 'reviews'} waiting)` : ''}`;
        const pick = await vscode.window.showInformationMessage(message, 'Accept', 'Reject…', 'Choose Hunks…', 'Show Diff');
        item.notified = false;
        if (this.queue[0] !== item) {
            return;
        }
        switch (pick) {
            case 'Accept':
                return this.decide('accept');
            case 'Reject…':
                return this.decide('reject');
            case 'Choose Hunks…':
                return this.decide('hunks');
            case 'Show Diff':
                await this.show();
                return this.notify(item);
        }
    }

    /** Accept, Reject… or Choose Hunks… on the shown review; backing out offers the choices again. */
    private async decide(decision: Decision, from?: unknown): Promise<void> {
        const item = this.queue[0];
        const of = from instanceof vscode.Uri && from.scheme === reviewScheme ? new URLSearchParams(from.query).get('p') : undefined;
        if (!item || (of !== undefined && of !== item.p.promptId)) {
            void vscode.window.showInformationMessage(item ? 'That review is over.' : 'No Whale review is pending.');
            return;
        }
        if (item.widget) {
            return; // a choice is being made already
        }
        let choice: ReviewChoice | undefined;
        try {
            choice = await this.choose(item, decision);
        } finally {
            item.widget = undefined;
        }
        if (this.queue[0] !== item) {
            return; // expired meanwhile
        }
        if (choice) {
            this.finish(item, reviewAnswer(item.p, choice));
        } else {
            void this.notify(item);
        }
    }

    private choose(item: Pending, decision: Decision): Promise<ReviewChoice | undefined> {
        switch (decision) {
            case 'accept':
                return Promise.resolve({ kind: 'accept' });
            case 'reject':
                return this.askReason(item);
            case 'hunks':
                return this.chooseHunks(item);
        }
    }

    private askReason(item: Pending): Promise<ReviewChoice | undefined> {
        const box = vscode.window.createInputBox();
        box.title = 'Reject the change';
        box.prompt = 'Why? Optional: whale-ls tells the model. Enter rejects, Escape goes back.';
        box.placeholder = 'the reason (optional)';
        box.ignoreFocusOut = true;
        item.widget = box;
        return new Promise((resolve) => {
            box.onDidAccept(() => {
                resolve({ kind: 'reject', reason: box.value });
                box.hide();
            });
            box.onDidHide(() => {
                resolve(undefined);
                box.dispose();
            });
            box.show();
        });
    }

    /** The multi-select list of hunks, all checked at first; moving to or toggling one reveals it in its diff. */
    private chooseHunks(item: Pending): Promise<ReviewChoice | undefined> {
        const picks: HunkPick[] = hunkItems(item.p).map((h) => ({ label: h.label, description: h.description, detail: h.detail, hunk: h }));
        const qp = vscode.window.createQuickPick<HunkPick>();
        qp.title = 'Choose the hunks to accept';
        qp.placeholder = 'Checked hunks are applied, the others rejected; Enter confirms';
        qp.canSelectMany = true;
        qp.ignoreFocusOut = true;
        qp.matchOnDescription = true;
        qp.matchOnDetail = true;
        qp.items = picks;
        qp.selectedItems = picks;
        item.widget = qp;
        const reveal = (h: HunkItem | undefined) => {
            if (h && this.queue[0] === item) {
                const at = new vscode.Position(h.line, 0);
                this.openDiff(item, h.file, { preserveFocus: true, selection: new vscode.Range(at, at) }).catch((err: unknown) =>
                    this.log.warn(`revealing a hunk: ${String(err)}`),
                );
            }
        };
        let selected = new Set<HunkPick>(picks);
        qp.onDidChangeActive((active) => reveal(active[0]?.hunk));
        qp.onDidChangeSelection((now) => {
            const next = new Set(now);
            const toggled = picks.find((p) => next.has(p) !== selected.has(p));
            selected = next;
            reveal(toggled?.hunk);
        });
        return new Promise((resolve) => {
            qp.onDidAccept(() => {
                const ids = qp.selectedItems.map((p) => p.hunk.id);
                if (ids.length === 0) {
                    void vscode.window.showWarningMessage('No hunk was checked: check the hunks to accept, or reject the change.');
                    resolve(undefined);
                } else {
                    resolve({ kind: 'hunks', ids });
                }
                qp.hide();
            });
            qp.onDidHide(() => {
                resolve(undefined);
                qp.dispose();
            });
            qp.show();
        });
    }

    /** Opens the shown review's diff again; with several files, the one picked. */
    private async show(): Promise<void> {
        const item = this.queue[0];
        if (!item) {
            void vscode.window.showInformationMessage('No Whale review is pending.');
            return;
        }
        const files = item.p.files ?? [];
        let file = 0;
        if (files.length > 1) {
            const picked = await vscode.window.showQuickPick(
                files.map((f, i) => ({
                    label: reviewDiffTitle(f),
                    description: f.path,
                    detail: `${f.hunks.length} ${f.hunks.length === 1 ? 'hunk' : 'hunks'}`,
                    i,
                })),
                { title: item.p.title, placeHolder: 'Open the diff of a file' },
            );
            if (!picked) {
                return;
            }
            file = picked.i;
        }
        if (files.length > 0 && this.queue[0] === item) {
            await this.openDiff(item, file, {});
        }
    }

    /** The user answered: send it, close the review's diffs, show the next review. */
    private finish(item: Pending, answer: req.PromptAnswer): void {
        this.remove(item);
        this.end(item, answer);
    }

    /** The server's timeout passed: it has rejected the change; drop the review from the UI. */
    private expire(item: Pending): void {
        if (!this.queue.includes(item)) {
            return;
        }
        this.log.info(`review ${item.p.promptId} timed out`);
        this.remove(item);
        this.end(item, undefined);
        void vscode.window.showInformationMessage(`The review timed out, so the change was not applied: ${item.p.title}`);
    }

    private remove(item: Pending): void {
        const wasShown = this.queue[0] === item;
        this.queue = this.queue.filter((i) => i !== item);
        if (!wasShown) {
            return;
        }
        const next = this.queue[0];
        if (next) {
            void this.open(next);
        } else {
            void vscode.commands.executeCommand('setContext', pendingContextKey, false);
        }
    }

    private end(item: Pending, answer: req.PromptAnswer | undefined): void {
        if (item.timer) {
            clearTimeout(item.timer);
        }
        item.widget?.hide();
        item.resolve(answer);
        void this.closeDiffs(item);
    }

    private async closeDiffs(item: Pending): Promise<void> {
        const tabs = vscode.window.tabGroups.all
            .flatMap((g) => g.tabs)
            .filter(
                (t) =>
                    t.input instanceof vscode.TabInputTextDiff &&
                    t.input.modified.scheme === reviewScheme &&
                    new URLSearchParams(t.input.modified.query).get('p') === item.p.promptId,
            );
        if (tabs.length > 0) {
            await vscode.window.tabGroups.close(tabs, true).then(undefined, (err: unknown) => this.log.warn(`closing the review's diffs: ${String(err)}`));
        }
    }
}
