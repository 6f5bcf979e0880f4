// Reading the catalog and the settings from whale-ls and putting the
// generated contributions into package.json; used by sync-package.ts and the
// unit tests.
import { execFileSync, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { clientSettings, generatedContributes, type SettingsResult } from '../src/contributions';
import { extensionCapabilities, tools, type ToolsResult } from '../src/requests';

function serverEnv(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    delete env.WHALE_LS_TEST_TOOLS; // the test tools are never contributed
    return env;
}

function whaleJSON(server: string, args: string[]): unknown {
    return JSON.parse(execFileSync(server, args, { encoding: 'utf8', env: serverEnv() }));
}

/**
 * The catalog of a session of this extension: `whale/tools` of a
 * `whale-ls serve` whose client declares the extension's capabilities
 * (`whale-ls tools --json` lists a session without an editor, which lacks
 * the tools that need one, such as the language tools), in an empty folder.
 */
export async function readCatalog(server: string): Promise<ToolsResult> {
    const ws = mkdtempSync(path.join(tmpdir(), 'whale-catalog-'));
    const child = spawn(server, ['serve', '--log-level', 'error'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...serverEnv(), XDG_STATE_HOME: path.join(ws, '.state') },
    });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += String(b)));
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const failed = new Promise<never>((_, reject) => child.on('error', (err) => reject(new Error(`cannot start ${server}: ${err.message}`))));
    const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    conn.listen();
    try {
        const talk = async () => {
            const uri = pathToFileURL(ws).href;
            await conn.sendRequest('initialize', {
                processId: process.pid,
                rootUri: uri,
                workspaceFolders: [{ uri, name: 'catalog' }],
                capabilities: { experimental: { whale: extensionCapabilities } },
            });
            await conn.sendNotification('initialized', {});
            const catalog = await conn.sendRequest(tools);
            await conn.sendRequest('shutdown');
            await conn.sendNotification('exit');
            return catalog;
        };
        return await Promise.race([talk(), failed]);
    } catch (err) {
        throw new Error(
            `reading the catalog from \`${server} serve\` failed: ${err instanceof Error ? err.message : String(err)}${stderr ? `\n${stderr.trim()}` : ''}`,
            { cause: err },
        );
    } finally {
        const killer = setTimeout(() => child.kill(), 5000);
        child.stdin.end();
        await exited;
        clearTimeout(killer);
        conn.dispose();
        rmSync(ws, { recursive: true, force: true });
    }
}

/** `whale-ls settings --json`. */
export function readSettings(server: string): SettingsResult {
    return whaleJSON(server, ['settings', '--json']) as SettingsResult;
}

/** The parts of package.json that packageDrift compares. */
interface PackageShape {
    contributes?: { configuration?: { properties?: Named }; languageModelTools?: unknown };
}

/** package.json text with the generated contributions in place. */
export function syncedPackageJson(text: string, catalog: ToolsResult, settings: SettingsResult): string {
    const pkg = JSON.parse(text) as { contributes?: Record<string, unknown> };
    pkg.contributes = { ...pkg.contributes, ...generatedContributes(catalog.tools, settings.settings) };
    return JSON.stringify(pkg, null, 4) + '\n';
}

type Named = Record<string, unknown>;

/** The top-level fields in which two entries differ, e.g. "default, markdownDescription". */
function fieldsDiffering(a: unknown, b: unknown): string {
    if (!a || !b || typeof a !== 'object' || typeof b !== 'object') {
        return '';
    }
    const x = a as Named;
    const y = b as Named;
    const names = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
    return names.length > 0 ? ` (${names.join(', ')})` : '';
}

/** One line per entry of `have` or `want` that is missing from the other or differs, naming it. */
function differing(have: Named, want: Named, what: string, from: (name: string) => string): string[] {
    const out: string[] = [];
    for (const [k, v] of Object.entries(want)) {
        if (!(k in have)) {
            out.push(`${what} ${k} is missing; it comes from ${from(k)}`);
        } else if (JSON.stringify(have[k]) !== JSON.stringify(v)) {
            out.push(`${what} ${k} differs from ${from(k)}${fieldsDiffering(have[k], v)}`);
        }
    }
    for (const k of Object.keys(have)) {
        if (!(k in want)) {
            out.push(`${what} ${k} is no longer generated (not in ${from(k)})`);
        }
    }
    if (out.length === 0 && JSON.stringify(Object.keys(have)) !== JSON.stringify(Object.keys(want))) {
        out.push(`the ${what}s are in another order than the generated one`);
    }
    return out;
}

function byName(list: unknown): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const t of Array.isArray(list) ? (list as Named[]) : []) {
        out[String(t.name)] = t;
    }
    return out;
}

/** Where the generated entry of a `whale.*` setting comes from. */
function settingSource(name: string): string {
    const key = name.replace(/^whale\./, '');
    return key in clientSettings ? 'clientSettings in src/contributions.ts' : '`whale-ls settings --json`';
}

/**
 * What differs between package.json's text and the synced text, one line per
 * setting or tool, naming it; empty when they are the same. A difference
 * elsewhere (formatting) gets one line of its own.
 */
export function packageDrift(text: string, want: string): string[] {
    if (text === want) {
        return [];
    }
    const have = JSON.parse(text) as PackageShape;
    const wanted = JSON.parse(want) as PackageShape;
    const lines = [
        ...differing(have.contributes?.configuration?.properties ?? {}, wanted.contributes?.configuration?.properties ?? {}, 'setting', settingSource),
        ...differing(
            byName(have.contributes?.languageModelTools),
            byName(wanted.contributes?.languageModelTools),
            'language-model tool',
            () => "the catalog of a `whale-ls serve` session with the extension's capabilities",
        ),
    ];
    if (lines.length === 0) {
        lines.push('package.json differs from the generated text elsewhere than in one setting or tool (formatting, order or the configuration title)');
    }
    return lines;
}
