// One .vsix per VS Code target, each with the whale-ls binary of that
// platform (CGO off) and bin/target.json naming it, so that the extension
// starts only a binary that fits (src/serverPath.ts).
//   node scripts/package-targets.mjs [--check] [target…]   (default: every target)
// --check opens each built package and verifies that it holds exactly its
// target's binary (GOOS/GOARCH read from the binary's Go build info).
// WHALE_VERSION and WHALE_LDFLAGS (set by `make release`) stamp the
// packages' version and the binaries' `whale-ls version`.
import { execFileSync } from 'child_process';
import { mkdirSync, rmSync, writeFileSync, existsSync, mkdtempSync, readdirSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const goTarget = {
    'linux-x64': ['linux', 'amd64'],
    'linux-arm64': ['linux', 'arm64'],
    'darwin-x64': ['darwin', 'amd64'],
    'darwin-arm64': ['darwin', 'arm64'],
    'win32-x64': ['windows', 'amd64'],
    'win32-arm64': ['windows', 'arm64'],
};

const args = process.argv.slice(2);
const check = args.includes('--check');
const targets = args.filter((a) => a !== '--check');
const chosen = targets.length > 0 ? targets : Object.keys(goTarget);
const version = process.env.WHALE_VERSION;
const ldflags = process.env.WHALE_LDFLAGS ? ['-ldflags', process.env.WHALE_LDFLAGS] : [];
const run = (cmd, argv, opts = {}) => execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], ...opts }).toString();

mkdirSync('dist', { recursive: true });
run('node', ['scripts/build.mjs']);
for (const target of chosen) {
    const go = goTarget[target];
    if (!go) {
        throw new Error(`unknown target ${target}; the targets are ${Object.keys(goTarget).join(', ')}`);
    }
    const [goos, goarch] = go;
    const exe = goos === 'windows' ? 'whale-ls.exe' : 'whale-ls';
    rmSync('bin', { recursive: true, force: true });
    mkdirSync('bin');
    run('go', ['build', '-trimpath', ...ldflags, '-o', join('editors/vscode/bin', exe), './cmd/whale-ls'], {
        cwd: '../..',
        env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
    });
    writeFileSync('bin/target.json', JSON.stringify({ target }) + '\n');
    const out = join('dist', `whale-ls-${target}.vsix`);
    const stamp = version ? [version, '--no-update-package-json', '--no-git-tag-version'] : [];
    run('npx', ['vsce', 'package', ...stamp, '--target', target, '--no-dependencies', '--skip-license', '-o', out]);
    console.log(`${out}`);
    if (check) {
        const dir = mkdtempSync(join(tmpdir(), 'whale-vsix-'));
        try {
            run('unzip', ['-q', out, '-d', dir]);
            const bins = readdirSync(join(dir, 'extension', 'bin')).sort();
            const want = [exe, 'target.json'].sort();
            if (JSON.stringify(bins) !== JSON.stringify(want)) {
                throw new Error(`${out}: bin/ holds ${bins.join(', ')}, want ${want.join(', ')}`);
            }
            const info = run('go', ['version', '-m', join(dir, 'extension', 'bin', exe)]);
            if (!info.includes(`GOOS=${goos}`) || !info.includes(`GOARCH=${goarch}`) || !info.includes('CGO_ENABLED=0')) {
                throw new Error(`${out}: the binary is not ${goos}/${goarch} with CGO off:\n${info}`);
            }
            const manifest = run('unzip', ['-p', out, 'extension.vsixmanifest']);
            if (!manifest.includes(`TargetPlatform="${target}"`)) {
                throw new Error(`${out}: the manifest does not name the target ${target}`);
            }
            console.log(`  checked: ${exe} for ${goos}/${goarch}, manifest target ${target}`);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    }
}
// Leave bin/ as `npm run build:server` makes it: the host's Linux binary.
rmSync('bin', { recursive: true, force: true });
mkdirSync('bin');
if (existsSync('../../go.mod')) {
    run('go', ['build', '-trimpath', '-o', 'editors/vscode/bin/whale-ls', './cmd/whale-ls'], { cwd: '../..', env: { ...process.env, CGO_ENABLED: '0' } });
}
