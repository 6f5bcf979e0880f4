-- whale: whale-ls in Neovim.
--
-- setup(opts) starts whale-ls for each workspace root (the nearest folder
-- holding a root marker, .git by default, else the current folder) and
-- attaches it to every normal buffer there: with vim.lsp.start_client on
-- Neovim 0.7 to 0.10, through vim.lsp.config/vim.lsp.enable on 0.11+.
-- The client declares experimental.whale = {terminals, prompts,
-- saveDocuments, languageFeatures} and carries whale's own handlers: a
-- strict applyEdit, saveDocuments, terminals, prompts, plan, todos,
-- changes/changed, and the other language servers' answers (diagnostics,
-- languageFeature).
--
-- The Lua API for chat plugins: tools(), call(name, input, callback).
local compat = require('whale.compat')
local config = require('whale.config')
local protocol = require('whale.protocol')

local M = {}

M.name = 'whale_ls'

-- Callbacks waiting for a client's initialize to finish, by client id.
local waiting = {}
local augroup = nil

--- The handlers whale's client installs.
function M.handlers()
  local edits = require('whale.edits')
  local terminals = require('whale.terminals')
  local prompts = require('whale.prompts')
  local plan = require('whale.plan')
  local changes = require('whale.changes')
  local language = require('whale.language')
  return {
    ['workspace/applyEdit'] = edits.apply_edit_handler,
    [protocol.save_documents] = edits.save_documents_handler,
    [protocol.terminal_open] = terminals.on_open,
    [protocol.terminal_output] = terminals.on_output,
    [protocol.terminal_exit] = terminals.on_exit,
    [protocol.terminal_waiting] = terminals.on_waiting,
    [protocol.prompt] = prompts.on_prompt,
    [protocol.plan] = plan.on_plan,
    [protocol.todos] = plan.on_todos,
    [protocol.tools_changed] = M.on_tools_changed,
    [protocol.changes_changed] = changes.on_changed,
    [protocol.diagnostics] = language.diagnostics_handler,
    [protocol.language_feature] = language.feature_handler,
  }
end

M.tools_changed_listeners = {}

--- Call fn(added_specs, client_id) when whale-ls activates more tools
--- (whale/toolsChanged); adapters use it to register them.
function M.on_tools_changed_do(fn)
  table.insert(M.tools_changed_listeners, fn)
end

--- whale/toolsChanged {added, count}
function M.on_tools_changed(_, params, ctx)
  local added = type(params) == 'table' and params.added or {}
  for _, fn in ipairs(M.tools_changed_listeners) do
    pcall(fn, added, ctx and ctx.client_id)
  end
end

--- Client capabilities: Neovim's, plus experimental.whale.
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  local want = config.options.capabilities or {}
  caps.experimental = caps.experimental or {}
  caps.experimental.whale = {
    terminals = want.terminals ~= false,
    prompts = want.prompts ~= false,
    saveDocuments = want.saveDocuments ~= false,
    languageFeatures = want.languageFeatures ~= false,
  }
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  return caps
end

local function settings()
  local s = config.options.settings
  if s == nil or vim.tbl_isempty(s) then
    return vim.empty_dict()
  end
  return s
end

-- Gives the tools_changed listeners the running server's catalog: a
-- catalog read before the server ran (`whale-ls tools --json`, which has no
-- editor) lacks the language tools, which the server lists for this client
-- because it declares languageFeatures. Listeners add what they lack.
local function announce_catalog(client)
  if #M.tools_changed_listeners == 0 then
    return
  end
  compat.request(client, protocol.tools, vim.empty_dict(), function(err, result)
    if err or type(result) ~= 'table' or type(result.tools) ~= 'table' then
      return
    end
    vim.schedule(function()
      for _, fn in ipairs(M.tools_changed_listeners) do
        pcall(fn, result.tools, client.id)
      end
    end)
  end)
end

local function on_init(client)
  require('whale.edits').track_client(client)
  -- Scheduled: Neovim sends didOpen for buffers attached during startup
  -- right after on_init; calls should reach the server after those.
  vim.schedule(function()
    announce_catalog(client)
    local cbs = waiting[client.id] or {}
    waiting[client.id] = nil
    for _, cb in ipairs(cbs) do
      pcall(cb, client)
    end
  end)
end

local function on_attach(client, bufnr)
  require('whale.edits').on_attach(client, bufnr)
  if type(config.options.on_attach) == 'function' then
    pcall(config.options.on_attach, client, bufnr)
  end
