-- :checkhealth whale
local compat = require('whale.compat')
local config = require('whale.config')

local M = {}

--- The platform, and what whale-ls's exec boundary does there (README,
--- "Platforms").
function M.platform(h)
  h.start('whale: platform')
  local os_name, arch = compat.os(), compat.sys.arch()
  local names = { linux = 'Linux', macos = 'macOS', windows = 'Windows' }
  h.ok(string.format('%s %s', names[os_name] or os_name, arch))
  if os_name == 'linux' then
    h.info(
      'exec boundary: the seccomp gate checks every program a shell task starts, its children included'
    )
  elseif os_name == 'macos' or os_name == 'windows' then
    h.info(
      'exec boundary: no seccomp gate here. Before a shell task starts, whale-ls parses the command line and asks (by the rules) about every program it names; '
        .. 'programs started later by scripts, and names computed at run time, are not checked (each result says so)'
    )
    if os_name == 'macos' then
      h.info(
        'tasks: pipes and PTYs, each task its own process group, killed by group; Seatbelt confinement is not implemented yet'
      )
    else
      h.info(
        'tasks: pipes, and PTYs on ConPTY (Windows 10 1809+); each task tree in a Job object; the shell is PowerShell (pwsh, else powershell.exe) unless shell.program says otherwise'
      )
    end
  else
    h.warn('whale-ls is built and tested for Linux, macOS and Windows only')
  end
end

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
    h.info(
      'Neovim before 0.11: whale starts whale-ls with vim.lsp.start_client and attaches it with autocommands'
    )
  end
  if config.did_setup then
    h.ok("require('whale').setup() was called")
  else
    h.warn(
      "require('whale').setup() was not called: nothing starts by itself",
      { "Add require('whale').setup({}) to your init.lua" }
    )
  end

  M.platform(h)

  h.start('whale: whale-ls')
  local cmd = config.options.cmd or { 'whale-ls' }
  local exe = cmd[1]
  local found, tried = compat.find_program(exe)
  if not found then
    local advice
    if compat.is_windows() then
      advice = {
        'Build it: go install ./cmd/whale-ls (in the whale-ls repository) writes whale-ls.exe to %USERPROFILE%\\go\\bin (or GOBIN), where the plugin also looks',
        "Or point the plugin at it: require('whale').setup({ cmd = { 'C:\\\\path\\\\to\\\\whale-ls.exe' } })",
      }
    else
      advice = {
        'Build it: go build -o ~/.local/bin/whale-ls ./cmd/whale-ls (in the whale-ls repository)',
        "Or point the plugin at it: require('whale').setup({ cmd = { '/path/to/whale-ls' } })",
      }
    end
    local elsewhere = {}
    for _, t in ipairs(tried) do
      if t ~= exe and t ~= exe .. '.exe' then
        table.insert(elsewhere, t)
      end
    end
    local where = #elsewhere > 0 and ('; also looked for ' .. table.concat(elsewhere, ', ')) or ''
    h.error(string.format('%s is not executable (not found on PATH%s)', exe, where), advice)
    return
  end
  h.ok('found ' .. found)
  if compat.sys.exepath(exe) == '' then
    h.info(exe .. ' is not on the PATH Neovim has; the plugin starts ' .. found)
  end
  local ext = found:lower():match('%.(%w+)$')
  if compat.is_windows() and (ext == 'bat' or ext == 'cmd') then
    h.warn(
      found
        .. ' is a batch file: Neovim starts the server without a shell, which is not assured to run it',
      {
        "Point cmd at whale-ls.exe, or: cmd = { 'cmd.exe', '/c', '" .. found .. "' }",
      }
    )
  end
  -- An argv list: no shell in between, on every platform.
  local out = vim.fn.system({ found, 'version' })
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
    h.ok(
      string.format(
        'client %d: root %s, %d buffer(s), position encoding %s',
        c.id,
        tostring(c.config.root_dir),
        n,
        tostring(c.offset_encoding)
      )
    )
  end
  if #clients > 0 then
    -- The language tools ask the other clients (|whale-language|).
    local others = {}
    for _, c in ipairs(compat.get_clients()) do
      if c.name ~= 'whale_ls' then
        table.insert(others, c.name)
      end
    end
    local caps = require('whale.config').options.capabilities or {}
    if caps.languageFeatures == false then
      h.info('language tools off (capabilities.languageFeatures = false)')
    elseif #others == 0 then
      h.info(
        'language tools: no other language client is running, so problems, definition, references and rename have nothing to ask'
      )
    else
      h.ok('language tools ask: ' .. table.concat(others, ', '))
    end
  end
  local tasks = require('whale').terminals()
  if #tasks > 0 then
    h.info(string.format('%d terminal task(s); :WhaleTerminals lists them', #tasks))
  end
end

return M
