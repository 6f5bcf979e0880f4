// The context of the extension: owns the language client, its handlers and
// every disposable, and knows how to (re)start the server.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
    CloseAction,
    DidChangeConfigurationNotification,
    ErrorAction,
    ApplyWorkspaceEditRequest,
    ResponseError,
    ErrorCodes,
    ExecuteCommandRequest,
    LanguageClient,
    State,
    type ApplyWorkspaceEditParams,
    type ApplyWorkspaceEditResult,
    type ClientCapabilities,
    type LanguageClientOptions,
    type ServerOptions,
    type StaticFeature,
    type TextDocumentEdit,
} from 'vscode-languageclient/node';
import { failureReason } from './applyEditReason';
import { ChatEdits, onChatDisposed } from './chatEdits';
import { Changes } from './changesView';
import { serverSettingKeys, serverSettingsObject } from './contributions';
import { LanguageFeatures } from './language';
import { hasMcpApi, registerMcpProvider } from './mcp';
import { Prompts } from './prompts';
import * as req from './requests';
import { binaryName, bundledTarget, CrashLimit, crashLimitMessage, crashWindowMs, maxRestarts, resolveServerPath } from './serverPath';
import { WhaleStatus } from './status';
import { WhaleTerminals } from './terminals';
import { registerTools } from './tools';
import { mcpServerSetting, toolSurface, toolsViaMcpContextKey, type ToolSurface } from './toolSurface';
import { WhaleView } from './view';
import { manifest } from './manifest';

/** What the extension exports to other extensions. */
export interface WhaleApi {
    /** Resolves when the server is running (rejects if it cannot start). */
    ready(): Promise<void>;
    /** Runs one whale tool and returns its Envelope. */
    execute(tool: string, input: unknown, token?: vscode.CancellationToken): Promise<req.Envelope>;
}

/**
 * Options of a Ctx. The shipped extension (src/main.ts) passes none; the
 * end-to-end test builds its own entry point (test/e2e/whale/main.ts) that
 * passes test seams here, so no other extension can reach them.
 */
export interface CtxOptions {
    /** Test seam: awaited before VS Code applies a server's workspace edit. */
    beforeApplyEdit?: (params: ApplyWorkspaceEditParams) => Promise<void>;
}

const neverCanceled = new vscode.CancellationTokenSource().token;

/** Declares capabilities.experimental.whale. */
class WhaleCapabilities implements StaticFeature {
    fillClientCapabilities(caps: ClientCapabilities): void {
        caps.experimental = { ...(caps.experimental as object | undefined), whale: req.extensionCapabilities };
    }
    initialize(): void {}
    getState() {
        return { kind: 'static' } as const;
    }
    clear(): void {}
}