end

local function fail_waiting(client_id, msg)
  local cbs = waiting[client_id] or {}
  waiting[client_id] = nil
  for _, cb in ipairs(cbs) do
    pcall(cb, nil, msg)
  end
end

local function on_exit(_, _, client_id)
  fail_waiting(client_id, 'whale-ls exited before it was ready')
  require('whale.terminals').client_exited(client_id)
  require('whale.edits').forget_client(client_id)
  vim.schedule(function()
    require('whale.review').client_exited(client_id)
  end)
end

--------------------------------------------------------------------------
-- Finding the program, and telling the user once when it cannot run.

-- The programs `whale-ls version` ran for, by path and file stamp: a
-- binary replaced in place (a new build) is tried again.
local probed = {}

local function stamp(path)
  local st = vim.loop.fs_stat(path)
  return st and string.format('%s:%d:%d', path, st.size, st.mtime.sec) or path
end

--- Whether program at path runs: `whale-ls version` exits 0. Programs not
--- named whale-ls (a wrapper in cmd) are not probed.
local function probe(path)
  local base = vim.fn.fnamemodify(path, ':t'):lower()
  if not base:match('^whale%-ls') then
    return true
  end
  local key = stamp(path)
  if probed[key] ~= nil then
    return probed[key] == true, probed[key] ~= true and probed[key] or nil
  end
  local ok, out = pcall(vim.fn.system, { path, 'version' })
  local why
  if not ok then
    why = tostring(out)
  elseif vim.v.shell_error ~= 0 then
    local first = vim.trim(vim.split(tostring(out), '\n', { plain = true })[1] or '')
    why = string.format('exit code %d%s', vim.v.shell_error, first ~= '' and (': ' .. first) or '')
  end
  probed[key] = why or true
  return why == nil, why
end

