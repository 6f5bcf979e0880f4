// End-to-end driver: installs the packaged Whale extension and the test
// companion into a real VS Code (code-server), opens it in Chromium through
// playwright-core, answers the dialogs a user would answer, checks what the
// user sees, saves screenshots, and prints "N passed, M failed".
//
// Environment: CODE_SERVER (code-server's out/node/entry.js), NODE24 (the
// node that runs it), VSIX (the Whale extension packaged with its e2e entry point,
// test/e2e/whale/main.ts), COMPANION_VSIX (the test companion), CHROMIUM (default /usr/bin/chromium),
// OUT (the test output folder), E2E_DEADLINE_S (default 420), E2E_STARTED
// (the script's start, in Unix seconds, for the total time).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Locator, Page } from 'playwright-core';
import {
    copyLogs,
    env,
    installExtensions,
    openWorkbench,
    runCommand,
    sleep,
    stopWorkbench,
    testUserSettings,
    type CodeServerDirs,
    type Workbench,
    showWhaleView,
    whaleActivity,
} from './harness';

interface Step {
    name: string;
    ok: boolean;
    detail: string;
    ms?: number;
}

const started = Date.now();
/** How long the review stays open, unanswered, before the driver chooses its hunks (#28: 3 minutes). */
const reviewWaitMs = Number(env('E2E_REVIEW_WAIT_S', '180')) * 1000;
const deadline = started + Number(env('E2E_DEADLINE_S', '420')) * 1000 + reviewWaitMs;
const out = path.resolve(env('OUT'));
const steps: Step[] = [];
const dialogLog: string[] = [];

function log(msg: string): void {
    const s = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    console.log(`[${s}s] ${msg}`);
}

function prepare(base: string): CodeServerDirs & { results: string } {
    const ws = path.join(base, 'workspace');
    const userData = path.join(base, 'user-data');
    const exts = path.join(base, 'extensions');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
    fs.mkdirSync(exts, { recursive: true });
    fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello from the workspace\nsecond line\n');
    fs.writeFileSync(path.join(ws, 'changes.txt'), 'first line\nsecond line\nthird line\n');
    fs.writeFileSync(
        path.join(ws, 'src', 'app.ts'),
        'export const greeting = "hello";\n\nexport function greet(name: string): string {\n    return `${greeting}, ${name}`;\n}\n'.replace(
            'export const greeting',
            'const greeting',
        ),
    );
    // A TypeScript project for the language tools (VS Code's built-in TypeScript support answers them).
    fs.mkdirSync(path.join(ws, 'lang'), { recursive: true });
    fs.writeFileSync(
        path.join(ws, 'lang', 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs', noEmit: true }, include: ['*.ts'] }, null, 2),
    );
    fs.writeFileSync(
        path.join(ws, 'lang', 'a.ts'),
        'export function greet(name: string): string {\n    return `hello, ${name}`;\n}\n\nexport const count: number = 1;\n',
    );
    fs.writeFileSync(path.join(ws, 'lang', 'b.ts'), "import { greet } from './a';\n\nexport const message: string = greet('whale');\n");
    // A repository's own settings that would turn the exec boundary off:
    // the approval checks below fail if VS Code let a workspace set them.
    fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'whale.execBoundary.mode': 'off', 'whale.execBoundary.rules': [] }, null, 2));
    fs.writeFileSync(
        path.join(userData, 'User', 'settings.json'),
        JSON.stringify(
            {
                ...testUserSettings,
                // No typings download from npm: the language tools' project needs none.
                'typescript.disableAutomaticTypeAcquisition': true,
            },
            null,
            2,
        ),
    );
    return { base, ws, userData, exts, results: path.join(base, 'results.json') };
}

function readResults(file: string): { steps: Step[]; phase: string; done: boolean } | undefined {
    try {
        return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
        return undefined;
    }
}

