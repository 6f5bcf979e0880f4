// Pure: the model of the "Changes" section of the Whale view (whale's
// journal of changes, whale/changes/list), the texts of the read-only
// `whale-change:` documents its diff editors show (whale/changes/diff), and
// the messages of a revert (whale/changes/revert). No vscode import, so that
// the unit tests run it; src/changesView.ts puts it on screen.
import type { ChangeDiffFile, ChangeEntry, ChangeFile, ChangesDiffResult, ChangesListResult, ChangesRevertResult } from './requests';

/** The URI scheme of the before/after documents and of conflict reports. */
export const changeScheme = 'whale-change';

/** How many entries the view asks for. */
export const listLimit = 100;

export type ChangeNode = { kind: 'entry'; entry: ChangeEntry } | { kind: 'file'; entry: ChangeEntry; file: ChangeFile } | { kind: 'dropped'; count: number };

/** What a tree item shows; `icon` is a codicon id. */
export interface ItemView {
    id?: string;
    label: string;
    description?: string;
    tooltip: string;
    contextValue?: string;
    icon: string;
    collapsible: boolean;
}

export const entryContext = 'whale.changeEntry';
export const fileContext = 'whale.changeFile';

/** The label of an entry: its summary, which names the tool ("edit a.go (+2 -1)"), else tool: summary. */
export function entryLabel(e: ChangeEntry): string {
    const summary = (e.summary ?? '').trim();
    const tool = e.tool || 'change';
    if (!summary) {
        return tool;
    }
    return summary === tool || summary.startsWith(tool + ' ') ? summary : `${tool}: ${summary}`;
}

