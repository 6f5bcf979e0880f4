#!/usr/bin/env bash
# Runs make targets one after another, each to its end even when an earlier
# one failed, and prints how long each took, whether it passed, failed or
# was skipped (and what to install to run it), then a closing line. Exits 1
# when any target failed.
#
# A target is skipped when a program it needs is missing: on a developer's
# machine that is a skip with the install command; in CI (CI=true), where
# .ci/run installs everything, it is a failure.
#
#   scripts/run-targets.sh TARGET...
set -uo pipefail
cd "$(dirname "$0")/.."

# needs TARGET: the programs the target needs, a line each as
# program:what to do to get it.
needs() {
	local npm="npm:install Node.js 20 or later with npm"
	case $1 in
	neovim) echo "nvim:apt-get install neovim" ;;
	vscode | vscode-package | mcp-conformance | acp | hosts | lint-ts) echo "$npm" ;;
	vscode-e2e | vscode-chat-e2e)
		echo "$npm"
		# As root the e2e scripts install Chromium and the build packages.
		[ "$(id -u)" = 0 ] || [ -x /usr/bin/chromium ] || echo "chromium:apt-get install chromium build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev, or run as root"
		;;
	lint-lua) printf '%s\n' "luacheck:apt-get install lua-check" "$npm" ;;
	wine) echo "wine64:apt-get install wine64" ;;
	esac
}

# present PROGRAM: on PATH, or one of the places Debian puts it off PATH.
present() {
	command -v "$1" >/dev/null && return
	case $1 in
	wine64) [ -x /usr/lib/wine/wine64 ] ;;
	*) return 1 ;;
	esac
}

results=() tails=()
log=$(mktemp)
failed=0 passed=0 skipped=0
start_all=$SECONDS
for target in "$@"; do
	missing=()
	while IFS= read -r need; do
		[ -n "$need" ] || continue
		present "${need%%:*}" || missing+=("${need%%:*} (${need#*:})")
	done < <(needs "$target")
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "${CI:-}" = true ]; then
			echo "== $target: missing ${missing[*]}"
			results+=("$(printf '%-18s %-8s %5ss  missing %s' "$target" FAILED 0 "${missing[*]}")")
			failed=$((failed + 1))
		else
			echo "== $target: skipped, missing ${missing[*]}"
			results+=("$(printf '%-18s %-8s %5ss  to run it: %s' "$target" skipped 0 "${missing[*]}")")
			skipped=$((skipped + 1))
		fi
		continue
	fi
	echo "== $target"
	t0=$SECONDS
	if make --no-print-directory "$target" 2>&1 | tee "$log"; then
		results+=("$(printf '%-18s %-8s %5ss' "$target" passed $((SECONDS - t0)))")
		passed=$((passed + 1))
	else
		results+=("$(printf '%-18s %-8s %5ss' "$target" FAILED $((SECONDS - t0)))")
		failed=$((failed + 1))
		tails+=("== $target failed; its last lines:" "$(tail -n 40 "$log")")
	fi
done
rm -f "$log"

# The failures' last lines again at the end, where a log cut to its tail
# still shows them.
if [ ${#tails[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${tails[@]}"
fi

echo
echo "== make targets ($((SECONDS - start_all)) s in all)"
printf '%s\n' "${results[@]}"
echo "targets: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
