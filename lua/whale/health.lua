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

--- How to install whale-ls: the plugin's build step, a release, or Go.
local function install_advice()
  local root = compat.plugin_root()
  local advice = {
    "With lazy.nvim: :Lazy build whale-ls (runs the plugin's build.lua: downloads the release archive matching the plugin and checks its checksum, or builds with Go when the plugin is not at a release)",
    'Without a plugin manager: nvim -l '
      .. compat.join(root, 'build.lua')
      .. ' (Neovim 0.9+), or :luafile '
      .. compat.join(root, 'build.lua'),
  }
  if compat.is_windows() then
    table.insert(
      advice,
      'Or build it: go install ./cmd/whale-ls (in the whale-ls repository) writes whale-ls.exe to %USERPROFILE%\\go\\bin (or GOBIN), where the plugin also looks'
    )
    table.insert(
      advice,
      "Or point the plugin at it: require('whale').setup({ cmd = { 'C:\\\\path\\\\to\\\\whale-ls.exe' } })"
    )
  else
    table.insert(
      advice,
      'Or build it: go build -o ~/.local/bin/whale-ls ./cmd/whale-ls (in the whale-ls repository)'
    )
    table.insert(
      advice,
      "Or point the plugin at it: require('whale').setup({ cmd = { '/path/to/whale-ls' } })"
    )
  end
  table.insert(advice, 'Then :WhaleStart (no restart needed)')
  return advice
end

--- The running whale clients, told as they are.
local function clients(h)
  h.start('whale: clients')
  local list = compat.get_clients({ name = 'whale_ls' })
  local running = 0
  for _, c in ipairs(list) do
    local n = 0
    for _ in pairs(c.attached_buffers or {}) do
      n = n + 1
    end
    local state = compat.is_stopped(c) and 'stopping' or (c.initialized and 'running' or 'starting')
    if state == 'running' then
      running = running + 1
    end
    h.ok(
      string.format(
        'client %d (%s): root %s, %d buffer(s), position encoding %s',
        c.id,
        state,
        tostring(c.config.root_dir),
        n,
        tostring(c.offset_encoding)
      )
    )
  end
  if #list == 0 then
    h.info(
      'no whale-ls client is running: it starts when a file of a workspace is opened, or with :WhaleStart'
    )
    return
  end
  -- The language tools ask the other clients (|whale-language|).
  local others = {}
  for _, c in ipairs(compat.get_clients()) do
    if c.name ~= 'whale_ls' then
      table.insert(others, c.name)
    end
  end
  local caps = config.options.capabilities or {}
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

--- The chat plugins' side: CodeCompanion's extension and avante's tools.
local function extensions(h, found)
  h.start('whale: chat plugins')
  local ok_cc, cc_config = pcall(require, 'codecompanion.config')
  if not ok_cc then
    h.info('CodeCompanion is not installed (optional)')
  else
    local cc = package.loaded['whale.codecompanion']
    local exts = type(cc_config) == 'table'
        and (cc_config.extensions or (rawget(cc_config, 'config') or {}).extensions)
      or nil
    local configured = type(exts) == 'table' and exts.whale ~= nil
    if not cc or not cc.did_setup then
      h.warn(
        'CodeCompanion is installed, but its whale extension has not run'
          .. (configured and ' yet' or ''),
        {
          "Add extensions = { whale = { opts = {} } } to require('codecompanion').setup(), or call require('whale.codecompanion').setup({})",
        }
      )
    elseif #cc.registered == 0 then
      local why = found and tostring(cc.error or 'no tools')
        or 'whale-ls is missing (see "whale: whale-ls" above)'
      h.error(
        'CodeCompanion: whale tools not registered: ' .. why,
        { 'Install whale-ls (see above); a new chat or :WhaleStart then registers them' }
      )
    else
      local o = vim.tbl_extend('force', cc.defaults, cc.opts or {})
      h.ok(
        string.format(
          'CodeCompanion: %d whale tools registered%s; the @ menu lists %s',
          #cc.registered,
          o.group and (' in the group @{' .. o.group .. '}') or '',
          (o.menu == 'tools' or not o.group) and 'each tool' or 'the group only'
        )
      )
    end
  end
  local ok_av = pcall(require, 'avante.config')
  if not ok_av then
    h.info('avante.nvim is not installed (optional)')
  else
    local av = package.loaded['whale.avante']
    local state = av and av.state and av.state() or nil
    if not state or state.tools == 0 then
      h.warn('avante.nvim is installed, but whale tools are not in its custom_tools', {
        "require('avante').setup(require('whale.avante').setup_opts({})) (see :help whale-avante)",
      })
    else
      local msg = string.format('avante: %d whale tools in custom_tools', state.tools)
      if #state.disabled > 0 then
        h.ok(msg .. "; avante's own " .. table.concat(state.disabled, ', ') .. ' disabled')
      else
        h.warn(msg .. "; avante's own edit and shell tools are still offered beside them", {
          "Use require('whale.avante').setup_opts(), which sets disabled_tools (see :help whale-avante)",
        })
      end
    end
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
  local found, problem, details = require('whale').find_server()
  if not found then
    -- The message's pointer to this report is left out here.
    problem = problem:gsub(': :checkhealth whale says how to %a+ it, then :WhaleStart$', '')
    h.error(problem .. (details and (' (' .. details .. ')') or ''), install_advice())
  else
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
  end

  clients(h)
  extensions(h, found)
  local tasks = require('whale').terminals()
  if #tasks > 0 then
    h.info(string.format('%d terminal task(s); :WhaleTerminals lists them', #tasks))
  end
end

return M
