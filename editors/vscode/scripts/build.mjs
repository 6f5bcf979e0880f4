// Bundles with esbuild.
//   node scripts/build.mjs          the extension: out/main.js
//   node scripts/build.mjs --sync   the package.json generator: out/sync-package.js
//   node scripts/build.mjs --tests  the unit tests: out/test/unit/*.test.js
//   node scripts/build.mjs --e2e    the end-to-end driver, the companion extension and
//                                   the e2e build of the extension (out/test/e2e/whale/main.js)
//   node scripts/build.mjs --chat   the chat end-to-end driver and its test model (out/test/chat/)
import { build } from 'esbuild';
import { copyFileSync, readdirSync } from 'fs';

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', external: ['vscode'] };
const arg = process.argv[2] ?? '';

if (arg === '--sync') {
    await build({ ...common, entryPoints: ['scripts/sync-package.ts'], outfile: 'out/sync-package.js' });
} else if (arg === '--tests') {
    const tests = readdirSync('test/unit')
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/unit/${f}`);
    await build({ ...common, entryPoints: tests, outdir: 'out/test/unit' });
} else if (arg === '--e2e') {
    await build({ ...common, entryPoints: ['test/e2e/driver.ts'], outfile: 'out/test/e2e/driver.js', external: ['vscode', 'playwright-core'] });
    await build({ ...common, entryPoints: ['test/e2e/companion/extension.ts'], outfile: 'out/test/e2e/companion/extension.js' });
    await build({ ...common, entryPoints: ['test/e2e/whale/main.ts'], outfile: 'out/test/e2e/whale/main.js', minify: true, sourcemap: false });
    for (const f of ['package.json', 'README.md']) {
        copyFileSync(`test/e2e/companion/${f}`, `out/test/e2e/companion/${f}`);
    }
} else if (arg === '--chat') {
    await build({ ...common, entryPoints: ['test/chat/driver.ts'], outfile: 'out/test/chat/driver.js', external: ['vscode', 'playwright-core'] });
    await build({ ...common, entryPoints: ['test/chat/model/extension.ts'], outfile: 'out/test/chat/model/extension.js' });
    for (const f of ['package.json', 'README.md']) {
        copyFileSync(`test/chat/model/${f}`, `out/test/chat/model/${f}`);
    }
} else {
    await build({ ...common, entryPoints: ['src/main.ts'], outfile: 'out/main.js', minify: true, sourcemap: false });
}
