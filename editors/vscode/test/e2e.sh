#!/usr/bin/env bash
# End-to-end test of the Whale extension in a real VS Code (code-server
# 4.139.x) driven through Debian's Chromium with playwright-core.
#
# From a clean checkout it installs what it needs — Debian packages (when
# root), the extension's npm packages, Node 24 and code-server (test only,
# test/e2e-tools.sh) — builds and packages the extension with its
# whale-ls binary, runs the scenario and ends with "N passed, M failed".
# Screenshots, results and logs go to $OUT (default test-output/e2e).
#
#   WHALE_E2E_TOOLS=DIR  where Node 24 and code-server are installed and
#                        found again (default: a folder named by their versions
#                        under ${XDG_CACHE_HOME:-~/.cache}/whale-ls-e2e)
set -euo pipefail
cd "$(dirname "$0")/.."
export OUT="${OUT:-$PWD/test-output/e2e}"
E2E_NAME="e2e"
. test/e2e-tools.sh
rm -rf "$OUT"
mkdir -p "$OUT"

step "system packages"
e2e_system_packages

step "extension: npm ci, package (whale-ls built with go)"
npm ci --no-audit --no-fund --loglevel=error >/dev/null || give_up "npm ci failed"
npm run --silent package >"$OUT/package.log" 2>&1 || { tail -20 "$OUT/package.log"; give_up "npm run package failed"; }
node scripts/build.mjs --e2e
(cd out/test/e2e/companion && npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository -o ../whale-e2e.vsix >/dev/null) ||
	give_up "packaging the test companion failed"
# The scenario installs the same package with the e2e entry point
# (test/e2e/whale/main.ts: src/main.ts's activation plus the beforeApplyEdit
# seam the companion uses to type while an edit is on its way).
cp out/main.js out/main.shipped.js
cp out/test/e2e/whale/main.js out/main.js
packaged=true
npx --no-install vsce package --no-dependencies --skip-license -o whale-ls-e2e.vsix >>"$OUT/package.log" 2>&1 || packaged=false
mv out/main.shipped.js out/main.js
$packaged || { tail -20 "$OUT/package.log"; give_up "packaging the e2e build of the extension failed"; }

e2e_tools

step "scenario"
set +e
CODE_SERVER="$code_server/out/node/entry.js" NODE24="$node24" VSIX="$PWD/whale-ls-e2e.vsix" \
	COMPANION_VSIX="$PWD/out/test/e2e/whale-e2e.vsix" CHROMIUM=/usr/bin/chromium E2E_STARTED="$started" \
	node out/test/e2e/driver.js
rc=$?
set -e
exit $rc
