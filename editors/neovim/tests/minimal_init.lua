-- Minimal init for the headless tests: only this plugin and Neovim's own
-- runtime on 'runtimepath' (with its lib/nvim folder of bundled treesitter
-- parsers, 0.11), no user configuration, no shada, no swap files. 'packpath'
-- keeps the runtime's own pack folder: 0.11's netrw plugin runs `packadd
-- netrw`, which fails with E919 on an empty packpath.
local tests = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
-- The plugin is the repository's root (lua/, plugin/, doc/, lsp/), two
-- folders above editors/neovim/tests.
local plugin = vim.fn.fnamemodify(tests, ':h:h:h')
local rtp = { plugin, vim.env.VIMRUNTIME }
for _, dir in ipairs(vim.opt.runtimepath:get()) do
  if dir:match('[/\\]lib[/\\]nvim$') then
    table.insert(rtp, dir)
  end
end
vim.opt.runtimepath = rtp
vim.opt.packpath = { vim.env.VIMRUNTIME }
vim.o.swapfile = false
vim.o.shadafile = 'NONE'
vim.o.more = false
vim.o.showmode = false
vim.o.hidden = true
vim.notify = function(msg)
  io.stdout:write('  [notify] ' .. tostring(msg):gsub('\n', ' ') .. '\n')
end
package.path = tests .. '/?.lua;' .. package.path
