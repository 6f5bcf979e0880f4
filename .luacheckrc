-- luacheck settings for the Neovim plugin's Lua (see editors/neovim/scripts/lint.sh).
std = 'luajit'
-- Neovim's API table; tests also set vim.* fields of their own (stand-ins).
globals = { 'vim' }
max_line_length = false -- stylua owns line length (.stylua.toml)
