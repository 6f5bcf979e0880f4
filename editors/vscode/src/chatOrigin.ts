// Pure: which chat turn made a whale change, and which change a tool result names. Used by
// src/chatEdits.ts and src/tools.ts.

/** Tools whose successful result is a journaled change. */
export const changingTools: ReadonlySet<string> = new Set(['edit', 'multi_edit', 'write', 'apply_patch', 'rename', 'changes_revert']);

/** The journal entry id a change result names ("Journal entry 20261206T…-31af"). */
export function journalEntryOf(text: string): string | undefined {
    return /Journal entry ([\w.:-]*\w)/.exec(text)?.[1];
}

/** The chat a tool call came from, as VS Code's invocation options carry it (proposed API, may be absent). */
export interface ChatOrigin {
    /** The local session id (what chat.onDidDisposeChatSession fires with), or the session resource. */
    session: string;
    request: string;
}

/** The session id inside a local chat session resource (`vscode-chat-session://local/<base64 id>`). */
export function sessionIdOf(resource: string): string {
    const m = /^[\w-]+:\/\/[^/]+\/([^/]+)$/.exec(resource);
    if (m) {
        try {
            const id = Buffer.from(decodeURIComponent(m[1]).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
            if (id && /^[\x20-\x7e]+$/.test(id)) {
                return id;
            }
        } catch {
            // not base64: keep the resource
        }
    }
    return resource;
}