function isExecutable(file: string): boolean {
    try {
        const st = fs.statSync(file);
        if (!st.isFile()) {
            return false;
        }
        fs.accessSync(file, fs.constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/** Some installers drop the executable bit of the bundled binary; put it back. */
function ensureExecutable(file: string): void {
    try {
        const st = fs.statSync(file);
        if (st.isFile() && (st.mode & 0o111) === 0) {
            fs.chmodSync(file, st.mode | 0o755);
        }
    } catch {
        // no bundled binary
    }
}

function config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('whale');
}

function isSet(cfg: vscode.WorkspaceConfiguration, key: string): boolean {
    const i = cfg.inspect(key);
    return !!i && (i.globalValue !== undefined || i.workspaceValue !== undefined || i.workspaceFolderValue !== undefined);
}

/** The server's settings among `keys` as the user set them. */
function currentServerSettings(keys: string[]): Record<string, unknown> {
    const cfg = config();
    return serverSettingsObject(
        keys,
        (k) => cfg.get(k),
        (k) => isSet(cfg, k),
    );
}

export class Ctx implements vscode.Disposable {
    readonly log: vscode.LogOutputChannel;
    private readonly traceOutput: vscode.LogOutputChannel;
    private readonly subscriptions: vscode.Disposable[] = [];
    private clientSubscriptions: vscode.Disposable[] = [];
    private client: LanguageClient | undefined;
    private terminals: WhaleTerminals | undefined;
    private readonly view = new WhaleView();
    private readonly changes: Changes;
    private readonly chatEdits: ChatEdits;
    private readonly status: WhaleStatus;
    /** The client whose server answered whale/preview with MethodNotFound. */
    private noPreview: LanguageClient | undefined;
    private readonly crashes = new CrashLimit(maxRestarts, crashWindowMs);
    private readOnly = new Map<string, boolean>();
    private starting: Promise<void> | undefined;
    private stopping = false;
    /** The server's setting keys: package.json's, generated from `whale-ls settings --json`. */
    private readonly serverKeys: string[];
    /** How whale's tools reach the chat now; see src/toolSurface.ts. */
    private surface: ToolSurface | undefined;
    private readonly mcpChanged: () => void;
    readonly api: WhaleApi;

    constructor(
        private readonly extension: vscode.ExtensionContext,
        private readonly options: CtxOptions = {},
    ) {
        this.log = vscode.window.createOutputChannel('Whale', { log: true });
        this.traceOutput = vscode.window.createOutputChannel('Whale Trace', { log: true });
        this.serverKeys = serverSettingKeys(manifest(extension.extension).contributes?.configuration?.properties);
        this.subscriptions.push(this.log, this.traceOutput, this.view);
        const chatGone = onChatDisposed((id) => this.view.chatDisposed(id));
        if (chatGone) {
            this.subscriptions.push(chatGone);
        }
        this.changes = new Changes(this.view, () => this.client, this.log);
        this.chatEdits = new ChatEdits({
            execute: (t, i, tok) => this.execute(t, i, tok),
            diff: async (id) => this.running().sendRequest(req.changesDiff, { id }),
            revert: async (id) => {
                const r = await this.running().sendRequest(req.changesRevert, { id });
                this.changes.refresh();
                return r;
            },
            log: this.log,
        });
        this.status = new WhaleStatus(extension.extension.id);
        this.subscriptions.push(this.chatEdits, this.status);
        const tree = vscode.window.createTreeView('whale.view', { treeDataProvider: this.view });
        this.subscriptions.push(
            tree,
            this.changes,
            // Changes other whale-ls processes made (the MCP server, `whale-ls call`) appear when the view is shown again.
            tree.onDidChangeVisibility((e) => e.visible && this.changes.refresh()),
        );
        this.api = {
            ready: () => this.ready(),
            execute: (tool, input, token) => this.execute(tool, input, token ?? neverCanceled),
        };
        const mcp = registerMcpProvider({
            serverPath: () => {
                const r = this.resolve();
                return r.ok ? r.path : undefined;
            },
            extraEnv: () => config().get<Record<string, string>>('server.extraEnv') ?? {},
            offered: () => this.surface?.mcpServer ?? false,
            version: manifest(extension.extension).version ?? '0',
        });
        this.mcpChanged = mcp.changed;
        // The whale_* tool implementations stay registered in MCP mode: the
        // `when` clause of their contributions keeps them out of the chat, and
        // other extensions can still invoke them.
        this.subscriptions.push(
            ...registerTools(extension.extension, {
                execute: (t, i, tok) => this.execute(t, i, tok),
                readOnly: (t) => this.readOnly.get(t),
                judgeShell: (command, cwd, tok) => this.judgeShell(command, cwd, tok),
                preview: (t, i, tok) => this.preview(t, i, tok),
                changed: (tool, env, origin) => this.chatEdits.changed(tool, env, origin),
                calling: (_tool, origin) => this.view.chatCalled(origin?.session),
            }),
            ...mcp.disposables,
            vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
            vscode.workspace.onDidChangeWorkspaceFolders(() => this.updateToolSurface()),
        );
        this.updateToolSurface();
    }

    /**
     * Decides between the language-model tools and the MCP server definition,
     * sets the context key that hides the `whale_*` tools from the chat in
     * MCP mode, and lets VS Code ask the MCP provider again.
     */
    private updateToolSurface(): void {
        const next = toolSurface({
            mcpServerEnabled: config().get<boolean>(mcpServerSetting) ?? false,
            mcpApi: hasMcpApi(),
            folderScheme: vscode.workspace.workspaceFolders?.[0]?.uri.scheme,
            serverFound: this.resolve().ok,
        });
        const prev = this.surface;
        this.surface = next;
        void vscode.commands.executeCommand('setContext', toolsViaMcpContextKey, next.mcpServer);
        if (prev?.mcpServer !== next.mcpServer || prev?.fallback !== next.fallback) {
            if (next.mcpServer) {
                this.log.info(
                    "whale's tools reach the chat through the MCP server definition Whale (whale.mcpServer.enabled); the whale_* language-model tools are hidden from the chat",
                );
            } else if (next.fallback) {
                this.log.warn(`whale.mcpServer.enabled is on, but ${next.fallback}: whale's tools reach the chat as the whale_* language-model tools`);
            } else {
                this.log.info("whale's tools reach the chat as the whale_* language-model tools (the MCP server definition is off: whale.mcpServer.enabled)");
            }
        }
        this.mcpChanged();
    }

    private resolve() {
        ensureExecutable(path.join(this.extension.extensionPath, 'bin', binaryName(process.platform)));
        return resolveServerPath({
            setting: config().get<string>('serverPath') ?? '',
            extensionPath: this.extension.extensionPath,
            home: os.homedir(),
            pathVar: process.env.PATH ?? '',
            platform: process.platform,
            arch: process.arch,
            bundledTarget: bundledTarget(this.extension.extensionPath),
            isExecutable,
        });
    }

    /** Starts the server; reports a missing binary with the fix. */
    start(): Promise<void> {
        this.starting = this.doStart();
        return this.starting;
    }

    private async doStart(): Promise<void> {
        const resolved = this.resolve();
        this.status.set(resolved.ok ? 'starting' : 'missing');
        if (!resolved.ok) {
            // The callers of start() log the thrown error; only notify here.
            void vscode.window.showErrorMessage(resolved.message, 'Open Settings', 'Show Output').then((pick) => {
                if (pick === 'Open Settings') {
                    void vscode.commands.executeCommand('workbench.action.openSettings', 'whale.serverPath');
                } else if (pick === 'Show Output') {
                    this.log.show();
                }
            });
            throw new Error(resolved.message);
        }
        this.log.info(`starting ${resolved.path} (${resolved.source})`);
        const extraEnv = config().get<Record<string, string>>('server.extraEnv') ?? {};
        const serverOptions: ServerOptions = {
            command: resolved.path,
            args: ['serve', '--log-level', 'warn'],
            options: { env: { ...process.env, ...extraEnv } },
        };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ scheme: 'file' }],
            outputChannel: this.log,
            traceOutputChannel: this.traceOutput,
            initializationOptions: () => currentServerSettings(this.serverKeys),
            errorHandler: {
                error: () => ({ action: ErrorAction.Continue, handled: true }),
                closed: () => this.closed(),
            },
            middleware: {
                workspace: {
                    handleApplyEdit: (params, next) => this.applyEdit(params, next),
                },
            },
        };
        const client = new LanguageClient('whale', 'Whale', serverOptions, clientOptions);
        client.registerFeature(new WhaleCapabilities());
        this.client = client;
        const terminals = new WhaleTerminals(client, this.log, () => config().get<boolean>('terminals.reveal') ?? false);
        this.terminals = terminals;
        this.clientSubscriptions = [
            terminals,
            ...terminals.register(),
            ...new Prompts(client, this.log).register(),
            ...new LanguageFeatures(client, this.log).register(),
            client.onNotification(req.plan, (p) => this.view.setPlan(p)),
            client.onNotification(req.todos, (p) => this.view.setTodos(p)),
            client.onNotification(req.changesChanged, () => this.changes.refresh()),
            client.onRequest(req.saveDocuments, (p) => this.saveDocuments(p)),
            client.onDidChangeState((e) => {
                if (e.newState === State.Stopped) {
                    this.status.set('stopped');
                    terminals.serverStopped();
                    this.changes.serverStopped();
                } else if (e.newState === State.Running) {
                    this.changes.refresh();
                }
            }),
        ];
        await client.start();
        try {
            const { tools } = await client.sendRequest(req.tools);
            this.readOnly = new Map(tools.map((t) => [t.name, t.readOnly]));
            this.log.info(`whale-ls is running with ${tools.length} tools`);
            this.status.set('running', tools.length);
        } catch (err) {
            this.log.warn(`${req.tools.method} failed: ${String(err)}`);
            this.status.set('running');
        }
    }

    /** Resolves when a client is running; waits for a start in progress. */
    async ready(): Promise<void> {
        if (this.starting) {
            await this.starting;
        }
        this.running();
    }

    /** The running client; throws, saying what to do, when there is none. */
    private running(): LanguageClient {
        const c = this.client;
        if (!c?.isRunning()) {
            throw new Error('whale-ls is not running; run "Whale: Restart Server" (output: "Whale")');
        }
        return c;
    }

    async execute(tool: string, input: unknown, token: vscode.CancellationToken): Promise<req.Envelope> {
        await this.ready();
        try {
            return (await this.running().sendRequest(ExecuteCommandRequest.type, { command: `whale.${tool}`, arguments: [input] }, token)) as req.Envelope;
        } finally {
            // A tool that may change files may have journaled a change.
            if (this.readOnly.get(tool) !== true) {
                this.changes.refresh();
            }
        }
    }

    /** The catalog of the running server (whale/tools). */
    async catalog(): Promise<req.ToolInfo[]> {
        await this.ready();
        return (await this.running().sendRequest(req.tools)).tools;
    }

    /**
     * whale/preview; undefined when the server is not running, cannot tell, or
     * predates the request (MethodNotFound, remembered: the caller falls back
     * to judging the call itself).
     */
    async preview(tool: string, input: Record<string, unknown>, token: vscode.CancellationToken): Promise<req.PreviewResult | undefined> {
        const c = this.client;
        if (!c?.isRunning() || this.noPreview === c) {
            return undefined;
        }
        try {
            return await c.sendRequest(req.preview, { tool, input }, token);
        } catch (err) {
            if ((err as { code?: unknown }).code === ErrorCodes.MethodNotFound) {
                this.noPreview = c;
                this.log.info('this whale-ls has no whale/preview: confirmations show the call without a preview');
            } else {
                this.log.warn(
                    `whale/preview failed, so the confirmation shows the call without a preview: ${err instanceof Error ? err.message : String(err)}`,
                );
            }
            return undefined;
        }
    }

    /** whale/shell/judge; undefined when the server is not running or cannot tell (VS Code then asks). */
    async judgeShell(command: string, cwd: string | undefined, token: vscode.CancellationToken): Promise<req.ShellJudgeResult | undefined> {
        const c = this.client;
        if (!c?.isRunning()) {
            return undefined;
        }
        try {
            return await c.sendRequest(req.shellJudge, { command, cwd }, token);
        } catch (err) {
            this.log.warn(`whale/shell/judge failed, so VS Code asks before the command: ${err instanceof Error ? err.message : String(err)}`);
            return undefined;
        }
    }

    private closed() {
        if (this.stopping) {
            return { action: CloseAction.DoNotRestart, handled: true };
        }
        if (this.crashes.crashed(Date.now())) {
            this.log.warn('whale-ls stopped unexpectedly; restarting it');
            return { action: CloseAction.Restart, handled: true };
        }
        const msg = crashLimitMessage(this.crashes);
        this.log.error(msg);
        void vscode.window.showErrorMessage(msg, 'Show Output', 'Restart').then((pick) => {
            if (pick === 'Show Output') {
                this.log.show();
            } else if (pick === 'Restart') {
                void this.restart();
            }
        });
        return { action: CloseAction.DoNotRestart, handled: true };
    }

    private async applyEdit(
        params: ApplyWorkspaceEditParams,
        next: ApplyWorkspaceEditRequest.HandlerSignature,
    ): Promise<ApplyWorkspaceEditResult | ResponseError> {
        if (this.options.beforeApplyEdit) {
            await this.options.beforeApplyEdit(params);
        }
        const result = await next(params, neverCanceled);
        if (result instanceof ResponseError || result.applied || result.failureReason) {
            return result;
        }
        const edits = (params.edit.documentChanges ?? [])
            .filter((c): c is TextDocumentEdit => 'textDocument' in c && 'edits' in c)
            .map((c) => ({ uri: c.textDocument.uri, version: c.textDocument.version }));
        const byUri = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
        const reason = failureReason(edits, (uri) => {
            const d = byUri.get(this.client ? this.client.protocol2CodeConverter.asUri(uri).toString() : uri);
            return d && { version: d.version, isDirty: d.isDirty };
        });
        this.log.info(`workspace edit refused: ${reason}`);
        return { ...result, failureReason: reason };
    }

    private async saveDocuments(p: req.SaveDocumentsParams): Promise<req.SaveDocumentsResult> {
        const saved: string[] = [];
        const byUri = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
        for (const uri of p.uris ?? []) {
            const key = this.client ? this.client.protocol2CodeConverter.asUri(uri).toString() : uri;
            const doc = byUri.get(key);
            if (!doc) {
                continue;
            }
            try {
                if (!doc.isDirty || (await doc.save())) {
                    saved.push(uri);
                }
            } catch (err) {
                this.log.warn(`saving ${uri} failed: ${String(err)}`);
            }
        }
        return { saved };
    }

    private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
        if (!e.affectsConfiguration('whale')) {
            return;
        }
        if (
            e.affectsConfiguration(`whale.${mcpServerSetting}`) ||
            e.affectsConfiguration('whale.serverPath') ||
            e.affectsConfiguration('whale.server.extraEnv')
        ) {
            this.updateToolSurface();
        }
        if (e.affectsConfiguration('whale.serverPath') || e.affectsConfiguration('whale.server.extraEnv')) {
            void vscode.window.showInformationMessage('The whale-ls server settings changed.', 'Restart Server').then((pick) => {
                if (pick) {
                    void this.restart();
                }
            });
            return;
        }
        const c = this.client;
        if (c?.isRunning()) {
            void c.sendNotification(DidChangeConfigurationNotification.type, { settings: { whale: currentServerSettings(this.serverKeys) } });
        }
    }

    showOutput(): void {
        this.log.show();
    }

    async showTerminals(): Promise<void> {
        if (!this.terminals) {
            void vscode.window.showInformationMessage('whale-ls is not running.');
            return;
        }
        await this.terminals.show();
    }

    async restart(): Promise<void> {
        this.crashes.reset();
        await this.stop();
        try {
            await this.start();
        } catch (err) {
            this.log.error(`restart failed: ${String(err)}`);
        }
    }

    async stop(): Promise<void> {
        const c = this.client;
        this.client = undefined;
        this.stopping = true;
        try {
            if (c) {
                await c.stop(5000).catch((err: unknown) => this.log.warn(`stopping whale-ls: ${String(err)}`));
                await c.dispose().catch(() => undefined);
            }
        } finally {
            this.stopping = false;
            for (const d of this.clientSubscriptions) {
                d.dispose();
            }
            this.clientSubscriptions = [];
            this.terminals = undefined;
        }
    }

    dispose(): void {
        void this.stop();
        for (const d of this.subscriptions) {
            d.dispose();
        }
    }
}
