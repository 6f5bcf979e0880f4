// Pure: VS Code's diagnostics and the results of its `vscode.execute*Provider`
// commands in the shapes of `whale/diagnostics` and `whale/languageFeature`
// (the standard LSP results). VS Code numbers severities and symbol kinds
// from 0, LSP from 1; positions are UTF-16 in both. Structural types, so that
// the unit tests need no VS Code; `U` is VS Code's Uri, turned into the
// string the language client sends with `asUri`.
import type { DiagnosticItem, LspPosition, LspRange } from './requests';

export type AsUri<U> = (uri: U) => string;

export interface CodeRange {
    start: LspPosition;
    end: LspPosition;
}

export interface CodeDiagnostic {
    range: CodeRange;
    message: string;
    /** vscode.DiagnosticSeverity: 0 Error, 1 Warning, 2 Information, 3 Hint. */
    severity: number;
    source?: string;
    code?: string | number | { value: string | number; target: unknown };
}

export interface CodeLocation<U> {
    uri: U;
    range: CodeRange;
}

export interface CodeLocationLink<U> {
    targetUri: U;
    targetRange: CodeRange;
    targetSelectionRange?: CodeRange;
    originSelectionRange?: CodeRange;
}

/** A hover's part: vscode.MarkdownString, or a MarkedString (markdown text, or code in a language). */
export type CodeHoverPart = string | { value: string; language?: string };

export interface CodeHover {
    contents: CodeHoverPart[];
    range?: CodeRange;
}

export interface CodeDocumentSymbol {
    name: string;
    detail?: string;
    kind: number;
    range: CodeRange;
    selectionRange: CodeRange;
    children?: CodeDocumentSymbol[];
}

export interface CodeSymbolInformation<U> {
    name: string;
    kind: number;
    containerName?: string;
    location: CodeLocation<U>;
}

export interface CodeTextEdit {
    range: CodeRange;
    newText?: string;
}

/** A file operation of a vscode.WorkspaceEdit: from only = delete, to only = create, both = rename. */
export interface CodeFileOperation<U> {
    from?: U;
    to?: U;
}

/** `{line, character}` only (VS Code's Position also has methods). */
export function position(p: LspPosition): LspPosition {
    return { line: p.line, character: p.character };
}

export function range(r: CodeRange): LspRange {
    return { start: position(r.start), end: position(r.end) };
}

/** A VS Code diagnostic as a `whale/diagnostics` item: severity + 1, a code `{value, target}` as its value. */
export function diagnosticItem(uri: string, d: CodeDiagnostic): DiagnosticItem {
    const item: DiagnosticItem = { uri, range: range(d.range), severity: d.severity + 1, message: d.message };
    if (d.source) {
        item.source = d.source;
    }
    const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
    if (code !== undefined && code !== '') {
        item.code = code;
    }
    return item;
}

/** Every item of getDiagnostics' `[uri, diagnostics]` pairs. */
export function diagnosticItems<U>(entries: ReadonlyArray<readonly [U, readonly CodeDiagnostic[]]>, asUri: AsUri<U>): DiagnosticItem[] {
    return entries.flatMap(([uri, ds]) => {
        const u = asUri(uri);
        return ds.map((d) => diagnosticItem(u, d));
    });
}

/**
 * Counts, per document URI, the times VS Code's diagnostics of it changed
 * (every time a language server sets them, also to the same ones).
 */
export class PublicationCounts {
    private readonly counts = new Map<string, number>();

    /** One onDidChangeDiagnostics event for these URIs. */
    changed(uris: readonly string[]): void {
        for (const u of uris) {
            this.counts.set(u, (this.counts.get(u) ?? 0) + 1);
        }
    }

    /** whale/diagnostics' `published` for these URIs: only those counted; undefined when none is. */
    of(uris: readonly string[]): Record<string, number> | undefined {
        const out: Record<string, number> = {};
        let any = false;
        for (const u of uris) {
            const n = this.counts.get(u);
            if (n !== undefined) {
                out[u] = n;
                any = true;
            }
        }
        return any ? out : undefined;
    }
}

/** Location[] or LocationLink[] (each as VS Code returned it). */
export function locations<U>(results: ReadonlyArray<CodeLocation<U> | CodeLocationLink<U>> | undefined, asUri: AsUri<U>): unknown[] {
    return (results ?? []).map((r) => {
        if ('targetUri' in r) {
            const link: Record<string, unknown> = {
                targetUri: asUri(r.targetUri),
                targetRange: range(r.targetRange),
                targetSelectionRange: range(r.targetSelectionRange ?? r.targetRange),
            };
            if (r.originSelectionRange) {
                link.originSelectionRange = range(r.originSelectionRange);
            }
            return link;
        }
        return { uri: asUri(r.uri), range: range(r.range) };
    });
}

function hoverPartText(part: CodeHoverPart): string {
    if (typeof part === 'string') {
        return part;
    }
    return part.language !== undefined ? '```' + part.language + '\n' + part.value + '\n```' : part.value;
}

