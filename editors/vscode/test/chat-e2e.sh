#!/usr/bin/env bash
# Chat end-to-end test: the shipped Whale extension in a real VS Code
# (code-server 4.139.x) with its bundled GitHub Copilot Chat, agent mode
# driven through Debian's Chromium with playwright-core, and a scripted test
# model (test/chat/model) choosing whale's tools turn by turn.
#
# From a clean checkout it installs what it needs (test/e2e-tools.sh), builds
# and packages the extension with its whale-ls binary and the test model, runs
# the turns (test/chat/scenarios.ts) and ends with "N passed, M failed".
# Screenshots, the model's log and the logs go to $OUT (default
# test-output/chat-e2e).
#
#   WHALE_E2E_TOOLS=DIR  where Node 24 and code-server are installed and
#                        found again (default: a folder named by their versions
#                        under ${XDG_CACHE_HOME:-~/.cache}/whale-ls-e2e)
set -euo pipefail
cd "$(dirname "$0")/.."
export OUT="${OUT:-$PWD/test-output/chat-e2e}"
E2E_NAME="chat e2e"
. test/e2e-tools.sh
rm -rf "$OUT"
mkdir -p "$OUT"

step "system packages"
e2e_system_packages

step "extension: npm ci, package (whale-ls built with go), the test model"
npm ci --no-audit --no-fund --loglevel=error >/dev/null || give_up "npm ci failed"
npm run --silent package >"$OUT/package.log" 2>&1 || { tail -20 "$OUT/package.log"; give_up "npm run package failed"; }
node scripts/build.mjs --chat
(cd out/test/chat/model && npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository -o ../whale-chat-e2e.vsix >>"$OUT/package.log" 2>&1) ||
	{ tail -20 "$OUT/package.log"; give_up "packaging the test model failed"; }

e2e_tools

step "chat turns"
set +e
CODE_SERVER="$code_server/out/node/entry.js" NODE24="$node24" VSIX="$PWD/whale-ls.vsix" \
	MODEL_VSIX="$PWD/out/test/chat/whale-chat-e2e.vsix" CHROMIUM=/usr/bin/chromium E2E_STARTED="$started" \
	node out/test/chat/driver.js
rc=$?
set -e
exit $rc
