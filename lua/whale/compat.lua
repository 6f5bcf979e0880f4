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
  local clients = filter.bufnr and vim.lsp.buf_get_clients(filter.bufnr)
    or vim.lsp.get_active_clients()
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

function M.cancel_request(client, id)
  if M.has('nvim-0.11') then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

--- Whether client's server offers method (false while it is starting).
function M.supports_method(client, method, bufnr)
  if type(client.server_capabilities) ~= 'table' then
    return false
  end
  if M.has('nvim-0.11') then
    return client:supports_method(method, bufnr)
  end
  return client.supports_method(method) and true or false
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

--------------------------------------------------------------------------
-- Platforms. Everything that differs between Linux, macOS and Windows goes
-- through these helpers. What they ask of the system (which OS, exepath,
-- executable, environment) comes from M.sys, which tests replace with
-- M.set_platform() to run the macOS and Windows branches on Linux.

local function real_os()
  local uname = vim.loop.os_uname()
  local sysname = uname and uname.sysname or ''
  if vim.fn.has('win32') == 1 or sysname:match('^Windows') or sysname:match('^MINGW') then
    return 'windows'
  elseif sysname == 'Darwin' then
    return 'macos'
  elseif sysname == 'Linux' then
    return 'linux'
  end
  return sysname:lower()
end

local real_sys = {
  os = real_os,
  arch = function()
    local uname = vim.loop.os_uname()
    return uname and uname.machine or ''
  end,
  exepath = function(name)
    return vim.fn.exepath(name)
  end,
  executable = function(path)
    return vim.fn.executable(path) == 1
  end,
  getenv = function(name)
    return vim.loop.os_getenv(name)
  end,
}

M.sys = real_sys

--- Replace what the platform helpers ask of the system (tests):
--- fake = {os = 'windows'|'macos'|'linux', arch?, exepath?, executable?,
--- getenv?}; fields left out come from the real system. nil restores it.
---@param fake? table
function M.set_platform(fake)
  if fake == nil then
    M.sys = real_sys
    return
  end
  local sys = {}
  for k, f in pairs(real_sys) do
    local v = fake[k]
    if v == nil then
      sys[k] = f
    elseif type(v) == 'function' then
      sys[k] = v
    else
      sys[k] = function()
        return v
      end
    end
  end
  M.sys = sys
end

