-- Small shims over the Neovim API differences between 0.7 and today, so the
-- rest of the plugin is written once. Every function here works on 0.7.2.
local M = {}

local has_cache = {}

--- vim.fn.has() as a boolean, cached.
---@param feature string
---@return boolean
function M.has(feature)
  if has_cache[feature] == nil then
    has_cache[feature] = vim.fn.has(feature) == 1
  end
  return has_cache[feature]
end

--- All LSP clients (vim.lsp.get_clients on 0.10+, get_active_clients before).
---@param filter? table {name?, bufnr?, id?}
---@return table[]
function M.get_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local out = {}
  local clients = filter.bufnr and vim.lsp.buf_get_clients(filter.bufnr) or vim.lsp.get_active_clients()
  for _, c in pairs(clients) do
    if (not filter.name or c.name == filter.name) and (not filter.id or c.id == filter.id) then
      table.insert(out, c)
    end
  end
  return out
end

-- Client methods: dot-called functions up to 0.10, methods (client:request)
-- from 0.11 on. These helpers call the right form.

function M.request(client, method, params, handler, bufnr)
  if M.has('nvim-0.11') then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  if M.has('nvim-0.11') then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr or 0)
end

function M.notify(client, method, params)
  if M.has('nvim-0.11') then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.stop(client, force)
  if M.has('nvim-0.11') then
    return client:stop(force)
  end
  return client.stop(force)
end

function M.is_stopped(client)
  if M.has('nvim-0.11') then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- The health reporting functions: vim.health.* (0.10+), vim.health.report_*
--- (0.8/0.9) or require('health').report_* (0.7).
function M.health()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

--- Create a user command (nvim_create_user_command exists from 0.7).
function M.command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end

--- Real path of a file or folder, or the cleaned path when it does not exist.
---@param path string
---@return string
function M.realpath(path)
  local real = vim.loop.fs_realpath(path)
  if real then
    return real
  end
  local parent = vim.loop.fs_realpath(vim.fn.fnamemodify(path, ':h'))
  if parent then
    return parent .. '/' .. vim.fn.fnamemodify(path, ':t')
  end
  return vim.fn.fnamemodify(path, ':p')
end

--- Notify with the plugin's prefix.
function M.notify_user(msg, level)
  vim.notify('whale: ' .. msg, level or vim.log.levels.INFO)
end

return M
