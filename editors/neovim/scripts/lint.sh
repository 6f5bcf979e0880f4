#!/usr/bin/env bash
# Lints the Neovim plugin's Lua (every tracked *.lua file of the repository):
# stylua --check (settings in .stylua.toml) and luacheck (.luacheckrc), and
# LuaLS's --check when lua-language-server is installed. Installs nothing:
# a missing tool is skipped with the command that installs it, and fails the
# run in CI (CI=true), where it must be there. `make lint-lua` installs
# stylua from npm into the tools cache and passes it as STYLUA.
#
#   editors/neovim/scripts/lint.sh          check
#   editors/neovim/scripts/lint.sh --fix    format with stylua, then check
set -u
cd "$(dirname "$0")/../../.." || exit 1

mapfile -t files < <(git ls-files '*.lua')
if [ ${#files[@]} -eq 0 ]; then
  echo "no tracked Lua files found (run from a git clone)"
  exit 1
fi

status=0
missing() {
  if [ "${CI:-}" = true ]; then
    echo "$1 is not installed: $2"
    status=1
  else
    echo "$1 is not installed, skipped: $2"
  fi
}

stylua=${STYLUA:-stylua}
if command -v "$stylua" >/dev/null; then
  if [ "${1:-}" = --fix ]; then
    # Twice: stylua 2.5 settles some nested call layouts only on a second pass.
    "$stylua" "${files[@]}" && "$stylua" "${files[@]}" || status=1
  fi
  if "$stylua" --check "${files[@]}"; then
    echo "stylua: ${#files[@]} files formatted"
  else
    echo "stylua: files above need formatting (editors/neovim/scripts/lint.sh --fix)"
    status=1
  fi
else
  missing stylua "npm install -g @johnnymorganz/stylua-bin@2.5.2 (or cargo install stylua), or set STYLUA=<path>"
fi

if command -v luacheck >/dev/null; then
  if luacheck -q --formatter plain "${files[@]}"; then
    echo "luacheck: no warnings"
  else
    status=1
  fi
else
  missing luacheck "apt-get install lua-check (Debian/Ubuntu), or luarocks install luacheck"
fi

# LuaLS is optional: no package on Debian 12 or npm; its release archives
# come from GitHub (LuaLS/lua-language-server).
if command -v lua-language-server >/dev/null; then
  lua-language-server --check . --checklevel=Warning || status=1
else
  echo "lua-language-server not installed: its --check skipped (optional)"
fi

exit $status