--- 'linux', 'macos', 'windows' (or uname's sysname in lower case).
---@return string
function M.os()
  return M.sys.os()
end

function M.is_windows()
  return M.os() == 'windows'
end

function M.is_macos()
  return M.os() == 'macos'
end

--- The path separator the platform's own paths use.
function M.sep()
  return M.is_windows() and '\\' or '/'
end

--- Whether path is absolute: /x on Unix; C:\x, C:/x, \\server\share or a
--- path rooted on the current drive (\x) on Windows.
---@param path string
---@return boolean
function M.is_absolute(path)
  if type(path) ~= 'string' or path == '' then
    return false
  end
  if M.is_windows() then
    return path:match('^%a:[\\/]') ~= nil or path:match('^[\\/]') ~= nil
  end
  return path:sub(1, 1) == '/'
end

--- dir and name joined with the platform's separator.
function M.join(dir, name)
  local last = dir:sub(-1)
  if last == '/' or (M.is_windows() and last == '\\') then
    return dir .. name
  end
  return dir .. M.sep() .. name
end

--- The form of path used to compare it with another: forward slashes, no
--- repeated or trailing separator; on Windows also without case (NTFS
--- names do not differ by case alone). macOS and Linux compare as given:
--- realpath() already returns the name stored on disk, and case-sensitive
--- volumes exist on macOS.
---@param path string
---@return string
function M.path_key(path)
  path = tostring(path or '')
  if M.is_windows() then
    local unc = path:match('^[\\/][\\/]') ~= nil
    path = path:gsub('\\', '/'):gsub('/+', '/')
    if unc then
      path = '/' .. path
    end
    if vim.in_fast_event() then
      path = path:lower()
    else
      path = vim.fn.tolower(path)
    end
  else
    path = path:gsub('/+', '/')
  end
  if #path > 1 and path:sub(-1) == '/' and not path:match('^%a:/$') then
    path = path:sub(1, -2)
  end
  return path
end

--- Whether a and b name the same file (see path_key).
function M.same_path(a, b)
  if a == nil or b == nil then
    return false
  end
  return a == b or M.path_key(a) == M.path_key(b)
end

--- path relative to root (in path's own spelling), '' for root itself, or
--- nil when path is not inside root.
---@return string|nil
function M.relative(path, root)
  local kp, kr = M.path_key(path), M.path_key(root)
  if kp == kr then
    return ''
  end
  local prefix = kr:sub(-1) == '/' and kr or (kr .. '/')
  if kp:sub(1, #prefix) ~= prefix then
    return nil
  end
  -- path_key keeps one character per character of path except where
  -- separators collapse; count the components instead of bytes.
  local parts = {}
  for part in tostring(path):gmatch('[^\\/]+') do
    table.insert(parts, part)
  end
  local skip = 0
  for _ in prefix:gmatch('[^/]+') do
    skip = skip + 1
  end
  return table.concat(parts, M.is_windows() and '\\' or '/', skip + 1)
end

--- Whether path is root or inside it.
function M.is_inside(path, root)
  return M.relative(path, root) ~= nil
end

--- The server program's file name on this platform.
function M.server_binary()
  return M.is_windows() and 'whale-ls.exe' or 'whale-ls'
end

--- The plugin's folder (the one holding lua/, plugin/, doc/ and build.lua).
---@return string
function M.plugin_root()
  local here = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(here, ':p:h:h:h')
end

--- Folders whale-ls is looked for in when it is not on PATH (a macOS GUI
--- Neovim started from the Dock, a Windows PATH not refreshed): the
--- plugin's own bin/ (where build.lua puts it), $GOBIN, $GOPATH/bin,
--- ~/go/bin, and on Unix ~/.local/bin.
---@return string[]
function M.install_dirs()
  local sys = M.sys
  local home = sys.getenv(M.is_windows() and 'USERPROFILE' or 'HOME') or sys.getenv('HOME')
  local dirs = {}
  local function add(d)
    if d and d ~= '' then
      table.insert(dirs, d)
    end
  end
  -- Where the plugin's build step (build.lua) puts the program.
  add(M.join(M.plugin_root(), 'bin'))
  add(sys.getenv('GOBIN'))
  local gopath = sys.getenv('GOPATH')
  if gopath and gopath ~= '' then
    -- GOPATH is a list; its first entry is where go install writes.
    local first = vim.split(gopath, M.is_windows() and ';' or ':', { plain = true })[1]
    if first ~= '' then
      add(M.join(first, 'bin'))
    end
  end
  if home and home ~= '' then
    add(M.join(M.join(home, 'go'), 'bin'))
    if not M.is_windows() then
      add(M.join(M.join(home, '.local'), 'bin'))
    end
  end
  return dirs
end

--- The program to start for cmd[1] (an absolute path, a path, or a name
--- to look up): the full path when it is found, else nil. On Windows a
--- name or path without an extension also matches NAME.exe (exepath and
--- executable() try PATHEXT there), and the default name is whale-ls.exe.
---@param program string
---@return string|nil path, string[] tried
function M.find_program(program)
  local sys = M.sys
  local tried = {}
  local function try(p)
    table.insert(tried, p)
    if sys.executable(p) then
      local full = sys.exepath(p)
      return full ~= '' and full or p
    end
  end
  local names = { program }
  if M.is_windows() and not program:match('%.[%w]+$') then
    table.insert(names, program .. '.exe')
  end
  local has_dir = program:find('/', 1, true) or (M.is_windows() and program:find('\\', 1, true))
  for _, n in ipairs(names) do
    local found = try(n)
    if found then
      return found, tried
    end
  end
  if has_dir or M.is_absolute(program) then
    return nil, tried
  end
  local base = program
  if base == 'whale-ls' then
    base = M.server_binary()
  end
  for _, dir in ipairs(M.install_dirs()) do
    local found = try(M.join(dir, base))
    if found then
      return found, tried
    end
  end
  return nil, tried
end

--- cmd with its program resolved by find_program (a copy; cmd itself when
--- the program is not found, so the error names what was configured).
---@param cmd string[]
---@return string[]
function M.server_cmd(cmd)
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    return cmd
  end
  local found = M.find_program(cmd[1])
  if not found then
    return cmd
  end
  local out = vim.deepcopy(cmd)
  out[1] = found
  return out
end

--- text split into lines for a buffer: on \n, with the \r of CRLF line
--- ends dropped (Windows tool output, CRLF files), so no ^M shows.
---@param text string
---@return string[]
function M.lines(text)
  local lines = vim.split(tostring(text or ''), '\n', { plain = true })
  for i, l in ipairs(lines) do
    if l:sub(-1) == '\r' then
      lines[i] = l:sub(1, -2)
    end
  end
  return lines
end

--- v as a string: '' for nil and vim.NIL (a JSON null).
---@return string
function M.str(v)
  if v == nil or v == vim.NIL then
    return ''
  end
  return tostring(v)
end

--- A file's text as buffer lines: none for '', and no empty last line for
--- text that ends with a line break.
---@return string[]
function M.text_lines(s)
  s = M.str(s)
  if s == '' then
    return {}
  end
  local lines = M.lines(s)
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

--- Names a scratch buffer, adding " (2)", " (3)" … when the name is taken.
function M.set_buf_name(buf, name)
  if pcall(vim.api.nvim_buf_set_name, buf, name) then
    return
  end
  for i = 2, 99 do
    if pcall(vim.api.nvim_buf_set_name, buf, string.format('%s (%d)', name, i)) then
      return
    end
  end
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
    return M.join(parent, vim.fn.fnamemodify(path, ':t'))
  end
  return vim.fn.fnamemodify(path, ':p')
end

--- Notify with the plugin's prefix.
function M.notify_user(msg, level)
  vim.notify('whale: ' .. msg, level or vim.log.levels.INFO)
end

return M