const pad = (n: number) => String(n).padStart(2, '0');
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An entry's time, local: "14:03:07" today, "Mar 4 14:03" this year, else "2023-03-04 14:03". */
export function formatTime(iso: string, now: Date = new Date()): string {
    const t = new Date(iso);
    if (Number.isNaN(t.getTime())) {
        return iso;
    }
    const hm = `${pad(t.getHours())}:${pad(t.getMinutes())}`;
    if (t.getFullYear() === now.getFullYear() && t.getMonth() === now.getMonth() && t.getDate() === now.getDate()) {
        return `${hm}:${pad(t.getSeconds())}`;
    }
    if (t.getFullYear() === now.getFullYear()) {
        return `${months[t.getMonth()]} ${t.getDate()} ${hm}`;
    }
    return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${hm}`;
}

/** "+3 −1", with "created" or "deleted" first when the change did that. */
export function fileDescription(f: ChangeFile): string {
    const parts: string[] = [];
    if (f.created) {
        parts.push('created');
    } else if (f.deleted) {
        parts.push('deleted');
    }
    parts.push(`+${f.added ?? 0} \u2212${f.removed ?? 0}`);
    return parts.join(' ');
}

export function entryView(e: ChangeEntry, now?: Date): ItemView {
    const revert = (e.revertOf?.length ?? 0) > 0;
    return {
        id: `whale.change/${e.id}`,
        label: entryLabel(e),
        description: formatTime(e.time, now),
        tooltip: [e.id, revert ? `reverts ${(e.revertOf ?? []).join(', ')}` : '', e.callId ? `call ${e.callId}` : ''].filter(Boolean).join('\n'),
        contextValue: entryContext,
        icon: revert ? 'discard' : e.tool === 'shell_run' ? 'terminal' : 'edit',
        collapsible: e.files.length > 0,
    };
}

export function fileView(e: ChangeEntry, f: ChangeFile): ItemView {
    return {
        id: `whale.change/${e.id}/${f.path}`,
        // The path from the workspace folder ("build/sub/x.o"): a base name alone is ambiguous.
        label: f.relPath || f.name || basename(f.path),
        description: fileDescription(f),
        tooltip: `${f.path}\n${f.where === 'editor' ? 'changed in the editor' : 'changed on disk'}\nClick to see the change`,
        contextValue: fileContext,
        icon: f.created ? 'diff-added' : f.deleted ? 'diff-removed' : 'diff-modified',
        collapsible: false,
    };
}

export function droppedView(count: number): ItemView {
    return {
        label: `${count} older ${count === 1 ? 'entry was' : 'entries were'} dropped`,
        tooltip: 'The journal keeps at most whale.changes.maxBytes; the oldest entries go first.',
        icon: 'info',
        collapsible: false,
    };
}

function basename(p: string): string {
    const parts = p.split(/[\\/]/);
    return parts[parts.length - 1] || p;
}

/** The entries of the journal as the view shows them. */
export class ChangesModel {
    private entries: ChangeEntry[] = [];
    private dropped = 0;

    /** Takes a whale/changes/list result; true when what the view shows changed. */
    set(r: ChangesListResult): boolean {
        // The server lists newest first; a stable sort by time keeps its order for equal times.
        const t = (e: ChangeEntry) => Date.parse(e.time) || 0;
        const entries = [...(r.entries ?? [])].sort((a, b) => t(b) - t(a));
        const dropped = r.dropped ?? 0;
        const same = dropped === this.dropped && JSON.stringify(entries) === JSON.stringify(this.entries);
        this.entries = entries;
        this.dropped = dropped;
        return !same;
    }

    clear(): boolean {
        return this.set({ entries: [], dropped: 0 });
    }

    get size(): number {
        return this.entries.length;
    }

    /** The section's children: the entries, newest first, then how many were dropped. */
    roots(): ChangeNode[] {
        const nodes: ChangeNode[] = this.entries.map((entry) => ({ kind: 'entry', entry }));
        if (this.dropped > 0) {
            nodes.push({ kind: 'dropped', count: this.dropped });
        }
        return nodes;
    }

    children(n: ChangeNode): ChangeNode[] {
        return n.kind === 'entry' ? n.entry.files.map((file) => ({ kind: 'file', entry: n.entry, file })) : [];
    }

    entry(id: string): ChangeEntry | undefined {
        return this.entries.find((e) => e.id === id);
    }

    /** What `{to: id}` reverts: that entry and every newer one, newest first. */
    through(id: string): ChangeEntry[] {
        const i = this.entries.findIndex((e) => e.id === id);
        return i < 0 ? [] : this.entries.slice(0, i + 1);
    }

    all(): readonly ChangeEntry[] {
        return this.entries;
    }
}

// Documents ---------------------------------------------------------------

export type Side = 'before' | 'after';

/** What a `whale-change:` URI's query names: one side of a file of an entry, or a conflict report. */
export type ChangeDocRef = { kind: 'side'; id: string; path: string; side: Side } | { kind: 'conflicts'; key: string };

export function changeDocQuery(ref: ChangeDocRef): string {
    const q = new URLSearchParams(ref.kind === 'side' ? { id: ref.id, path: ref.path, side: ref.side } : { conflicts: ref.key });
    return q.toString();
}

export function parseChangeDocQuery(query: string): ChangeDocRef | undefined {
    const q = new URLSearchParams(query);
    const conflicts = q.get('conflicts');
    if (conflicts) {
        return { kind: 'conflicts', key: conflicts };
    }
    const id = q.get('id');
    const path = q.get('path');
    const side = q.get('side');
    if (id && path && (side === 'before' || side === 'after')) {
        return { kind: 'side', id, path, side };
    }
    return undefined;
}

export const binaryText = '(binary file: its content is not shown)\n';

/** One side of a file: its text, empty when the file did not exist on that side. */
export function sideText(f: ChangeDiffFile, side: Side): string {
    if (!(side === 'before' ? f.beforeExists : f.afterExists)) {
        return '';
    }
    if (f.binary) {
        return binaryText;
    }
    return (side === 'before' ? f.before : f.after) ?? '';
}

/**
 * The texts of `whale-change:` documents: entries' diffs fetched once each
 * (an entry never changes) and kept for the `max` most recent ids; conflict
 * reports kept for the session.
 */
export class ChangeDocuments {
    private readonly diffs = new Map<string, Promise<ChangesDiffResult>>();
    private readonly reports = new Map<string, string>();
    private seq = 0;

    constructor(
        private readonly fetch: (id: string) => Promise<ChangesDiffResult>,
        private readonly max = 32,
    ) {}

    /** An entry's diff; a failed fetch is not kept. */
    diff(id: string): Promise<ChangesDiffResult> {
        let p = this.diffs.get(id);
        if (p) {
            this.diffs.delete(id);
            this.diffs.set(id, p);
            return p;
        }
        p = this.fetch(id);
        this.diffs.set(id, p);
        p.catch(() => {
            if (this.diffs.get(id) === p) {
                this.diffs.delete(id);
            }
        });
        while (this.diffs.size > this.max) {
            const oldest = this.diffs.keys().next();
            if (oldest.done) {
                break;
            }
            this.diffs.delete(oldest.value);
        }
        return p;
    }

    /** The text of the document `ref` names; rejects when it names nothing. */
    async content(ref: ChangeDocRef): Promise<string> {
        if (ref.kind === 'conflicts') {
            const text = this.reports.get(ref.key);
            if (text === undefined) {
                throw new Error('this conflict report is gone (it is kept until the window reloads)');
            }
            return text;
        }
        const d = await this.diff(ref.id);
        const f = d.files.find((f) => f.path === ref.path);
        if (!f) {
            throw new Error(`change ${ref.id} did not change ${ref.path}`);
        }
        return sideText(f, ref.side);
    }

    /** Keeps a conflict report; returns the key its URI names. */
    addReport(text: string): string {
        const key = String(++this.seq);
        this.reports.set(key, text);
        return key;
    }
}

// Reverts -------------------------------------------------------------------

const plural = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`;

/**
 * The message after a revert that worked. `reverted` holds the ids of the
 * entries it took back; `label` names an entry the view knows.
 */
export function revertMessage(r: ChangesRevertResult, label: (id: string) => string | undefined = () => undefined): string {
    const ids = r.reverted ?? [];
    const files = /\bin (\d+) files?\b/.exec(r.text ?? '')?.[1];
    const where = files ? ` (${plural(Number(files), 'file')})` : '';
    if (ids.length === 0) {
        return (r.text ?? '').split('\n')[0] || 'Reverted.';
    }
    if (ids.length === 1) {
        const l = label(ids[0]);
        return `Reverted ${l ? `"${l}"` : `change ${ids[0]}`}${where}.`;
    }
    return `Reverted ${ids.length} changes, newest first${where}.`;
}

/** The short message of a revert refused for conflicts: the files, and that nothing changed. */
export function conflictMessage(r: ChangesRevertResult, rel: (p: string) => string = (p) => p): string {
    const files = (r.conflicts ?? []).map((c) => rel(c.path));
    const names = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '');
    return `Not reverted: ${names} changed since, where the revert would write (${plural(files.length, 'conflict')}). Nothing was changed.`;
}

