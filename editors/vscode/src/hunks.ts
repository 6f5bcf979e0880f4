// Pure: the hunks of a unified diff (as whale's journal gives it, `whale/changes/diff`), and the
// edit that takes one hunk back. Used by src/chatEdits.ts for the per-hunk Keep/Undo in the editor.

/** One hunk of one file. Lines keep their one-character prefix (' ', '-', '+'). */
export interface Hunk {
    oldStart: number;
    oldLines: number;
    newStart: number;
    newLines: number;
    lines: string[];
    /** Lines added and removed by the hunk. */
    added: number;
    removed: number;
}

/** One file of a unified diff: its new path (the old one for a deletion) and its hunks. */
export interface FileHunks {
    path: string;
    hunks: Hunk[];
}

function headerPath(line: string): string {
    const p = line.slice(4).replace(/\t.*$/, '').trim();
    return p.replace(/^[ab]\//, '');
}

/** The files and hunks of a unified diff; text outside a hunk is skipped. */
export function parseUnifiedDiff(diff: string): FileHunks[] {
    const files: FileHunks[] = [];
    let oldPath = '';
    let file: FileHunks | undefined;
    let hunk: Hunk | undefined;
    for (const line of diff.split('\n')) {
        if (line.startsWith('--- ') && (!hunk || hunkDone(hunk))) {
            oldPath = headerPath(line);
            hunk = undefined;
            continue;
        }
        if (line.startsWith('+++ ') && !hunk) {
            const newPath = headerPath(line);
            file = { path: newPath === '/dev/null' ? oldPath : newPath, hunks: [] };
            files.push(file);
            continue;
        }
        const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
        if (m && file) {
            hunk = {
                oldStart: Number(m[1]),
                oldLines: m[2] === undefined ? 1 : Number(m[2]),
                newStart: Number(m[3]),
                newLines: m[4] === undefined ? 1 : Number(m[4]),
                lines: [],
                added: 0,
                removed: 0,
            };
            file.hunks.push(hunk);
            continue;
        }
        if (hunk && !hunkDone(hunk) && /^[ +-]/.test(line)) {
            hunk.lines.push(line);
            if (line.startsWith('+')) {
                hunk.added++;
            } else if (line.startsWith('-')) {
                hunk.removed++;
            }
        }
    }
    return files;
}

function hunkDone(h: Hunk): boolean {
    const oldSeen = h.lines.filter((l) => !l.startsWith('+')).length;
    const newSeen = h.lines.filter((l) => !l.startsWith('-')).length;
    return oldSeen >= h.oldLines && newSeen >= h.newLines;
}

/** The hunk's text after the change (context and added lines), and before it (context and removed lines). */
export function hunkSides(h: Hunk): { after: string; before: string } {
    const after = h.lines.filter((l) => !l.startsWith('-')).map((l) => l.slice(1));
    const before = h.lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1));
    return { after: after.join('\n'), before: before.join('\n') };
}

/**
 * The input of a whale `edit` that takes the hunk back: the hunk's lines as
 * they are now (with its context lines, so the match is unique) replaced by
 * the lines before. Undefined when the hunk has no line after the change to
 * anchor on (a file emptied completely): revert the whole change instead.
 */
export function undoHunkEdit(filePath: string, h: Hunk): { file_path: string; search: string; replace: string } | undefined {
    const { after, before } = hunkSides(h);
    if (h.lines.every((l) => l.startsWith('-'))) {
        return undefined;
    }
    return { file_path: filePath, search: after, replace: before };
}

/** The 0-based line range the hunk's changed lines occupy after the change, found near its line in `text`. */
export function hunkRange(text: string, h: Hunk): { start: number; end: number } | undefined {
    const { after } = hunkSides(h);
    const lines = text.split('\n');
    const want = after.split('\n');
    const fits = (at: number) => want.every((w, k) => lines[at + k]?.replace(/\r$/, '') === w);
    const guess = h.newStart - 1;
    let at = -1;
    for (let d = 0; d < lines.length && at < 0; d++) {
        if (guess - d >= 0 && fits(guess - d)) {
            at = guess - d;
        } else if (d > 0 && guess + d < lines.length && fits(guess + d)) {
            at = guess + d;
        }
    }
    if (at < 0) {
        return undefined;
    }
    // Narrow to the changed lines: skip the leading and trailing context. A hunk that only removes
    // lines marks the line that now follows them.
    let first = -1;
    let last = -1;
    let n = 0;
    for (const l of h.lines) {
        if (l.startsWith('+')) {
            first = first < 0 ? n : first;
            last = n;
        }
        if (l.startsWith('-') && first < 0) {
            first = n;
            last = n;
        }
        if (!l.startsWith('-')) {
            n++;
        }
    }
    first = Math.min(Math.max(first, 0), Math.max(want.length - 1, 0));
    last = Math.min(Math.max(last, first), Math.max(want.length - 1, 0));
    return { start: at + first, end: at + last };
}
