// Pure: why VS Code refused a workspace/applyEdit. VS Code answers
// applied:false without a reason when an open document's version differs
// from the one an edit is pinned to; the server passes the reason on to the
// model.

export interface VersionedEdit {
    uri: string;
    version: number | null;
}

export interface OpenDocumentState {
    version: number;
    isDirty: boolean;
}

/** A short name for a uri: its last two path segments. */
export function shortName(uri: string): string {
    const path = decodeURIComponent(uri.replace(/^[a-z]+:\/\/[^/]*/i, ''));
    const parts = path.split('/').filter(Boolean);
    return parts.slice(-2).join('/') || uri;
}

/**
 * The failure reason for a refused edit: the documents whose editor version
 * is not the version the edit was made for, or a general reason.
 */
export function failureReason(edits: VersionedEdit[], open: (uri: string) => OpenDocumentState | undefined): string {
    const stale: string[] = [];
    for (const e of edits) {
        if (e.version === null || e.version < 0) {
            continue;
        }
        const doc = open(e.uri);
        if (doc && doc.version !== e.version) {
            stale.push(`${shortName(e.uri)} is at version ${doc.version} in the editor, the edit was made for version ${e.version}`);
        }
    }
    if (stale.length > 0) {
        return `stale document version: ${stale.join('; ')}`;
    }
    return 'VS Code refused the workspace edit (the document may have changed, be read-only, or a file operation failed)';
}