/** The conflict report document: per file its reason and the hunks that blocked the revert. */
export function conflictReport(r: ChangesRevertResult, what: string, rel: (p: string) => string = (p) => p): string {
    const lines = [
        `# whale could not revert ${what}: ${r.code}`,
        `# ${(r.text || 'the files changed since').split('\n').join('\n# ')}`,
        '# Nothing was changed. The hunks below are the ones that would have overwritten later changes.',
        '',
    ];
    for (const c of r.conflicts ?? []) {
        lines.push(`# ${rel(c.path)}: ${c.reason}`);
        for (const h of c.hunks ?? []) {
            lines.push(h.endsWith('\n') ? h.slice(0, -1) : h);
        }
        lines.push('');
    }
    return lines.join('\n');
}

/** The title of an entry's file's diff editor. */
export function diffTitle(e: ChangeEntry, f: ChangeFile, now?: Date): string {
    return `${f.name || basename(f.path)} (${e.tool || 'change'}, ${formatTime(e.time, now)}) before \u2194 after`;
}

/** The entry id a command was given: a tree node of the view, an entry, or an id. */
export function entryIdOf(arg: unknown): string | undefined {
    if (typeof arg === 'string') {
        return arg || undefined;
    }
    if (arg && typeof arg === 'object') {
        const o = arg as { kind?: string; entry?: { id?: unknown }; id?: unknown; node?: unknown };
        if (o.node !== undefined) {
            return entryIdOf(o.node);
        }
        if ((o.kind === 'entry' || o.kind === 'file') && typeof o.entry?.id === 'string') {
            return o.entry.id;
        }
        if (typeof o.id === 'string' && Array.isArray((o as { files?: unknown }).files)) {
            return o.id;
        }
    }
    return undefined;
}
