// Pure: where the whale-ls binary comes from. The setting wins, then the
// binary shipped inside the extension, then whale-ls on PATH.
import * as fs from 'fs';
import * as path from 'path';

export interface ResolveEnv {
    setting: string;
    extensionPath: string;
    home: string;
    pathVar: string;
    platform: string;
    /** process.arch; with platform it names the VS Code target this runs on. */
    arch?: string;
    /** The target the bundled binary was built for (bin/target.json), when the package says. */
    bundledTarget?: string;
    isExecutable: (file: string) => boolean;
}

/** The VS Code target (`vsce package --target`) of a platform and arch, e.g. darwin-arm64. */
export function targetOf(platform: string, arch: string): string {
    return `${platform}-${arch}`;
}

/** The targets whale-ls ships a package for: one .vsix each, with its own binary. */
export const packageTargets = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

export type Resolved = { ok: true; path: string; source: 'setting' | 'bundled' | 'PATH' } | { ok: false; message: string };

export function binaryName(platform: string): string {
    return platform === 'win32' ? 'whale-ls.exe' : 'whale-ls';
}

/** Reads bin/target.json, which the per-target packaging writes; undefined without one. */
export function bundledTarget(extensionPath: string, read: (file: string) => string = (f) => fs.readFileSync(f, 'utf8')): string | undefined {
    try {
        const t = JSON.parse(read(path.join(extensionPath, 'bin', 'target.json'))) as { target?: unknown };
        return typeof t.target === 'string' ? t.target : undefined;
    } catch {
        return undefined;
    }
}

export function resolveServerPath(env: ResolveEnv): Resolved {
    const name = binaryName(env.platform);
    const setting = env.setting.trim();
    if (setting) {
        const p = setting.startsWith('~/') ? path.join(env.home, setting.slice(2)) : setting;
        if (env.isExecutable(p)) {
            return { ok: true, path: p, source: 'setting' };
        }
        return {
            ok: false,
            message: `whale.serverPath is "${setting}", but no executable file is there. Fix the setting, or clear it to use the bundled whale-ls or the one on PATH.`,
        };
    }
    const bundled = path.join(env.extensionPath, 'bin', name);
    const here = env.arch ? targetOf(env.platform, env.arch) : undefined;
    const fits = !env.bundledTarget || !here || env.bundledTarget === here;
    if (fits && env.isExecutable(bundled)) {
        return { ok: true, path: bundled, source: 'bundled' };
    }
    const sep = env.platform === 'win32' ? ';' : ':';
    for (const dir of env.pathVar.split(sep)) {
        if (!dir) {
            continue;
        }
        const p = path.join(dir, name);
        if (env.isExecutable(p)) {
            return { ok: true, path: p, source: 'PATH' };
        }
    }
    if (!fits) {
        const want = packageTargets.includes(here)
            ? `install the ${here} package (whale-ls-${here}.vsix)`
            : `${here} has no whale-ls package: install whale-ls (go install github.com/whale-ls/whale-ls/cmd/whale-ls@latest)`;
        return {
            ok: false,
            message: `This whale-ls package carries the ${env.bundledTarget} binary, but VS Code runs on ${here}: ${want}, put whale-ls on PATH, or set whale.serverPath.`,
        };
    }
    return {
        ok: false,
        message:
            'whale-ls was not found: this extension has no bundled binary for this platform and whale-ls is not on PATH. Install it (go install github.com/whale-ls/whale-ls/cmd/whale-ls@latest) or set whale.serverPath.',
    };
}

/** How many times a crashed server is restarted within `crashWindowMs` before the extension gives up. */
export const maxRestarts = 4;
/** The window `maxRestarts` counts crashes in. */
export const crashWindowMs = 3 * 60_000;

/**
 * Decides whether a server that stopped should be restarted: the first
 * `restarts` crashes within any `windowMs` are restarted, the next one is not
 * (until `reset`).
 */
export class CrashLimit {
    private times: number[] = [];
    constructor(
        readonly restarts: number,
        readonly windowMs: number,
    ) {}

    /** Records a crash at `now` (ms); true when a restart is still allowed. */
    crashed(now: number): boolean {
        this.times = this.times.filter((t) => now - t < this.windowMs);
        this.times.push(now);
        return this.times.length <= this.restarts;
    }

    /** Forgets the crashes, as after a restart the user asked for. */
    reset(): void {
        this.times = [];
    }
}

/** The notification when `limit` stopped a server: what happened, where the log is, and what to do. */
export function crashLimitMessage(limit: CrashLimit): string {
    const minutes = limit.windowMs / 60_000;
    const span = Number.isInteger(minutes) ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(limit.windowMs / 1000)} seconds`;
    return `whale-ls stopped ${limit.restarts + 1} times in ${span} and will not be restarted. Its log is in the output channel "Whale"; fix the cause, then run "Whale: Restart Server".`;
}
