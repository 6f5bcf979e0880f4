// What the end-to-end drivers (test/e2e/driver.ts, test/chat/driver.ts)
// share: code-server with the packages installed, Chromium on its page, the
// command palette, and the logs kept for a post-mortem.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The environment variable k, or d; throws when neither is set. */
export function env(k: string, d?: string): string {
    const v = process.env[k] ?? d;
    if (v === undefined) {
        throw new Error(`${k} is not set`);
    }
    return v;
}

export function sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
}

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.listen(0, '127.0.0.1', () => {
            const port = (s.address() as net.AddressInfo).port;
            s.close(() => resolve(port));
        });
        s.on('error', reject);
    });
}

async function waitHttp(url: string, ms: number): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
        try {
            const r = await fetch(url, { redirect: 'manual' });
            if (r.status < 500) {
                return;
            }
        } catch {
            // not listening yet
        }
        if (Date.now() > until) {
            throw new Error(`${url} did not answer within ${ms} ms`);
        }
        await sleep(300);
    }
}

/** The user settings both drivers start code-server with: quiet, offline, no autosave, whale traced, `touch` asked about. */
export const testUserSettings = {
    'files.autoSave': 'off',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'terminal.integrated.gpuAcceleration': 'off',
    'chat.disableAIFeatures': false,
    'whale.terminals.reveal': true,
    'whale.trace.server': 'messages',
    // `touch` is a program the exec boundary asks about.
    'whale.execBoundary.rules': [{ program: 'touch', decision: 'ask' }],
};

/** The folders of one code-server run. */
export interface CodeServerDirs {
    base: string;
    ws: string;
    userData: string;
    exts: string;
}

/** Installs each .vsix into the run's extensions folder with code-server's own installer. */
export function installExtensions(node: string, codeServer: string, dirs: CodeServerDirs, vsixes: string[]): void {
    for (const vsix of vsixes.map((v) => path.resolve(v))) {
        const r = spawnSync(node, [codeServer, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.exts, '--install-extension', vsix], {
            encoding: 'utf8',
            timeout: 180_000,
        });
        if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) {
            throw new Error(`installing ${vsix} failed (status ${r.status}): ${r.stdout}\n${r.stderr}`);
        }
    }
}

/** A running code-server and the Chromium page on its workbench. */
export interface Workbench {
    server: ChildProcess;
    browser: Browser;
    page: Page;
}

/**
 * Starts code-server on a free loopback port (its own process group, so
 * stop() ends all of it) with `env` added to its environment, opens the
 * workspace in Chromium and waits for the workbench. On failure what was
 * started is stopped.
 */
export async function openWorkbench(o: {
    node: string;
    codeServer: string;
    chromium: string;
    dirs: CodeServerDirs;
    env: Record<string, string>;
    log: fs.WriteStream;
}): Promise<Workbench> {
    const port = await freePort();
    const { dirs } = o;
    const server = spawn(
        o.node,
        [
            o.codeServer,
            '--auth',
            'none',
            '--bind-addr',
            `127.0.0.1:${port}`,
            '--disable-workspace-trust',
            '--disable-telemetry',
            '--disable-update-check',
            '--disable-getting-started-override',
            '--config',
            path.join(dirs.base, 'config.yaml'),
            '--user-data-dir',
            dirs.userData,
            '--extensions-dir',
            dirs.exts,
            dirs.ws,
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...o.env, XDG_STATE_HOME: path.join(dirs.base, 'state') } },
    );
    server.stdout.pipe(o.log);
    server.stderr.pipe(o.log);
    let browser: Browser | undefined;
    try {
        await waitHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
        browser = await chromium.launch({
            executablePath: o.chromium,
            args: [
                '--no-sandbox',
                '--disable-gpu',
                '--disable-dev-shm-usage',
                '--disable-background-networking',
                '--disable-component-update',
                '--disable-sync',
            ],
            timeout: 60_000,
        });
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        page.setDefaultTimeout(15_000);
        await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`, { timeout: 60_000 });
        await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
        return { server, browser, page };
    } catch (err) {
        await stopWorkbench({ server, browser });
        throw err;
    }
}

/** Closes the browser and ends code-server's process group. */
export async function stopWorkbench(w: { server?: ChildProcess; browser?: Browser }): Promise<void> {
    await w.browser?.close().catch(() => undefined);
    if (w.server?.pid) {
        try {
            process.kill(-w.server.pid, 'SIGTERM');
        } catch {
            // already gone
        }
    }
}

/** Runs a command of the command palette by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
}

/** Copies the logs of the run whose file names match into out/logs. */
export function copyLogs(userData: string, out: string, names: RegExp): void {
    const logs = path.join(userData, 'logs');
    const walk = (dir: string): string[] =>
        fs.existsSync(dir)
            ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
            : [];
    for (const f of walk(logs)) {
        if (names.test(path.basename(f))) {
            const dest = path.join(out, 'logs', path.relative(logs, f).replace(/[\\/]/g, '_'));
            fs.mkdirSync(path.dirname(dest), { recursive: true });
            fs.copyFileSync(f, dest);
        }
    }
}

/** The activity bar item of the Whale view container. */
export function whaleActivity(page: Page) {
    return page.locator('.part.activitybar .action-item a[aria-label^="Whale"], .part.activitybar .action-item .action-label[aria-label^="Whale"]').first();
}

/**
 * Shows the Whale view (its own container in the activity bar, a user clicks
 * the whale icon) and returns the side bar that holds it. Clicking the item
 * of the container already shown would hide it, so the title is checked first.
 */
export async function showWhaleView(page: Page) {
    const sidebar = page.locator('.part.sidebar');
    const title = await sidebar
        .locator('.composite.title .title-label')
        .first()
        .innerText()
        .catch(() => '');
    if (!/whale/i.test(title) || !(await sidebar.isVisible().catch(() => false))) {
        await whaleActivity(page)
            .click({ timeout: 10_000 })
            .catch(() => undefined);
        await sleep(500);
    }
    return sidebar;
}
