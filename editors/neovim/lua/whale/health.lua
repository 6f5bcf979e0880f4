-- :checkhealth whale
local compat = require('whale.compat')
local config = require('whale.config')

local M = {}

function M.check()
  local h = compat.health()
  h.start('whale: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if not compat.has('nvim-0.7') then
    h.error('Neovim ' .. version .. ' is too old: whale needs 0.7 or newer')
    return
  end
  h.ok('Neovim ' .. version)
  if compat.has('nvim-0.11') then
    h.ok('vim.lsp.config/vim.lsp.enable available: whale_ls is enabled through them')
  else
    h.info('Neovim before 0.11: whale starts whale-ls with vim.lsp.start_client and attaches it with autocommands')
  end
  if config.did_setup then
    h.ok("require('whale').setup() was called")
  else
    h.warn("require('whale').setup() was not called: nothing starts by itself", { "Add require('whale').setup({}) to your init.lua" })
  end

  h.start('whale: whale-ls')
  local cmd = config.options.cmd or { 'whale-ls' }
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    h.error(string.format('%s is not executable (not found on PATH)', exe), {
      'Build it: go build -o ~/.local/bin/whale-ls ./cmd/whale-ls (in the whale-ls repository)',
      "Or point the plugin at it: require('whale').setup({ cmd = { '/path/to/whale-ls' } })",
    })
    return
  end
  h.ok('found ' .. vim.fn.exepath(exe))
  local out = vim.fn.system({ exe, 'version' })
  if vim.v.shell_error == 0 then
    h.ok(vim.trim(out))
  else
    h.warn('`' .. exe .. ' version` failed: ' .. vim.trim(out))
  end
  local tools, err = require('whale').tools()
  if tools then
    local names = {}
    for _, t in ipairs(tools) do
      table.insert(names, t.name)
    end
    h.ok(string.format('%d tools: %s', #tools, table.concat(names, ', ')))
  else
    h.error('cannot list the tools: ' .. tostring(err))
  end

  h.start('whale: clients')
  local clients = compat.get_clients({ name = 'whale_ls' })
  if #clients == 0 then
    h.info('no whale-ls client is running (it starts when a file of a workspace is opened)')
  end
  for _, c in ipairs(clients) do
    local n = 0
    for _ in pairs(c.attached_buffers or {}) do
      n = n + 1
    end
    h.ok(string.format('client %d: root %s, %d buffer(s), position encoding %s', c.id, tostring(c.config.root_dir), n, tostring(c.offset_encoding)))
  end
  local tasks = require('whale').terminals()
  if #tasks > 0 then
    h.info(string.format('%d terminal task(s); :WhaleTerminals lists them', #tasks))
  end
end

return M
