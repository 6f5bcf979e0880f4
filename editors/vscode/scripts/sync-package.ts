// Writes the generated contributions (language-model tools from the
// catalog of a `whale-ls serve` session with the extension's capabilities, the server's settings from
// `whale-ls settings --json`, the extension's own settings from
// src/contributions.ts) into package.json, or with --check fails, naming
// each setting and tool that is out of date.
//
//   node out/sync-package.js [--check] [--server PATH]   (default: bin/whale-ls)
import * as fs from 'fs';
import * as path from 'path';
import { agentFile, agentFilePath } from '../src/contributions';
import { packageDrift, readCatalog, readSettings, syncedPackageJson } from './catalog';

async function main(): Promise<void> {
    const args = process.argv.slice(2);
    const check = args.includes('--check');
    const i = args.indexOf('--server');
    const root = path.resolve(__dirname, '..');
    const server = i >= 0 ? args[i + 1] : path.join(root, 'bin', 'whale-ls');
    const file = path.join(root, 'package.json');
    const text = fs.readFileSync(file, 'utf8');
    const catalog = await readCatalog(server);
    const want = syncedPackageJson(text, catalog, readSettings(server));
    const agentPath = path.join(root, agentFilePath);
    const agentHave = fs.existsSync(agentPath) ? fs.readFileSync(agentPath, 'utf8') : '';
    const agentWant = agentFile(catalog.tools);
    if (want === text && agentHave === agentWant) {
        console.log(`package.json and ${agentFilePath} are in sync with the whale-ls catalog and settings`);
        return;
    }
    if (check) {
        console.error('package.json or the Whale agent is out of date with whale-ls:');
        for (const line of packageDrift(text, want)) {
            console.error(`  ${line}`);
        }
        if (agentHave !== agentWant) {
            console.error(`  ${agentFilePath} differs from the one generated from the catalog`);
        }
        console.error(`Run \`npm run sync\` and commit package.json and ${agentFilePath}.`);
        process.exit(1);
    }
    fs.writeFileSync(file, want);
    fs.mkdirSync(path.dirname(agentPath), { recursive: true });
    fs.writeFileSync(agentPath, agentWant);
    console.log(`package.json and ${agentFilePath} updated from the whale-ls catalog and settings`);
}

main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
});
