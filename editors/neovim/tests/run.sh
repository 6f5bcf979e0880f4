#!/usr/bin/env bash
# Runs the Neovim plugin's tests: builds whale-ls, then runs every
# tests/test_*.lua in its own fresh headless Neovim with sandboxed XDG
# folders, and prints "N passed, M failed" last. Exits non-zero on failure.
#
#   editors/neovim/tests/run.sh [test_file.lua ...]
#
# NVIM (default: nvim) picks the Neovim binary, GO (default: go) the Go
# toolchain that builds whale-ls; WHALE_LS names an already built whale-ls
# to test instead of building one. WHALE_NVIM_PLUGINS names a folder of
# extracted plugin folders: test_codecompanion.lua then runs once per
# codecompanion.nvim-* folder in it (WHALE_CODECOMPANION), else it skips;
# test_avante.lua takes avante.nvim-*, nui.nvim-* and plenary.nvim-* from it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# The plugin (lua/, plugin/, doc/, lsp/) is the repository's root.
repo=$(cd "$here/../../.." && pwd)
nvim=${NVIM:-nvim}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/bin"
if [ -n "${WHALE_LS:-}" ] && [ -x "${WHALE_LS}" ]; then
  cp "$WHALE_LS" "$work/bin/whale-ls"
elif ! (cd "$repo" && "${GO:-go}" build -tags whaletest -o "$work/bin/whale-ls" ./cmd/whale-ls); then
  echo "building whale-ls failed"
  echo "0 passed, 1 failed"
  exit 1
fi
export WHALE_LS="$work/bin/whale-ls"
export PATH="$work/bin:$PATH"

# Keep Go's build cache when the sandboxed XDG_CACHE_HOME below would hide
# it (a test builds whale-ls with go as the plugin's build step does).
if command -v "${GO:-go}" >/dev/null; then
  GOCACHE=$("${GO:-go}" env GOCACHE)
  export GOCACHE
fi

for d in config data state cache run; do
  mkdir -p "$work/xdg/$d"
done
export XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data"
export XDG_STATE_HOME="$work/xdg/state" XDG_CACHE_HOME="$work/xdg/cache"
export XDG_RUNTIME_DIR="$work/xdg/run"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"

"$nvim" --version | head -1

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=("$here"/test_*.lua)
fi

passed=0
failed=0
for f in "${files[@]}"; do
  f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
  variants=("")
  if [ "$(basename "$f")" = test_codecompanion.lua ] && [ -n "${WHALE_NVIM_PLUGINS:-}" ]; then
    variants=()
    for d in "$WHALE_NVIM_PLUGINS"/codecompanion.nvim-*/; do
      [ -d "$d" ] && variants+=("${d%/}")
    done
    [ ${#variants[@]} -gt 0 ] || variants=("")
  fi
  for variant in "${variants[@]}"; do
    results="$work/results"
    rm -f "$results"
    WHALE_CODECOMPANION=$variant timeout 600 "$nvim" --headless -u "$here/minimal_init.lua" -i NONE -n \
      -c "lua require('harness').run([[$f]], [[$results]])" </dev/null
    rc=$?
    if [ -s "$results" ]; then
      read -r p fl <"$results"
      passed=$((passed + p))
      failed=$((failed + fl))
    else
      echo "FAIL $(basename "$f"): Neovim exited with $rc before reporting"
      failed=$((failed + 1))
    fi
  done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
