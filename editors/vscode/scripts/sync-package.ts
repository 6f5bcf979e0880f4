// Writes the generated contributions (language-model tools from
// `whale-ls tools --json`, settings) into package.json, or with --check
// fails when package.json is out of date.
//
//   node out/sync-package.js [--check] [--server PATH]   (default: bin/whale-ls)
import * as fs from 'fs';
import * as path from 'path';
import { readCatalog, syncedPackageJson } from './catalog';

function main(): void {
    const args = process.argv.slice(2);
    const check = args.includes('--check');
    const i = args.indexOf('--server');
    const root = path.resolve(__dirname, '..');
    const server = i >= 0 ? args[i + 1] : path.join(root, 'bin', 'whale-ls');
    const file = path.join(root, 'package.json');
    const text = fs.readFileSync(file, 'utf8');
    const want = syncedPackageJson(text, readCatalog(server));
    if (want === text) {
        console.log('package.json is in sync with the whale-ls catalog');
        return;
    }
    if (check) {
        console.error('package.json is out of date with `whale-ls tools --json`; run `npm run sync` and commit the result');
        process.exit(1);
    }
    fs.writeFileSync(file, want);
    console.log('package.json updated from the whale-ls catalog');
}

main();
