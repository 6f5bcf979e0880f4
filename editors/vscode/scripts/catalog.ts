// Reading the catalog from whale-ls and putting the generated contributions
// into package.json; used by sync-package.ts and the unit tests.
import { execFileSync } from 'child_process';
import { generatedContributes } from '../src/contributions';
import type { ToolsResult } from '../src/requests';

export function readCatalog(server: string): ToolsResult {
    const env = { ...process.env };
    delete env.WHALE_LS_TEST_TOOLS; // the test tools are never contributed
    const out = execFileSync(server, ['tools', '--json'], { encoding: 'utf8', env });
    return JSON.parse(out) as ToolsResult;
}

/** package.json text with the generated contributions in place. */
export function syncedPackageJson(text: string, catalog: ToolsResult): string {
    const pkg = JSON.parse(text);
    pkg.contributes = { ...pkg.contributes, ...generatedContributes(catalog.tools) };
    return JSON.stringify(pkg, null, 4) + '\n';
}