/** The hovers of every provider as one Hover with one MarkupContent; null when they say nothing. */
export function hover(hovers: readonly CodeHover[] | undefined): { contents: { kind: 'markdown'; value: string }; range?: LspRange } | null {
    // Trimmed: MarkdownString.appendCodeblock starts its block with a line break.
    const parts = (hovers ?? []).flatMap((h) => h.contents.map((c) => hoverPartText(c).trim())).filter((t) => t !== '');
    if (parts.length === 0) {
        return null;
    }
    const out: { contents: { kind: 'markdown'; value: string }; range?: LspRange } = { contents: { kind: 'markdown', value: parts.join('\n\n') } };
    const first = (hovers ?? []).find((h) => h.range)?.range;
    if (first) {
        out.range = range(first);
    }
    return out;
}

function documentSymbol(s: CodeDocumentSymbol): unknown {
    const out: Record<string, unknown> = {
        name: s.name,
        kind: s.kind + 1,
        range: range(s.range),
        selectionRange: range(s.selectionRange),
        children: (s.children ?? []).map(documentSymbol),
    };
    if (s.detail) {
        out.detail = s.detail;
    }
    return out;
}

function symbolInformation<U>(s: CodeSymbolInformation<U>, asUri: AsUri<U>): unknown {
    const out: Record<string, unknown> = { name: s.name, kind: s.kind + 1, location: { uri: asUri(s.location.uri), range: range(s.location.range) } };
    if (s.containerName) {
        out.containerName = s.containerName;
    }
    return out;
}

/**
 * executeDocumentSymbolProvider's result: DocumentSymbol[] when every entry
 * has a selectionRange (VS Code's own objects are both kinds at once), else
 * SymbolInformation[].
 */
export function documentSymbols<U>(list: ReadonlyArray<CodeDocumentSymbol | CodeSymbolInformation<U>> | undefined, asUri: AsUri<U>): unknown[] {
    const all = list ?? [];
    if (all.every((s) => 'selectionRange' in s && s.selectionRange)) {
        return (all as CodeDocumentSymbol[]).map(documentSymbol);
    }
    return all.filter((s): s is CodeSymbolInformation<U> => 'location' in s && !!s.location).map((s) => symbolInformation(s, asUri));
}

/** executeWorkspaceSymbolProvider's result as SymbolInformation[]. */
export function workspaceSymbols<U>(list: ReadonlyArray<CodeSymbolInformation<U>> | undefined, asUri: AsUri<U>): unknown[] {
    return (list ?? []).map((s) => symbolInformation(s, asUri));
}

function textEdits(edits: readonly CodeTextEdit[]): Array<{ range: LspRange; newText: string }> {
    return edits.map((e) => {
        if (typeof e.newText !== 'string') {
            throw new Error('the rename provider returned an edit without plain text (a snippet edit); rename the symbol with multi_edit instead');
        }
        return { range: range(e.range), newText: e.newText };
    });
}

/**
 * A rename's vscode.WorkspaceEdit as an LSP WorkspaceEdit: its text edits as
 * `changes`; with file operations, every part as `documentChanges` in which
 * each operation keeps its `kind`, so that the server refuses the whole
 * edit and says why.
 */
export function workspaceEdit<U>(
    entries: ReadonlyArray<readonly [U, readonly CodeTextEdit[]]>,
    operations: ReadonlyArray<CodeFileOperation<U>>,
    asUri: AsUri<U>,
): unknown {
    if (operations.length === 0) {
        const changes: Record<string, unknown[]> = {};
        for (const [uri, edits] of entries) {
            const u = asUri(uri);
            changes[u] = [...(changes[u] ?? []), ...textEdits(edits)];
        }
        return { changes };
    }
    const documentChanges: unknown[] = entries.map(([uri, edits]) => ({ textDocument: { uri: asUri(uri), version: null }, edits: textEdits(edits) }));
    for (const op of operations) {
        if (op.from !== undefined && op.to !== undefined) {
            documentChanges.push({ kind: 'rename', oldUri: asUri(op.from), newUri: asUri(op.to) });
        } else if (op.to !== undefined) {
            documentChanges.push({ kind: 'create', uri: asUri(op.to) });
        } else if (op.from !== undefined) {
            documentChanges.push({ kind: 'delete', uri: asUri(op.from) });
        }
    }
    return { documentChanges };
}

/**
 * The file operations of a vscode.WorkspaceEdit. The API has no accessor
 * for them; the extension host keeps every part in `_allEntries()`, file
 * operations as `{_type: 1, from, to}`. Without that method there are none
 * to find.
 */
export function fileOperations<U>(edit: unknown): CodeFileOperation<U>[] {
    const all = (edit as { _allEntries?: () => unknown }) ?? {};
    if (typeof all._allEntries !== 'function') {
        return [];
    }
    const entries = all._allEntries();
    if (!Array.isArray(entries)) {
        return [];
    }
    return entries
        .filter((e): e is { _type: 1; from?: U; to?: U } => typeof e === 'object' && e !== null && (e as { _type?: unknown })._type === 1)
        .map((e) => ({ from: e.from ?? undefined, to: e.to ?? undefined }));
}