/** Answers a VS Code dialog the way the scenario needs; returns what it did. */
async function answerDialog(page: Page): Promise<string | undefined> {
    const dialog = page.locator('.monaco-dialog-box').first();
    if (!(await dialog.isVisible().catch(() => false))) {
        return undefined;
    }
    const text = (await dialog.innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
    const buttons = dialog.locator('.dialog-buttons .monaco-button');
    const labels = (await buttons.allInnerTexts().catch(() => [] as string[])).map((s) => s.trim());
    let want: string | undefined;
    if (labels.includes('Allow once')) {
        // A whale approval: the command names the answer the scenario expects.
        want = text.includes('e2e-allow') ? 'Allow once' : text.includes('e2e-deny') ? 'Deny' : undefined;
    } else {
        // VS Code's own confirmation before an extension's tool runs.
        want = ['Yes', 'Continue', 'Allow', 'OK'].find((l) => labels.includes(l));
    }
    if (!want || !labels.includes(want)) {
        return `dialog without a known answer: "${text}" buttons [${labels.join(', ')}]`;
    }
    await buttons
        .filter({ hasText: new RegExp(`^\\s*${want}\\s*$`) })
        .first()
        .click({ timeout: 5000 });
    const entry = `clicked "${want}" in dialog "${text.slice(0, 160)}" (buttons: ${labels.join(' | ')})`;
    dialogLog.push(entry);
    await sleep(300);
    return entry;
}

/** Types "whale" and Enter into the terminal that asks "e2e-name?". */
async function typeIntoTerminal(page: Page): Promise<string> {
    const term = page.locator('.terminal-wrapper', { hasText: 'e2e-name?' }).last();
    try {
        await term.waitFor({ state: 'visible', timeout: 15_000 });
        await term.click();
        await page.keyboard.type('whale', { delay: 30 });
        await page.keyboard.press('Enter');
        return 'typed "whale" and Enter into the terminal';
    } catch (err) {
        return `typing into the terminal failed: ${String(err)}`;
    }
}

/**
 * The review of the companion's two-hunk apply_patch: checks the diff's
 * title actions, clicks Choose Hunks…, unchecks the second hunk (lines 6)
 * and confirms. The companion checks the file.
 */
async function chooseReviewHunks(page: Page): Promise<Step> {
    const name =
        'UI: the review diff stays open 3 minutes unanswered, has Accept, Reject… and Choose Hunks… in its title; Choose Hunks… lists both hunks, the second is unchecked and confirmed';
    const t0 = Date.now();
    const problems: string[] = [];
    let detail = '';
    try {
        const choose = page.locator('.editor-actions a.action-label[aria-label^="Choose Hunks"]').first();
        await choose.waitFor({ state: 'visible', timeout: 20_000 });
        // A careful reviewer takes minutes: the review is still open after reviewWaitMs.
        await screenshot(page, 'review-open.png');
        await sleep(reviewWaitMs);
        await screenshot(page, 'review-still-open.png');
        if (!(await choose.isVisible().catch(() => false))) {
            problems.push(`the review was gone after ${reviewWaitMs / 1000} s unanswered`);
        }
        const labels = await page.locator('.editor-actions a.action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        for (const want of ['Accept Change', 'Reject Change…', 'Choose Hunks…']) {
            if (!labels.some((l) => l.startsWith(want))) {
                problems.push(`no "${want}" in the editor title (${labels.join(' | ')})`);
            }
        }
        await screenshot(page, 'review-diff.png');
        await choose.click();
        const widget = page.locator('.quick-input-widget');
        const second = widget.locator('.monaco-list-row', { hasText: '@@ -6,1 +6,1 @@' }).first();
        await second.waitFor({ state: 'visible', timeout: 10_000 });
        const rows = widget.locator('.monaco-list-row');
        const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
        if (texts.length !== 2 || !texts[0].includes('@@ -2,1 +2,1 @@') || !texts[0].includes('-r2')) {
            problems.push(`hunk list: ${JSON.stringify(texts)}`);
        }
        await second.locator('.monaco-checkbox').first().click({ timeout: 5000 });
        await sleep(500);
        const checked = await rows.evaluateAll((rs) => rs.map((r) => r.querySelector('.monaco-checkbox')?.getAttribute('aria-checked') ?? '?'));
        if (checked.join(',') !== 'true,false') {
            problems.push(`checked after unchecking the second: ${checked.join(',')}`);
        }
        await screenshot(page, 'review-choose-hunks.png');
        const ok = widget.locator('.quick-input-action .monaco-button', { hasText: /^\s*OK\s*$/ }).first();
        if (await ok.isVisible().catch(() => false)) {
            await ok.click();
        } else {
            await widget.locator('input').first().click();
            await page.keyboard.press('Enter');
        }
        await widget.waitFor({ state: 'hidden', timeout: 5000 });
        detail = `open ${reviewWaitMs / 1000} s unanswered, then answered; title actions: ${labels.filter((l) => /Change|Hunks/.test(l)).join(' | ')}; hunks: ${texts.join(' / ')}; checked ${checked.join(',')}`;
    } catch (err) {
        problems.push(String(err));
        await screenshot(page, 'review-failed.png');
    }
    dialogLog.push(`review: ${problems.length === 0 ? detail : problems.join('; ')}`);
    return { name, ok: problems.length === 0, detail: problems.length === 0 ? detail : problems.join('; '), ms: Date.now() - t0 };
}

/** Answers the quick inputs of the scenario: "blue" and "forty two" for request_user_input, the first terminal for Show Terminals. */
async function answerQuickPick(page: Page): Promise<string | undefined> {
    const widget = page.locator('.quick-input-widget');
    if (!(await widget.isVisible().catch(() => false))) {
        return undefined;
    }
    const placeholder =
        (await widget
            .locator('input')
            .first()
            .getAttribute('placeholder')
            .catch(() => null)) ?? '';
    const text = `${placeholder} ${(await widget.innerText().catch(() => '')).replace(/\s+/g, ' ')}`.trim();
    let entry: string;
    if (text.includes('e2e-choice')) {
        await widget
            .locator('.monaco-list-row', { hasText: /^\s*blue\s*$/ })
            .first()
            .click({ timeout: 5000 });
        entry = `picked "blue" in QuickPick "${text.slice(0, 120)}"`;
    } else if (text.includes('e2e-text')) {
        await widget.locator('input').first().fill('forty two');
        await page.keyboard.press('Enter');
        entry = `typed "forty two" into InputBox "${text.slice(0, 120)}"`;
    } else if (text.includes('Show which whale terminal')) {
        await page.keyboard.press('Enter');
        entry = `picked the first entry in QuickPick "${text.slice(0, 160)}"`;
    } else {
        return undefined;
    }
    dialogLog.push(entry);
    await sleep(300);
    return entry;
}

let copilotEnabled = false;

/**
 * One chat turn in the Chat view with the Whale E2E model: enables the
 * bundled Copilot Chat (once), opens a new chat, picks the model and sends
 * a message. The companion's model records the tools it is offered.
 */
async function chatTurn(page: Page, phase: string, attempt: number): Promise<string> {
    const mcpOn = phase === 'chat-turn-mcp';
    const shot = attempt > 1 ? `${phase}-${attempt}` : phase;
    if (attempt === 1) {
        await mcpListCheck(
            page,
            mcpOn,
            mcpOn
                ? 'UI: with whale.mcpServer.enabled, "MCP: List Servers" shows the Whale MCP server definition'
                : `UI: "MCP: List Servers" has no Whale server (${phase === 'chat-turn-default' ? 'off by default' : 'turned off again'})`,
            `${phase}-mcp-servers.png`,
        );
    }
    try {
        if (!copilotEnabled) {
            copilotEnabled = true;
            await runCommand(page, 'Extensions: Enable All Extensions');
            await sleep(5000);
        }
        await runCommand(page, 'Chat: New Chat');
        await sleep(1500);
        // Until Copilot Chat has started, the picker offers only "Sign in".
        const model = page.locator('.monaco-list-row', { hasText: 'Whale E2E' }).first();
        for (let tries = 0; ; tries++) {
            await page.locator('a[aria-label^="Models,"]').first().click({ timeout: 15_000 });
            if (
                await model.waitFor({ timeout: 3000 }).then(
                    () => true,
                    () => false,
                )
            ) {
                break;
            }
            await page.keyboard.press('Escape');
            if (tries >= 15) {
                throw new Error('the model picker does not offer Whale E2E');
            }
            await sleep(2000);
        }
        await model.click({ timeout: 5000 });
        await sleep(300);
        await page.locator('.interactive-input-part .monaco-editor').first().click();
        await page.keyboard.type(`whale e2e ${phase}`);
        await page.keyboard.press('Enter');
        await sleep(2000);
        await screenshot(page, `${shot}.png`);
        return `chat turn ${phase} (attempt ${attempt}): message sent to the Whale E2E model`;
    } catch (err) {
        await screenshot(page, `${shot}-failed.png`);
        return `chat turn ${phase} (attempt ${attempt}) failed: ${String(err)}`;
    }
}

async function screenshot(page: Page | undefined, name: string): Promise<void> {
    if (!page) {
        return;
    }
    const file = path.join(out, name);
    await page.screenshot({ path: file }).then(
        () => log(`screenshot ${file}`),
        (err: unknown) => log(`screenshot ${name} failed: ${String(err)}`),
    );
}

async function uiChecks(page: Page): Promise<void> {
    // The whale terminal shows the command's output and its exit code.
    const t0 = Date.now();
    let termText: string;
    for (;;) {
        termText = (
            await page
                .locator('.terminal-wrapper.active .xterm-rows, .xterm .xterm-rows')
                .allInnerTexts()
                .catch(() => [] as string[])
        ).join('\n');
        if ((termText.includes('whale-e2e-42') && termText.includes('exit code 3')) || Date.now() - t0 > 20_000) {
            break;
        }
        await sleep(500);
    }
    const tabs = (
        await page
            .locator('.terminal-tabs-entry, .single-terminal-tab, .terminal-tab')
            .allInnerTexts()
            .catch(() => [] as string[])
    ).join(' | ');
    const termOk = termText.includes('whale-e2e-42') && termText.includes('exit code 3');
    steps.push({
        name: 'UI: the whale terminal shows the output and the exit code',
        ok: termOk,
        detail: termOk ? `tabs: ${tabs}` : `terminal text: ${JSON.stringify(termText.slice(-400))}, tabs: ${tabs}`,
    });

    const view = whaleView(page);
    const viewOk =
        (await whaleActivity(page)
            .count()
            .catch(() => 0)) > 0;
    steps.push({ name: 'UI: the Whale view has its own item in the activity bar', ok: viewOk, detail: viewOk ? 'found' : 'no activity bar item "Whale"' });
    await expand(view);

    const allow = dialogLog.some((d) => d.startsWith('clicked "Allow once"'));
    const deny = dialogLog.some((d) => d.startsWith('clicked "Deny"'));
    steps.push({
        name: 'UI: approval modals appeared and were answered (Allow once, Deny)',
        ok: allow && deny,
        detail: dialogLog.filter((d) => /Allow once|Deny/.test(d)).join('; ') || 'no approval modal was seen',
    });

    let viewText: string;
    const t1 = Date.now();
    do {
        viewText = (await view.innerText().catch(() => '')).replace(/\s+/g, ' ');
        if (viewText.includes('Edit app.ts') && viewText.includes('Write the e2e test')) {
            break;
        }
        await sleep(500);
    } while (Date.now() - t1 < 15_000);
    const planOk = viewText.includes('Edit app.ts') && viewText.includes('Write the e2e test');
    steps.push({ name: 'UI: the Whale view shows the plan and the todos', ok: planOk, detail: viewText.slice(0, 300) });
}

/**
 * Whether "MCP: List Servers" lists the Whale server definition (VS Code
 * 1.101+) as `want` says, polling up to 15 s for the list to catch up with
 * a changed setting. The list always has its "Add Server" entry, so an
 * absent Whale is told apart from a list that did not open.
 */
async function mcpListCheck(page: Page, want: boolean, name: string, shot: string): Promise<void> {
    let detail = '';
    let ok = false;
    try {
        await runCommand(page, 'MCP: List Servers');
        const t0 = Date.now();
        do {
            await sleep(500);
            detail = (
                await page
                    .locator('.quick-input-widget')
                    .innerText()
                    .catch(() => '')
            ).replace(/\s+/g, ' ');
            ok = /Add Server/.test(detail) && /\bWhale\b/.test(detail) === want;
        } while (!ok && Date.now() - t0 < 15_000);
        await screenshot(page, shot);
        await page.keyboard.press('Escape');
    } catch (err) {
        detail = `${String(err)} ${detail}`;
    }
    steps.push({ name, ok, detail: detail.slice(0, 300) });
}

/** The rows of the Whale view's tree. */
function whaleRows(page: Page) {
    return whaleView(page).locator('.monaco-list-row');
}

/** Waits up to `ms` for a row of the Whale view whose text matches. */
async function whaleRow(page: Page, text: RegExp, ms: number) {
    const row = whaleRows(page).filter({ hasText: text }).first();
    await row.waitFor({ state: 'visible', timeout: ms });
    return row;
}

/**
 * The Changes section lists the companion's edit of changes.txt as the
 * newest entry; clicking the entry shows its file, clicking the file opens
 * the diff (the companion checks the diff editor).
 */
async function changesOpenDiff(page: Page): Promise<void> {
    const t0 = Date.now();
    let detail = '';
    let ok: boolean;
    try {
        await expand(whaleView(page));
        await whaleRow(page, /^\s*Changes/, 20_000);
        const entry = await whaleRow(page, /edit changes\.txt/, 20_000);
        const rows = (await whaleRows(page).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
        const i = rows.findIndex((t) => /edit changes\.txt/.test(t));
        ok = i >= 0 && /^Changes/.test(rows[i - 1] ?? '');
        detail = `rows: ${rows.join(' | ')}`;
        if ((await entry.getAttribute('aria-expanded')) !== 'true') {
            await entry.click();
        }
        const file = await whaleRow(page, /^\s*changes\.txt\b/, 10_000);
        const fileText = (await file.innerText()).replace(/\s+/g, ' ').trim();
        ok &&= /\+1 \u22121/.test(fileText);
        detail = `file row: "${fileText}"; ${detail}`;
        await file.click();
        await sleep(1500);
        await screenshot(page, 'changes-diff.png');
    } catch (err) {
        detail = `${String(err)} ${detail}`;
        ok = false;
        await screenshot(page, 'changes-diff-failed.png');
    }
    steps.push({
        name: 'UI: the Changes section lists the edit as its newest entry, its file with +1 \u22121',
        ok,
        detail: detail.slice(0, 600),
        ms: Date.now() - t0,
    });
}

/**
 * Right-clicks entry, picks "Revert this change" and confirms it with
 * Revert ("Revert this change" asks first, as "Revert to before this"
 * does); returns the menu's items and the question asked.
 */
async function revertThisChange(page: Page, entry: Locator, menuShot: string, confirmShot: string): Promise<{ items: string[]; asked: string }> {
    await entry.click({ button: 'right' });
    const menu = page.locator('.monaco-menu').first();
    await menu.waitFor({ state: 'visible', timeout: 10_000 });
    const items = (await menu.locator('.action-label').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    await screenshot(page, menuShot);
    await menu
        .locator('.action-label', { hasText: /^\s*Revert this change\s*$/ })
        .first()
        .click({ timeout: 5000 });
    const dialog = page.locator('.monaco-dialog-box').first();
    await dialog.waitFor({ state: 'visible', timeout: 10_000 });
    const asked = (await dialog.innerText().catch(() => '')).replace(/\s+/g, ' ');
    await screenshot(page, confirmShot);
    await dialog
        .locator('.dialog-buttons .monaco-button', { hasText: /^\s*Revert\s*$/ })
        .first()
        .click({ timeout: 5000 });
    return { items, asked };
}

/** Right-clicks the entry of the edit and picks "Revert this change" (the companion checks the file). */
async function changesRevert(page: Page): Promise<void> {
    const t0 = Date.now();
    let detail = '';
    let ok: boolean;
    try {
        const entry = await whaleRow(page, /edit changes\.txt/, 10_000);
        const { items, asked } = await revertThisChange(page, entry, 'changes-menu.png', 'changes-revert-confirm.png');
        detail = `context menu: ${items.join(' | ')}`;
        ok = items.includes('Revert this change') && items.includes('Revert to before this');
        detail += `; asked: ${asked.slice(0, 160)}`;
        ok = ok && asked.includes('Revert');
        await sleep(1500);
        await screenshot(page, 'changes-reverted.png');
    } catch (err) {
        detail = `${String(err)} ${detail}`;
        ok = false;
        await screenshot(page, 'changes-revert-failed.png');
    }
    steps.push({
        name: 'UI: the entry\'s context menu offers "Revert this change" and "Revert to before this"',
        ok,
        detail: detail.slice(0, 600),
        ms: Date.now() - t0,
    });
}

/**
 * The entry of the shell task that made build/sub/x.o names its command, its
 * file row the path with its folders; "Revert this change" (confirmed) takes
 * the file away (the companion checks the disk).
 */
async function changesShell(page: Page): Promise<void> {
    const t0 = Date.now();
    let detail = '';
    let ok: boolean;
    try {
        await expand(whaleView(page));
        const entry = await whaleRow(page, /mkdir -p build\/sub/, 20_000);
        const entryText = (await entry.innerText()).replace(/\s+/g, ' ').trim();
        if ((await entry.getAttribute('aria-expanded')) !== 'true') {
            await entry.click();
        }
        const file = await whaleRow(page, /build\/sub\/x\.o\s*created/, 10_000);
        const fileText = (await file.innerText()).replace(/\s+/g, ' ').trim();
        detail = `entry: "${entryText}"; file row: "${fileText}"`;
        ok = entryText.includes('mkdir -p build/sub && echo x > build/sub/x.o');
        await screenshot(page, 'changes-shell-entry.png');
        await revertThisChange(page, entry, 'changes-shell-menu.png', 'changes-shell-confirm.png');
        await sleep(1500);
        const notices = (
            await page
                .locator('.notifications-toasts')
                .innerText()
                .catch(() => '')
        ).replace(/\s+/g, ' ');
        detail += notices ? `; notifications: ${notices.slice(0, 200)}` : '';
        ok &&= !/open in the editor|close it first/i.test(notices);
        await screenshot(page, 'changes-shell-reverted.png');
    } catch (err) {
        detail = `${String(err)} ${detail}`;
        ok = false;
        await screenshot(page, 'changes-shell-failed.png');
    }
    steps.push({
        name: 'UI: the shell entry shows its command and build/sub/x.o; "Revert this change" is confirmed without a false "open in the editor"',
        ok,
        detail: detail.slice(0, 600),
        ms: Date.now() - t0,
    });
}

/** The side bar showing the Whale view (its own view container). */
function whaleView(page: Page) {
    return page.locator('.part.sidebar');
}

/** Shows the Whale view, as a user does with the whale icon in the activity bar. */
async function expand(_view: ReturnType<typeof whaleView>): Promise<void> {
    await showWhaleView(_view.page());
}

async function main(): Promise<number> {
    fs.mkdirSync(out, { recursive: true });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'whale-e2e-'));
    const node = env('NODE24');
    const codeServer = env('CODE_SERVER');
    const dirs = prepare(base);
    let wb: Workbench | undefined;
    let page: Page | undefined;
    const serverLog = fs.createWriteStream(path.join(out, 'code-server.log'));
    try {
        log('installing the Whale extension and the test companion');
        installExtensions(node, codeServer, dirs, [env('VSIX'), env('COMPANION_VSIX')]);
        log('starting code-server and chromium');
        wb = await openWorkbench({
            node,
            codeServer,
            chromium: env('CHROMIUM', '/usr/bin/chromium'),
            dirs,
            env: { WHALE_E2E_RESULTS: dirs.results, E2E_REVIEW_WAIT_S: String(reviewWaitMs / 1000) },
            log: serverLog,
        });
        page = wb.page;
        log('workbench loaded; running the scenario');
        await whaleActivity(page)
            .waitFor({ timeout: 30_000 })
            .catch(() => undefined);
        await expand(whaleView(page));
        let phase = '';
        let typed = false;
        const changesDone = new Set<string>();
        let reviewed = false;
        const chatted = new Map<string, { attempts: number; at: number }>();
        for (;;) {
            const did = (await answerDialog(page)) ?? (await answerQuickPick(page));
            if (did) {
                log(did);
            }
            const r = readResults(dirs.results);
            if (r && r.phase !== phase) {
                phase = r.phase;
                log(`companion: ${phase}`);
            }
            if (r?.phase === 'type-into-terminal' && !typed) {
                typed = true;
                log(await typeIntoTerminal(page));
            }
            if ((r?.phase === 'changes-open-diff' || r?.phase === 'changes-revert' || r?.phase === 'changes-shell') && !changesDone.has(r.phase)) {
                changesDone.add(r.phase);
                await { 'changes-open-diff': changesOpenDiff, 'changes-revert': changesRevert, 'changes-shell': changesShell }[r.phase](page);
            }
            if (r?.phase === 'review-choose-hunks' && !reviewed) {
                reviewed = true;
                const s = await chooseReviewHunks(page);
                steps.push(s);
                log(`${s.ok ? 'ok' : 'FAILED'} ${s.name}: ${s.detail}`);
            }
            if (r?.phase.startsWith('chat-turn')) {
                // The companion moves on once its model got the request; a turn
                // that did not reach it (the chat still starting) is sent again.
                const last = chatted.get(r.phase);
                if (!last || (last.attempts < 3 && Date.now() - last.at > 25_000)) {
                    const attempt = (last?.attempts ?? 0) + 1;
                    chatted.set(r.phase, { attempts: attempt, at: Date.now() });
                    log(await chatTurn(page, r.phase, attempt));
                    chatted.set(r.phase, { attempts: attempt, at: Date.now() });
                }
            }
            if (r?.done) {
                steps.push(...r.steps);
                break;
            }
            if (Date.now() > deadline) {
                steps.push(...(r?.steps ?? []));
                steps.push({
                    name: 'scenario finished in time',
                    ok: false,
                    detail: `still at "${r?.phase ?? 'not started (the companion did not activate)'}"`,
                });
                break;
            }
            await sleep(250);
        }
        await uiChecks(page);
    } catch (err) {
        steps.push({ name: 'driver', ok: false, detail: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    } finally {
        const failed = steps.filter((s) => !s.ok).length;
        await screenshot(page, failed || steps.length === 0 ? 'failure.png' : 'success.png');
        await stopWorkbench(wb ?? {});
        copyLogs(dirs.userData, out, /Whale|exthost\.log|remoteexthost/i);
        fs.rmSync(base, { recursive: true, force: true, maxRetries: 3 });
    }
    fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify({ steps, dialogs: dialogLog, seconds: (Date.now() - started) / 1000 }, null, 2));
    for (const s of steps) {
        console.log(`${s.ok ? 'ok    ' : 'FAILED'} ${s.name}${s.ms !== undefined ? ` (${s.ms} ms)` : ''}${s.ok ? '' : `\n       ${s.detail}`}`);
    }
    const passed = steps.filter((s) => s.ok).length;
    const failed = steps.length - passed;
    const total = process.env.E2E_STARTED ? `, ${Math.round(Date.now() / 1000 - Number(process.env.E2E_STARTED))} s with the installs` : '';
    console.log(`e2e scenario took ${((Date.now() - started) / 1000).toFixed(0)} s${total}`);
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
    (code) => process.exit(code),
    (err: unknown) => {
        console.error(err);
        console.log('0 passed, 1 failed');
        process.exit(1);
    },
);
