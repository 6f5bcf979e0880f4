-- Minimal init for the headless tests: only this plugin and Neovim's own
-- runtime on 'runtimepath', no user configuration, no shada, no swap files.
local tests = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin = vim.fn.fnamemodify(tests, ':h')
vim.opt.runtimepath = { plugin, vim.env.VIMRUNTIME }
vim.opt.packpath = {}
vim.o.swapfile = false
vim.o.shadafile = 'NONE'
vim.o.more = false
vim.o.showmode = false
vim.o.hidden = true
vim.notify = function(msg)
  io.stdout:write('  [notify] ' .. tostring(msg):gsub('\n', ' ') .. '\n')
end
package.path = tests .. '/?.lua;' .. package.path
