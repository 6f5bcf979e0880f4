// The editor's intelligence for whale's language tools: answers
// `whale/diagnostics` from vscode.languages.getDiagnostics and
// `whale/languageFeature` through the vscode.execute*Provider commands, so
// the model gets the answers of the language servers the user already has.
// A rename's WorkspaceEdit is only computed here; whale-ls applies it
// through its own commit path. The shapes are made in languageMapping.ts.
import * as vscode from 'vscode';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken, type LanguageClient } from 'vscode-languageclient/node';
import * as map from './languageMapping';
import * as req from './requests';

/** How long diagnostics of a document opened in the background are awaited (the server's own wait bounds the rest). */
const openedDiagnosticsMs = 1000;

export class LanguageFeatures {
    constructor(
        private readonly client: LanguageClient,
        private readonly log: vscode.LogOutputChannel,
    ) {}

    /** How often each document's diagnostics changed since the client started. */
    private readonly published = new map.PublicationCounts();

    register(): vscode.Disposable[] {
        return [
            vscode.languages.onDidChangeDiagnostics((e) => this.published.changed(e.uris.map(this.asUri))),
            this.client.onRequest(req.diagnostics, (p, token) => this.answer('diagnostics', () => this.diagnostics(p, token))),
            this.client.onRequest(req.languageFeature, (p) => this.answer(`${p?.kind ?? 'language feature'} provider`, () => this.feature(p))),
        ];
    }

    private asUri = (uri: vscode.Uri): string => this.client.code2ProtocolConverter.asUri(uri);

    /** Runs one answer; a failure becomes a JSON-RPC error whose message says what failed. */
    private async answer<T>(what: string, run: () => Promise<T>): Promise<T | ResponseError> {
        try {
            return await run();
        } catch (err) {
            if (err instanceof ResponseError) {
                return err;
            }
            const msg = err instanceof Error ? err.message : String(err);
            this.log.warn(`${what} for whale-ls failed: ${msg}`);
            return new ResponseError(LSPErrorCodes.RequestFailed, `VS Code's ${what} failed: ${msg}`);
        }
    }

    private async diagnostics(p: req.DiagnosticsParams, token: CancellationToken): Promise<req.DiagnosticsResult> {
        const uris = (p?.uris ?? []).map((u) => this.client.protocol2CodeConverter.asUri(u));
        if (uris.length === 0) {
            const all = vscode.languages.getDiagnostics().filter(([, ds]) => ds.length > 0);
            return { items: map.diagnosticItems(all, this.asUri) };
        }
        const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d] as const));
        const opened: vscode.Uri[] = [];
        let plain = 0;
        for (const uri of uris) {
            let doc = open.get(uri.toString());
            if (!doc) {
                try {
                    // Opened, never shown: the language servers diagnose open documents.
                    doc = await vscode.workspace.openTextDocument(uri);
                } catch (err) {
                    this.log.info(`${uri.toString()} cannot be opened for its diagnostics: ${err instanceof Error ? err.message : String(err)}`);
                    continue;
                }
                if (doc.languageId !== 'plaintext') {
                    opened.push(uri);
                }
            }
            // Plain text (a file of no known language) has no language server to wait for.
            if (doc.languageId === 'plaintext' && vscode.languages.getDiagnostics(uri).length === 0) {
                plain++;
            }
        }
        if (plain === uris.length) {
            // An error, not an empty answer: the server then does not wait for problems that cannot come.
            throw new ResponseError(LSPErrorCodes.RequestFailed, 'nothing in VS Code diagnoses these files (plain text, no diagnostics)');
        }
        if (opened.length > 0) {
            await diagnosticsOf(opened, openedDiagnosticsMs, token);
        }
        const result: req.DiagnosticsResult = {
            items: map.diagnosticItems(
                uris.map((u) => [u, vscode.languages.getDiagnostics(u)] as const),
                this.asUri,
            ),
        };
        const published = this.published.of(uris.map(this.asUri));
        if (published) {
            result.published = published;
        }
        return result;
    }

    private async feature(p: req.LanguageFeatureParams): Promise<unknown> {
        const uri = () => {
            if (!p.uri) {
                throw new ResponseError(ErrorCodes.InvalidParams, `whale/languageFeature ${p.kind} needs a uri`);
            }
            return this.client.protocol2CodeConverter.asUri(p.uri);
        };
        const pos = () => {
            if (!p.position) {
                throw new ResponseError(ErrorCodes.InvalidParams, `whale/languageFeature ${p.kind} needs a position`);
            }
            return new vscode.Position(p.position.line, p.position.character);
        };
        const run = <T>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);
        switch (p.kind) {
            case 'definition':
                return map.locations(await run<Array<vscode.Location | vscode.LocationLink>>('vscode.executeDefinitionProvider', uri(), pos()), this.asUri);
            case 'references':
                return map.locations(await run<vscode.Location[]>('vscode.executeReferenceProvider', uri(), pos()), this.asUri);
            case 'hover':
                return map.hover(await run<vscode.Hover[]>('vscode.executeHoverProvider', uri(), pos()));
            case 'documentSymbols':
                return map.documentSymbols(
                    await run<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>('vscode.executeDocumentSymbolProvider', uri()),
                    this.asUri,
                );
            case 'workspaceSymbols':
                return map.workspaceSymbols(await run<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', p.query ?? ''), this.asUri);
            case 'rename': {
                if (!p.newName) {
                    throw new ResponseError(ErrorCodes.InvalidParams, 'whale/languageFeature rename needs a newName');
                }
                const edit = await run<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri(), pos(), p.newName);
                if (!edit) {
                    return null;
                }
                return map.workspaceEdit(edit.entries(), map.fileOperations<vscode.Uri>(edit), this.asUri);
            }
            default:
                throw new ResponseError(
                    ErrorCodes.InvalidParams,
                    `whale/languageFeature has no kind ${JSON.stringify(p?.kind)}; the kinds are definition, references, hover, documentSymbols, workspaceSymbols and rename`,
                );
        }
    }
}

/** Resolves when VS Code reported diagnostics for every uri, after `ms`, or on cancellation. */
function diagnosticsOf(uris: vscode.Uri[], ms: number, token: CancellationToken): Promise<void> {
    const waiting = new Set(uris.map((u) => u.toString()));
    return new Promise((resolve) => {
        const done = () => {
            clearTimeout(timer);
            changed.dispose();
            canceled.dispose();
            resolve();
        };
        const timer = setTimeout(done, ms);
        const changed = vscode.languages.onDidChangeDiagnostics((e) => {
            for (const u of e.uris) {
                waiting.delete(u.toString());
            }
            if (waiting.size === 0) {
                done();
            }
        });
        const canceled = token.onCancellationRequested(done);
    });
}