--- The program setup() starts: its full path, or nil, a short message for
--- the user that says what to do, and the details (where it was looked for)
--- that :checkhealth whale adds.
---@return string|nil path, string|nil problem, string|nil details
function M.find_server()
  local cmd = config.options.cmd or { 'whale-ls' }
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    return nil, 'the option cmd is not a list of strings: set it to { "whale-ls" } or a path'
  end
  local found, tried = compat.find_program(cmd[1])
  if not found then
    local elsewhere = {}
    for _, t in ipairs(tried) do
      if t ~= cmd[1] and t ~= cmd[1] .. '.exe' then
        table.insert(elsewhere, vim.fn.fnamemodify(t, ':~'))
      end
    end
    local details = compat.is_absolute(cmd[1]) and 'the option cmd names it'
      or (
        'looked on PATH' .. (#elsewhere > 0 and (' and at ' .. table.concat(elsewhere, ', ')) or '')
      )
    return nil,
      string.format(
        'cannot find %s: :checkhealth whale says how to install it, then :WhaleStart',
        vim.fn.fnamemodify(cmd[1], ':~')
      ),
      details
  end
  local runs, why = probe(found)
  if not runs then
    return nil,
      string.format(
        '%s does not run (`whale-ls version`: %s): :checkhealth whale says how to reinstall it, then :WhaleStart',
        vim.fn.fnamemodify(found, ':~'),
        why
      )
  end
  return found
end

-- Problems already told to the user (each once, until whale-ls starts).
local told = {}

--- Tell the user problem (a find_server() message) once; :checkhealth
--- whale shows the last one.
function M.report(problem)
  M.problem = problem
  if told[problem] then
    return
  end
  told[problem] = true
  -- After startup, as a warning: an error while init.lua runs reads as
  -- "Error detected while processing init.lua", which it is not.
  vim.schedule(function()
    compat.notify_user(problem, vim.log.levels.WARN)
  end)
end

local function started()
  told = {}
  M.problem = nil
end

--- The nearest folder above path holding one of the root markers, else the
--- current working folder.
---@param path? string a file or folder
---@return string
function M.root_for(path)
  local markers = config.options.root_markers or { '.git' }
  -- Buffers such as whale://tools or term://... have no folder of their own.
  if path and path ~= '' and not path:match('^%a[%w+.-]*://') then
    local dir = compat.realpath(vim.fn.fnamemodify(path, ':p'))
    if vim.fn.isdirectory(dir) == 0 then
      dir = vim.fn.fnamemodify(dir, ':h')
    end
    while dir and compat.is_absolute(dir) do
      for _, marker in ipairs(markers) do
        if vim.loop.fs_stat(compat.join(dir, marker)) then
          return dir
        end
      end
      local parent = vim.fn.fnamemodify(dir, ':h')
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return compat.realpath(vim.fn.getcwd())
end

--- The MCP server entry for a workspace, in the shape mcphub.nvim's
--- servers.json (and most MCP clients) use: `whale-ls mcp --root ROOT`,
--- which attaches to this Neovim's running whale-ls, so edits made by an
--- MCP chat land in the buffers and approvals are asked here.
---@param root? string default: the root of the current buffer
---@return table { mcpServers = { whale = { command, args } } }
function M.mcp_config(root)
  local cmd = compat.server_cmd(config.options.cmd or { 'whale-ls' })
  root = root or M.root_for(vim.api.nvim_buf_get_name(0))
  local args = {}
  for i = 2, #cmd do
    args[#args + 1] = cmd[i]
  end
  vim.list_extend(args, { 'mcp', '--root', root })
  return { mcpServers = { whale = { command = cmd[1], args = args } } }
end

--- Whether whale should attach to bufnr, and the root it belongs to.
---@return string|nil root
function M.buffer_root(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or not vim.api.nvim_buf_is_loaded(bufnr) then
    return nil
  end
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  if type(config.options.filter) == 'function' and not config.options.filter(bufnr) then
    return nil
  end
  local root = M.root_for(name)
  if not compat.is_inside(compat.realpath(name), root) then
    return nil
  end
  return root
end

--- The LSP client configuration (shared by every Neovim version; 0.11's
--- lsp/whale_ls.lua returns it).
---@param root? string
function M.lsp_config(root)
  local o = config.options
  local cfg = {
    name = M.name,
    -- The program as found now (PATH, then where go install puts it; on
    -- Windows whale-ls.exe): libuv, which starts it, does not search as
    -- far, and a GUI Neovim on macOS often has a shorter PATH.
    cmd = compat.server_cmd(vim.deepcopy(o.cmd)),
    cmd_env = o.cmd_env,
    init_options = settings(),
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    flags = { debounce_text_changes = o.debounce_text_changes or 0 },
    on_init = on_init,
    on_attach = on_attach,
    on_exit = on_exit,
  }
  if root then
    cfg.root_dir = root
    cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  else
    -- vim.lsp.enable (0.11+): decide per buffer, and find the program when
    -- a client starts, so that one installed after setup() (build.lua,
    -- go install) is started without a restart. A missing or broken
    -- program is reported once and no client is started.
    cfg.root_dir = function(bufnr, on_dir)
      local r = M.buffer_root(bufnr)
      if not r then
        return
      end
      local _, problem = M.find_server()
      if problem then
        M.report(problem)
        return
      end
      on_dir(r)
    end
    cfg.cmd = function(dispatchers, c)
      local program = compat.server_cmd(vim.deepcopy(config.options.cmd))
      return vim.lsp.rpc.start(program, dispatchers, {
        cwd = c and c.cmd_cwd,
        env = c and c.cmd_env,
        detached = c and c.detached,
      })
    end
  end
  return cfg
end

--- A running whale client for root, if any.
function M.get_client(root)
  root = root or M.root_for(vim.api.nvim_buf_get_name(0))
  for _, c in ipairs(compat.get_clients({ name = M.name })) do
    if not compat.is_stopped(c) and c.config and compat.same_path(c.config.root_dir, root) then
      return c
    end
  end
end

--- Start whale-ls for root (or return the running client).
---@return table|nil client, string|nil err
function M.start(root)
  root = root or M.root_for(vim.api.nvim_buf_get_name(0))
  local existing = M.get_client(root)
  if existing then
    return existing
  end
  local _, problem = M.find_server()
  if problem then
    return nil, problem
  end
  local cfg = M.lsp_config(root)
  local ok, id
  if compat.has('nvim-0.11') then
    -- Start from the merged vim.lsp.config('whale_ls') (user overrides
    -- included), pinned to this root.
    local okc, base = pcall(function()
      return vim.lsp.config[M.name]
    end)
    if okc and type(base) == 'table' then
      cfg = vim.tbl_extend(
        'force',
        base,
        { root_dir = root, workspace_folders = cfg.workspace_folders }
      )
    end
    ok, id = pcall(vim.lsp.start, cfg, { attach = false })
  else
    ok, id = pcall(vim.lsp.start_client, cfg)
  end
  local client = ok and id and vim.lsp.get_client_by_id(id)
  if not client then
    local program = type(cfg.cmd) == 'table' and table.concat(cfg.cmd, ' ') or 'whale-ls'
    local why = not ok and tostring(id) or 'Neovim started no client (see :LspLog)'
    return nil,
      string.format(
        'cannot start %s: %s. :checkhealth whale says more; then run :WhaleStart',
        program,
        why
      )
  end
  started()
  return client
end

--- Call cb(client) once whale-ls for root is initialized (starting it when
--- needed), or cb(nil, err).
function M.with_client(root, cb)
  local client, err = M.start(root)
  if not client then
    cb(nil, err)
    return
  end
  if client.initialized and not waiting[client.id] then
    cb(client)
    return
  end
  local first = waiting[client.id] == nil
  waiting[client.id] = waiting[client.id] or {}
  table.insert(waiting[client.id], cb)
  if first then
    -- Normally on_init flushes the queue; poll as well, in case a user's
    -- configuration replaced on_init.
    local id, tries = client.id, 0
    local function poll()
      if not waiting[id] then
        return
      end
      local c = vim.lsp.get_client_by_id(id)
      if c and c.initialized then
        local cbs = waiting[id]
        waiting[id] = nil
        for _, f in ipairs(cbs) do
          pcall(f, c)
        end
      elseif not c or compat.is_stopped(c) or tries > 1200 then
        fail_waiting(id, 'whale-ls did not finish initializing')
      else
        tries = tries + 1
        vim.defer_fn(poll, 50)
      end
    end
    vim.defer_fn(poll, 50)
  end
end

--- Attach whale-ls to bufnr when it is a normal buffer in a workspace.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = M.buffer_root(bufnr)
  if not root then
    return false
  end
  local client, err = M.start(root)
  if not client then
    M.report(err)
    return false
  end
  return vim.lsp.buf_attach_client(bufnr, client.id)
end

local function attach_all(root)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local r = M.buffer_root(b)
    if r and (not root or compat.same_path(r, root)) then
      M.attach(b)
    end
  end
end

--- :WhaleStart: start whale-ls for the current workspace and attach it to
--- that workspace's buffers; the chat adapters add the tools they lack when
--- it is ready (a program installed after Neovim started included).
function M.cmd_start()
  local root = M.root_for(vim.api.nvim_buf_get_name(0))
  local running = M.get_client(root)
  local client, err = M.start(root)
  if not client then
    M.problem = err
    compat.notify_user(err, vim.log.levels.ERROR)
    return nil, err
  end
  if config.did_setup and config.options.autostart then
    attach_all(root)
  end
  if running then
    compat.notify_user('whale-ls already runs for ' .. root)
  else
    compat.notify_user('whale-ls started for ' .. root)
  end
  return client
end

--- Configure the plugin. On 0.11+ (unless use_lsp_enable = false) this
--- registers the whale_ls configuration and enables it; before 0.11 it
--- attaches whale-ls to normal buffers with autocommands.
---@param opts? table see :help whale-options
function M.setup(opts)
  config.set(opts)
  local o = config.options
  augroup = vim.api.nvim_create_augroup('whale', { clear = true })
  -- A missing or broken program: one message now (not one per buffer).
  local _, problem = M.find_server()
  if problem then
    M.report(problem)
  end
  local use_enable = compat.has('nvim-0.11') and o.use_lsp_enable ~= false and vim.lsp.config ~= nil
  if use_enable then
    local cfg = M.lsp_config()
    -- vim.lsp.config() merges into what an earlier setup() registered: the
    -- settings are this call's alone, so a setting left out now is gone
    -- (other fields a user set with vim.lsp.config stay).
    local stored = type(vim.lsp.config._configs) == 'table' and vim.lsp.config._configs[M.name]
    if type(stored) == 'table' then
      stored.init_options = nil
    end
    vim.lsp.config(M.name, cfg)
    if o.autostart then
      vim.lsp.enable(M.name)
    end
    return
  end
  if o.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
      group = augroup,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    attach_all()
  end
end

local function wrap_input(input)
  if input == nil or (type(input) == 'table' and vim.tbl_isempty(input)) then
    return vim.empty_dict()
  end
  return input
end

--- Run a whale tool. callback(err, envelope): err is a string when the call
--- could not be made (no server, protocol error); otherwise envelope is
--- {ok, code, text, data, repairs, truncated}. Without a callback the call
--- waits (up to opts.timeout ms, default 120000) and returns envelope, err.
---@param name string tool name, e.g. 'read_file' (a 'whale.' prefix is accepted)
---@param input table the tool's input
---@param callback? fun(err: string|nil, envelope: table|nil)
---@param opts? {root?: string, timeout?: integer}
function M.call(name, input, callback, opts)
  opts = opts or {}
  name = name:gsub('^whale%.', '')
  local params = { command = 'whale.' .. name, arguments = { wrap_input(input) } }
  if not callback then
    local result, err, done = nil, nil, false
    M.call(name, input, function(e, env)
      result, err, done = env, e, true
    end, opts)
    local timeout = opts.timeout or 120000
    if not vim.wait(timeout, function()
      return done
    end, 10) then
      return nil, string.format('whale.%s did not answer within %d ms', name, timeout)
    end
    return result, err
  end
  M.with_client(opts.root, function(client, err)
    if not client then
      callback(err)
      return
    end
    compat.request(client, 'workspace/executeCommand', params, function(rpc_err, result)
      if rpc_err then
        callback(rpc_err.message or vim.inspect(rpc_err))
      else
        callback(nil, result)
      end
    end)
  end)
end

local function catalog_from_binary()
  local cmd = vim.deepcopy(config.options.cmd)
  local program, problem = M.find_server()
  if not program then
    return nil, problem
  end
  cmd[1] = program
  table.insert(cmd, 'tools')
  table.insert(cmd, '--json')
  -- An argv list: no shell, so no quoting differences between sh and cmd.exe.
  local out = vim.fn.system(cmd)
  if vim.v.shell_error ~= 0 then
    return nil, 'whale-ls tools failed: ' .. out
  end
  local ok, decoded = pcall(vim.json.decode, out)
  if not ok or type(decoded) ~= 'table' then
    return nil, 'whale-ls tools printed no JSON'
  end
  return decoded.tools or decoded
end

--- The tool catalog [{name, description, inputSchema, readOnly, group}].
--- With a callback it asks the server (whale/tools) and calls
--- callback(err, tools). Without one it returns tools, err at once: from the
--- running server when there is one, else from `whale-ls tools --json`.
function M.tools(callback, opts)
  opts = opts or {}
  if callback then
    M.with_client(opts.root, function(client, err)
      if not client then
        callback(err)
        return
      end
      compat.request(client, protocol.tools, vim.empty_dict(), function(rpc_err, result)
        if rpc_err then
          callback(rpc_err.message or vim.inspect(rpc_err))
        else
          callback(nil, result and result.tools or {})
        end
      end)
    end)
    return
  end
  local client = M.get_client(opts.root)
  if client and client.initialized then
    local res, err =
      compat.request_sync(client, protocol.tools, vim.empty_dict(), opts.timeout or 10000)
    if res and res.result then
      return res.result.tools or {}
    end
    if res and res.err then
      err = res.err.message
    end
    return nil, tostring(err)
  end
  return catalog_from_binary()
end

--- What a tool call would do, from whale-ls (whale/preview): {readOnly,
--- whaleAsks, title, detail (markdown, a ```diff fence for an edit, computed
--- by the plan the edit would commit), files?, error?}. nil, reason when
--- there is none: a server without whale/preview (-32601), no server
--- running or ready within opts.timeout ms (default 5000). Waits: for a
--- chat plugin's approval prompt, which asks synchronously.
---@param name string tool name without prefix
---@param input table
---@return table|nil preview, string|nil reason
function M.preview(name, input, opts)
  opts = opts or {}
  local timeout = opts.timeout or 5000
  local client = M.get_client(opts.root)
  if not client then
    client = M.start(opts.root)
  end
  if not client then
    return nil, 'whale-ls is not running'
  end
  if
    not client.initialized
    and not vim.wait(timeout, function()
      return client.initialized == true
    end, 20)
  then
    return nil, 'whale-ls is not ready'
  end
  local res, err = compat.request_sync(
    client,
    protocol.preview,
    { tool = (name:gsub('^whale%.', '')), input = wrap_input(input) },
    timeout
  )
  if not res then
    return nil, tostring(err)
  end
  if res.err then
    if res.err.code == -32601 then
      return nil, 'this whale-ls has no whale/preview'
    end
    return nil, res.err.message or vim.inspect(res.err)
  end
  if type(res.result) ~= 'table' then
    return nil, 'whale/preview answered nothing'
  end
  return res.result
end

--- Stop every whale client.
function M.stop()
  for _, c in ipairs(compat.get_clients({ name = M.name })) do
    compat.stop(c)
  end
end

--- Terminal tasks known to this Neovim.
function M.terminals()
  return require('whale.terminals').list()
end

--------------------------------------------------------------------------
-- Commands (created by plugin/whale.lua).

local function scratch(lines, name, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  if ft then
    vim.api.nvim_buf_set_option(buf, 'filetype', ft)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.cmd('botright 15split')
  vim.api.nvim_win_set_buf(0, buf)
  return buf
end

function M.cmd_tools()
  local tools, err = M.tools()
  if not tools then
    compat.notify_user(tostring(err), vim.log.levels.ERROR)
    return
  end
  local lines = {}
  for _, t in ipairs(tools) do
    local first = vim.split(t.description or '', '\n', { plain = true })[1] or ''
    table.insert(
      lines,
      string.format('%-14s %-7s %s  %s', t.name, t.group or '', t.readOnly and 'ro' or 'rw', first)
    )
  end
  return scratch(lines, 'whale://tools', nil)
end

function M.cmd_call(args)
  local name, json = args:match('^%s*(%S+)%s*(.*)$')
  if not name then
    compat.notify_user('usage: :WhaleCall {tool} {json}', vim.log.levels.ERROR)
    return
  end
  local input = vim.empty_dict()
  if json and json ~= '' then
    local ok, decoded = pcall(vim.json.decode, json)
    if not ok or type(decoded) ~= 'table' then
      compat.notify_user(
        'the input is not a JSON object: ' .. tostring(decoded),
        vim.log.levels.ERROR
      )
      return
    end
    input = decoded
  end
  M.call(name, input, function(err, env)
    vim.schedule(function()
      if err then
        compat.notify_user(err, vim.log.levels.ERROR)
        return
      end
      local lines = {
        string.format(
          '# whale.%s → %s%s',
          name,
          tostring(env.code),
          env.truncated and ' (truncated)' or ''
        ),
      }
      if type(env.repairs) == 'table' and #env.repairs > 0 then
        table.insert(lines, 'repairs: ' .. table.concat(env.repairs, ', '))
      end
      table.insert(lines, '')
      vim.list_extend(lines, compat.lines(env.text))
      -- A task that waits for input may have taken the cursor into its
      -- terminal meanwhile: the result then opens beside it, and the
      -- cursor stays where the answer is typed.
      local answering = vim.api.nvim_get_current_win()
      local ok, id =
        pcall(vim.api.nvim_buf_get_var, vim.api.nvim_win_get_buf(answering), 'whale_task')
      local task = ok and require('whale.terminals').get(id) or nil
      scratch(lines, 'whale://call/' .. name .. '/' .. tostring(vim.loop.hrtime()), 'markdown')
      if task and task.running and vim.api.nvim_win_is_valid(answering) then
        vim.api.nvim_set_current_win(answering)
        vim.cmd('startinsert')
      end
    end)
  end)
end

function M.complete_tools(arglead, cmdline)
  if cmdline:match('^%S+%s+%S+%s') then
    return {}
  end
  local tools = M.tools() or {}
  local out = {}
  for _, t in ipairs(tools) do
    if t.name:sub(1, #arglead) == arglead then
      table.insert(out, t.name)
    end
  end
  return out
end

--- :WhaleTerminals: pick a task and open its terminal.
function M.cmd_terminals()
  local terminals = require('whale.terminals')
  local items = terminals.list()
  if #items == 0 then
    compat.notify_user('no terminal tasks yet')
    return
  end
  vim.ui.select(items, {
    prompt = 'whale terminals',
    kind = 'whale.terminals',
    format_item = function(t)
      local state = t.running and 'running'
        or (t.signal and ('stopped by ' .. t.signal) or ('exit ' .. tostring(t.exit_code)))
      return string.format('%s  %-14s %s', t.id, state, t.command ~= '' and t.command or t.title)
    end,
  }, function(choice)
    if choice and vim.api.nvim_buf_is_valid(choice.buf) then
      terminals.show(choice, true)
    end
  end)
end

function M.cmd_plan()
  require('whale.plan').open()
end

function M.cmd_changes()
  return require('whale.changes').open()
end

function M.cmd_review()
  require('whale.review').cmd_review()
end

function M.cmd_revert(id, bang)
  require('whale.changes').cmd_revert(id, bang)
end

return M
