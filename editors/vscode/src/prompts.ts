// whale/prompt → a modal warning (approvals), a QuickPick (choices), an
// InputBox (text) or a review diff (review.ts); the answer goes back with
// whale/prompt/answer. Never blocks the notification handler.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import * as req from './requests';
import { answerForOption, answerForText, approvalModal, choiceItems, promptSurface } from './promptMapping';
import { Reviews } from './review';

export class Prompts {
    private reviews: Reviews | undefined;

    constructor(
        private readonly client: LanguageClient,
        private readonly log: vscode.LogOutputChannel,
    ) {}

    register(): vscode.Disposable[] {
        this.reviews = new Reviews(this.log);
        return [this.reviews, this.client.onNotification(req.prompt, (p) => void this.ask(p))];
    }

    private async ask(p: req.PromptParams): Promise<void> {
        let answer: req.PromptAnswer | undefined;
        try {
            answer = await this.show(p);
            if (!answer) {
                return; // a review that expired: the server no longer waits
            }
        } catch (err) {
            this.log.error(`prompt ${p.promptId} failed: ${String(err)}`);
            answer = { promptId: p.promptId, cancelled: true };
        }
        try {
            await this.client.sendRequest(req.promptAnswer, answer);
        } catch (err) {
            // The server stopped waiting (timeout, canceled call): nothing to do.
            this.log.info(`answer to prompt ${p.promptId} not taken: ${err instanceof Error ? err.message : String(err)}`);
        }
    }

    private async show(p: req.PromptParams): Promise<req.PromptAnswer | undefined> {
        switch (promptSurface(p)) {
            case 'review':
                if (!this.reviews) {
                    throw new Error('reviews are not set up');
                }
                return this.reviews.review(p);
            case 'modal': {
                const q = approvalModal(p);
                const items = q.buttons.map((b) => ({ title: b.label, option: b }));
                const picked = await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail || undefined }, ...items);
                return answerForOption(p.promptId, picked?.option);
            }
            case 'quickPick': {
                const picked = await vscode.window.showQuickPick(choiceItems(p), {
                    title: p.title,
                    placeHolder: p.placeholder ?? p.detail,
                    ignoreFocusOut: true,
                });
                return answerForOption(p.promptId, picked ? { id: picked.id, label: picked.label } : undefined);
            }
            case 'inputBox': {
                const text = await vscode.window.showInputBox({
                    title: p.title,
                    prompt: p.detail,
                    placeHolder: p.placeholder,
                    ignoreFocusOut: true,
                });
                return answerForText(p.promptId, text);
            }
        }
    }
}
