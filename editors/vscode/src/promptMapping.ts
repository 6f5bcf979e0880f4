// Pure mapping between whale/prompt questions and what VS Code shows, and
// from the user's choice back to a whale/prompt/answer.
import type { PromptAnswer, PromptOption, PromptParams } from './requests';

/** The order of approval buttons; options the server did not send are left out. */
const approvalOrder = ['allow_once', 'allow_session', 'deny'];

const approvalLabels: Record<string, string> = {
    allow_once: 'Allow once',
    allow_session: 'Allow for this session',
    deny: 'Deny',
};

export interface ModalQuestion {
    message: string;
    detail: string;
    buttons: PromptOption[];
}

/** An approval as a modal warning: the title as message, the rest as detail. */
export function approvalModal(p: PromptParams): ModalQuestion {
    let options = p.options ?? [];
    if (options.length === 0) {
        options = approvalOrder.map((id) => ({ id, label: approvalLabels[id] }));
    }
    const rank = (o: PromptOption) => {
        const i = approvalOrder.indexOf(o.id);
        return i < 0 ? approvalOrder.length : i;
    };
    const buttons = [...options].sort((a, b) => rank(a) - rank(b)).map((o) => ({ id: o.id, label: o.label || approvalLabels[o.id] || o.id }));
    return {
        message: p.title || 'whale-ls asks for approval',
        detail: p.detail ?? '',
        buttons,
    };
}

/** The answer for the option a user picked; undefined (dismissed) → cancelled. */
export function answerForOption(promptId: string, picked: PromptOption | undefined): PromptAnswer {
    return picked ? { promptId, optionId: picked.id } : { promptId, cancelled: true };
}

/** The answer for text typed into an input box; undefined (dismissed) → cancelled. */
export function answerForText(promptId: string, text: string | undefined): PromptAnswer {
    return text === undefined ? { promptId, cancelled: true } : { promptId, text };
}

export interface QuickPickEntry {
    label: string;
    id: string;
}

/** The QuickPick entries of a choice question. */
export function choiceItems(p: PromptParams): QuickPickEntry[] {
    return (p.options ?? []).map((o) => ({ label: o.label || o.id, id: o.id }));
}

/** How a question is shown: a modal for approvals, QuickPick for choices, InputBox for text. */
export function promptSurface(p: PromptParams): 'modal' | 'quickPick' | 'inputBox' {
    switch (p.kind) {
        case 'approval':
            return 'modal';
        case 'text':
            return 'inputBox';
        default:
            return (p.options ?? []).length > 0 ? 'quickPick' : 'inputBox';
    }
}
