// Pure mapping between whale/prompt questions and what VS Code shows, and
// from the user's choice back to a whale/prompt/answer.
import type { PromptAnswer, PromptOption, PromptParams, ReviewFile } from './requests';

/**
 * The order of approval buttons; options the server did not send are left
 * out. Deny comes first: VS Code gives a modal's first button the primary
 * style and the keyboard focus, so Enter denies (VS Code's own Cancel, and
 * Escape, deny too).
 */
const approvalOrder = ['deny', 'allow_once', 'allow_session'];

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
        detail: `${p.detail ?? ''}${p.detail ? '\n\n' : ''}Cancel or Escape denies as well.`,
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

/** How a question is shown: a modal for approvals, QuickPick for choices, InputBox for text, a diff for reviews. */
export function promptSurface(p: PromptParams): 'modal' | 'quickPick' | 'inputBox' | 'review' {
    switch (p.kind) {
        case 'approval':
            return 'modal';
        case 'review':
            return 'review';
        case 'text':
            return 'inputBox';
        default:
            return (p.options ?? []).length > 0 ? 'quickPick' : 'inputBox';
    }
}

// Reviews ----------------------------------------------------------------

/** What the user decided about a change under review. */
export type ReviewChoice = { kind: 'accept' } | { kind: 'hunks'; ids: string[] } | { kind: 'reject'; reason?: string } | { kind: 'cancel' };

/**
 * The whale/prompt/answer of a review. Accepting every hunk one by one is
 * sent as accepting all (hunks omitted); an empty or blank reason is left out.
 */
export function reviewAnswer(p: PromptParams, choice: ReviewChoice): PromptAnswer {
    const promptId = p.promptId;
    switch (choice.kind) {
        case 'accept':
            return { promptId, optionId: 'accept' };
        case 'hunks': {
            const all = reviewHunkIds(p);
            const picked = new Set(choice.ids);
            if (all.length > 0 && all.every((id) => picked.has(id))) {
                return { promptId, optionId: 'accept' };
            }
            // In the review's order, each once.
            return { promptId, optionId: 'accept', hunks: all.filter((id) => picked.has(id)) };
        }
        case 'reject': {
            const reason = choice.reason?.trim();
            return reason ? { promptId, optionId: 'reject', text: reason } : { promptId, optionId: 'reject' };
        }
        case 'cancel':
            return { promptId, cancelled: true };
    }
}

/** Every hunk id of a review, file by file. */
export function reviewHunkIds(p: PromptParams): string[] {
    return (p.files ?? []).flatMap((f) => f.hunks.map((h) => h.id));
}

/** One entry of the "Choose hunks" list. */
export interface HunkItem {
    id: string;
    /** The hunk's "@@" header. */
    label: string;
    /** The file's name, when the review has several files. */
    description?: string;
    /** The first changed line, with its - or +. */
    detail: string;
    /** The file of the review it belongs to. */
    file: number;
    /** The 0-based line of the proposed text where the hunk is. */
    line: number;
}

/** The entries of the "Choose hunks" list, file by file. */
export function hunkItems(p: PromptParams): HunkItem[] {
    const files = p.files ?? [];
    return files.flatMap((f, file) =>
        f.hunks.map((h) => ({
            id: h.id,
            label: h.header,
            ...(files.length > 1 ? { description: baseName(f.path) } : {}),
            detail: firstChangedLine(h.diff),
            file,
            line: hunkLine(h.header),
        })),
    );
}

/** The first removed or added line of a hunk's diff (file headers and "@@" lines skipped), cut to 120 characters. */
export function firstChangedLine(diff: string): string {
    for (const line of diff.split('\n')) {
        if (line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('@@')) {
            continue;
        }
        if (line.startsWith('-') || line.startsWith('+')) {
            return line.length > 120 ? `${line.slice(0, 119)}…` : line;
        }
    }
    return '';
}

/** The 0-based line of the proposed text a hunk header "@@ -a,b +c,d @@" points at; 0 for whole-file hunks. */
export function hunkLine(header: string): number {
    const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(header);
    return m ? Math.max(0, Number(m[1]) - 1) : 0;
}

/** The title of a review file's diff editor. */
export function reviewDiffTitle(f: ReviewFile): string {
    const name = baseName(f.path);
    const header = f.hunks[0]?.header ?? '';
    if (header.startsWith('@@ create ')) {
        return `${name} (new file) ↔ proposed by Whale`;
    }
    return header.startsWith('@@ delete ') ? `${name} ↔ deleted by Whale` : `${name} ↔ proposed by Whale`;
}

function baseName(p: string): string {
    return p.split(/[\\/]/).filter(Boolean).pop() ?? p;
}
