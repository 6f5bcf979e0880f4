// Pure: where the whale-ls binary comes from. The setting wins, then the
// binary shipped inside the extension, then whale-ls on PATH.
import * as path from 'path';

export interface ResolveEnv {
    setting: string;
    extensionPath: string;
    home: string;
    pathVar: string;
    platform: string;
    isExecutable: (file: string) => boolean;
}

export type Resolved =
    | { ok: true; path: string; source: 'setting' | 'bundled' | 'PATH' }
    | { ok: false; message: string };

export function binaryName(platform: string): string {
    return platform === 'win32' ? 'whale-ls.exe' : 'whale-ls';
}

export function resolveServerPath(env: ResolveEnv): Resolved {
    const name = binaryName(env.platform);
    const setting = env.setting.trim();
    if (setting) {
        const p = setting.startsWith('~/') ? path.join(env.home, setting.slice(2)) : setting;
        if (env.isExecutable(p)) {
            return { ok: true, path: p, source: 'setting' };
        }
        return { ok: false, message: `whale.serverPath is "${setting}", but no executable file is there. Fix the setting, or clear it to use the bundled whale-ls or the one on PATH.` };
    }
    const bundled = path.join(env.extensionPath, 'bin', name);
    if (env.isExecutable(bundled)) {
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
    return {
        ok: false,
        message: 'whale-ls was not found: this extension has no bundled binary for this platform and whale-ls is not on PATH. Install it (go install github.com/whale-ls/whale-ls/cmd/whale-ls@latest) or set whale.serverPath.',
    };
}

/** Decides whether a server that stopped should be restarted: at most `limit` crashes in `windowMs`. */
export class CrashLimit {
    private times: number[] = [];
    constructor(private readonly limit: number, private readonly windowMs: number) {}

    /** Records a crash at `now`; true when a restart is still allowed. */
    crashed(now: number): boolean {
        this.times = this.times.filter((t) => now - t < this.windowMs);
        this.times.push(now);
        return this.times.length <= this.limit;
    }

    reset(): void {
        this.times = [];
    }
}
