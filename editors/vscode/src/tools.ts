// whale's catalog as VS Code language-model tools (`whale_<tool>`): invoke
// sends workspace/executeCommand whale.<tool> with the input and the
// cancellation token and returns the Envelope's text.
import * as vscode from 'vscode';
import { catalogToolName } from './contributions';
import { confirmation, invocationMessage, neverAsk, previewConfirmation, type Preview, type ShellJudgement } from './invocation';
import { sessionIdOf, type ChatOrigin } from './chatOrigin';
import { manifest } from './manifest';
import type { Envelope } from './requests';

/** What the tools need from the extension's context. */
export interface ToolHost {
    /** Runs one tool; rejects when the server is not running. */
    execute(tool: string, input: unknown, token: vscode.CancellationToken): Promise<Envelope>;
    /** Whether a tool only reads (undefined while unknown). */
    readOnly(tool: string): boolean | undefined;
    /** whale/shell/judge for a shell_run command; undefined when the server cannot tell. */
    judgeShell(command: string, cwd: string | undefined, token: vscode.CancellationToken): Promise<ShellJudgement | undefined>;
    /** whale/preview of a call; undefined when the server cannot tell (older servers: the call is judged here). */
    preview?(tool: string, input: Record<string, unknown>, token: vscode.CancellationToken): Promise<Preview | undefined>;
    /** A tool call's result, once it returned: what the chat shows of the files it changed (src/chatEdits.ts). */
    changed?(tool: string, env: Envelope, origin: ChatOrigin | undefined): Promise<{ message: string; uris: vscode.Uri[] } | undefined>;
    /** A call is about to run, from the chat of origin (undefined: unknown). */
    calling?(tool: string, origin: ChatOrigin | undefined): void;
}

/** The chat a call came from: the invocation options' chatSessionResource/chatRequestId (proposed API, absent elsewhere). */
function originOf(options: unknown): ChatOrigin | undefined {
    const o = options as { chatSessionResource?: { toString(): string }; chatSessionId?: string; chatRequestId?: string };
    const session = o.chatSessionResource ? sessionIdOf(o.chatSessionResource.toString()) : o.chatSessionId;
    return session && o.chatRequestId ? { session, request: o.chatRequestId } : undefined;
}

/** VS Code's ExtendedLanguageModelToolResult (proposed: a message and file links under the call), when it has one. */
type ResultWithDetails = vscode.LanguageModelToolResult & { toolResultMessage?: vscode.MarkdownString; toolResultDetails?: vscode.Uri[] };
const Extended = (vscode as unknown as { ExtendedLanguageModelToolResult?: new (parts: vscode.LanguageModelTextPart[]) => ResultWithDetails })
    .ExtendedLanguageModelToolResult;

/** The result VS Code gets: the model's text, plus (where VS Code can show it) what changed. */
export function toolResult(text: string, shown: { message: string; uris: vscode.Uri[] } | undefined): vscode.LanguageModelToolResult {
    const parts = [new vscode.LanguageModelTextPart(text)];
    if (!shown || !Extended) {
        return new vscode.LanguageModelToolResult(parts);
    }
    const r = new Extended(parts);
    r.toolResultMessage = new vscode.MarkdownString(shown.message);
    r.toolResultDetails = shown.uris;
    return r;
}

/** The model-facing text of an Envelope: failures say their code first. */
export function envelopeText(env: Envelope): string {
    const text = env.text ?? '';
    return env.ok ? text : `${env.code}: ${text}`;
}

function rel(p: string): string {
    return vscode.workspace.asRelativePath(p, false);
}

/** Registers every `whale_*` tool contributed in package.json. */
export function registerTools(extension: vscode.Extension<unknown>, host: ToolHost): vscode.Disposable[] {
    if (typeof vscode.lm?.registerTool !== 'function') {
        return [];
    }
    const contributed = manifest(extension).contributes?.languageModelTools ?? [];
    const out: vscode.Disposable[] = [];
    for (const { name } of contributed) {
        const tool = catalogToolName(name);
        if (!tool) {
            continue;
        }
        out.push(
            vscode.lm.registerTool<Record<string, unknown>>(name, {
                async prepareInvocation(options, token) {
                    const input = options.input ?? {};
                    if (host.readOnly(tool) === true || neverAsk.has(tool)) {
                        return { invocationMessage: invocationMessage(tool, input, rel) };
                    }
                    const preview = await host.preview?.(tool, input, token);
                    if (preview) {
                        const c = previewConfirmation(preview);
                        return {
                            invocationMessage: invocationMessage(tool, input, rel),
                            confirmationMessages: c && { title: c.title, message: new vscode.MarkdownString(c.message) },
                        };
                    }
                    const command = tool === 'shell_run' && typeof input.command === 'string' ? input.command : undefined;
                    const judged = command ? await host.judgeShell(command, typeof input.cwd === 'string' ? input.cwd : undefined, token) : undefined;
                    const review = vscode.workspace.getConfiguration('whale').get<string>('edits.review') === 'ask';
                    const confirm = confirmation(tool, input, host.readOnly(tool) ?? false, rel, { shell: judged, review });
                    return {
                        invocationMessage: invocationMessage(tool, input, rel),
                        confirmationMessages: confirm && { title: confirm.title, message: new vscode.MarkdownString(confirm.message) },
                    };
                },
                async invoke(options, token) {
                    const origin = originOf(options);
                    host.calling?.(tool, origin);
                    const env = await host.execute(tool, options.input ?? {}, token);
                    const shown = await host.changed?.(tool, env, origin).catch(() => undefined);
                    return toolResult(envelopeText(env), shown);
                },
            }),
        );
    }
    return out;
}
