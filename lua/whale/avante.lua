-- avante.nvim: every whale tool as an entry of avante's `custom_tools`, in
-- place of avante's own edit and shell tools:
--
--   require('avante').setup(require('whale.avante').setup_opts({
--     -- your avante options
--   }))
--
-- setup_opts adds the whale tools to custom_tools and avante's own edit
-- and shell tools (M.replaced) to disabled_tools, so the model edits and
-- runs commands only through whale (versioned edits, the journal, review,
-- the exec boundary). `custom_tools = function() return
-- require('whale.avante').tools() end` alone adds whale's tools beside
-- avante's.
--
-- Each entry has name, description, param (fields from the tool's JSON
-- schema), returns and func. func runs require('whale').call and reports
-- through on_complete(result, err); both avante signatures are supported:
-- func(input, { on_log, on_complete, ... }) and the older
-- func(params, on_log, on_complete).
local M = {}

M.defaults = {
  -- Prefix of the avante tool names (avante has its own read_file, bash, ...).
  prefix = 'whale_',
  -- Only these whale tools (names without prefix); nil for all.
  only = nil,
  -- Which of avante's own tools setup_opts disables: 'edit_shell' (the
  -- tools that write files or run programs, M.replaced.edit_shell), 'all'
  -- (those and the ones whale has an equivalent of for reading, searching,
  -- the web and to-dos, M.replaced.all) or 'none'.
  replace = 'edit_shell',
}

--- avante's built-in tools (avante.nvim a933431) that whale's tools take
--- the place of. Tools whale has no counterpart of (dispatch_agent, think,
--- attempt_completion, git_diff, rag_search, ...) are kept.
M.replaced = {
  edit_shell = {
    'str_replace', -- whale_edit
    'replace_in_file', -- whale_edit
    'edit_file', -- whale_edit
    'insert', -- whale_edit
    'create', -- whale_write
    'write_to_file', -- whale_write
    'write_global_file', -- whale_write
    'undo_edit', -- whale_changes_revert
    'move_path', -- whale_shell_run (mv), journaled
    'copy_path',
    'delete_path',
    'create_dir',
    'bash', -- whale_shell_run
    'run_python', -- whale_shell_run (python3 ...)
    'git_commit', -- whale_shell_run (git commit)
  },
  read = {
    'view', -- whale_read_file
    'read_global_file', -- whale_read_file
    'ls', -- whale_list_dir
    'glob', -- whale_search_files
    'grep', -- whale_grep
    'get_diagnostics', -- whale_problems
    'web_search', -- whale_web_search
    'fetch', -- whale_web_fetch
    'read_todos', -- whale_todo_list
    'write_todos', -- whale_todo_add / todo_update
  },
}

--- The avante tool names setup_opts disables for replace ('edit_shell',
--- 'all' or 'none').
function M.disabled_names(replace)
  if replace == 'none' or replace == false then
    return {}
  end
  local out = vim.deepcopy(M.replaced.edit_shell)
  if replace == 'all' then
    vim.list_extend(out, M.replaced.read)
  end
  return out
end

-- What the last tools() call gave avante, for :checkhealth whale.
M.last_count = 0

local json_types = {
  string = 'string',
  integer = 'integer',
  number = 'number',
  boolean = 'boolean',
  object = 'object',
  array = 'array',
}

--- avante param fields from a JSON schema object.
local function fields(schema)
  local out = {}
  local props = type(schema) == 'table' and schema.properties or nil
  if type(props) ~= 'table' then
    return out
  end
  local required = {}
  for _, r in ipairs(schema.required or {}) do
    required[r] = true
  end
  local names = vim.tbl_keys(props)
  table.sort(names, function(a, b)
    if required[a] ~= required[b] then
      return required[a] == true
    end
    return a < b
  end)
  for _, name in ipairs(names) do
    local p = props[name]
    local field = {
      name = name,
      description = p.description or name,
      type = json_types[p.type] or 'string',
      optional = not required[name],
    }
    if type(p.enum) == 'table' then
      field.choices = p.enum
    end
    if field.type == 'object' and type(p.properties) == 'table' then
      field.fields = fields(p)
    elseif field.type == 'array' and type(p.items) == 'table' then
      local item = {
        name = 'item',
        description = p.items.description or 'item',
        type = json_types[p.items.type] or 'string',
      }
      if item.type == 'object' then
        item.fields = fields(p.items)
      end
      field.items = item
    end
    table.insert(out, field)
  end
  return out
end
M.fields = fields

--- The avante custom tool for one whale tool.
function M.make_tool(t, opts)
  opts = vim.tbl_extend('force', M.defaults, opts or {})
  return {
    name = opts.prefix .. t.name,
    description = t.description,
    param = { type = 'table', fields = fields(t.inputSchema) },
    returns = {
      {
        name = 'result',
        description = 'What whale-ls answered (text for the model)',
        type = 'string',
      },
      {
        name = 'error',
        description = 'Why the tool failed, and what to do next',
        type = 'string',
        optional = true,
      },
    },
    func = function(input, a2, a3)
      local on_complete, on_log
      if type(a2) == 'table' then
        on_complete, on_log = a2.on_complete, a2.on_log
      else
        on_log, on_complete = a2, a3
      end
      input = type(input) == 'table' and input or {}
      if type(on_log) == 'function' then
        pcall(on_log, 'whale ' .. t.name)
      end
      local function result(err, env)
        if err then
          return nil, 'whale-ls: ' .. err
        end
        if env.ok then
          return tostring(env.text or ''), nil
        end
        return nil, string.format('[%s] %s', tostring(env.code), tostring(env.text or ''))
      end
      if type(on_complete) ~= 'function' then
        local env, err = require('whale').call(t.name, input)
        return result(env and nil or err, env)
      end
      require('whale').call(t.name, input, function(err, env)
        vim.schedule(function()
          on_complete(result(err, env))
        end)
      end)
    end,
  }
end

--- The list for avante's custom_tools.
---@param opts? table see M.defaults
---@return table[]
function M.tools(opts)
  opts = vim.tbl_extend('force', M.defaults, opts or {})
  M.prefix = opts.prefix
  local catalog, err = require('whale').tools()
  if not catalog then
    -- Most often whale-ls is not installed yet: the one message setup()
    -- gives too (once); avante asks again on its next request.
    M.last_count = 0
    M.error = err
    require('whale').report(tostring(err))
    return {}
  end
  local only
  if type(opts.only) == 'table' then
    only = {}
    for _, n in ipairs(opts.only) do
      only[n] = true
    end
  end
  local out = {}
  for _, t in ipairs(catalog) do
    if not only or only[t.name] then
      table.insert(out, M.make_tool(t, opts))
    end
  end
  M.last_count = #out
  M.error = nil
  return out
end

--- avante's setup options with whale's tools added: custom_tools gains the
--- whale tools (after any of avante_opts.custom_tools), disabled_tools the
--- avante tools whale replaces (opts.replace).
---@param avante_opts? table your options for require('avante').setup
---@param opts? table see M.defaults
---@return table
function M.setup_opts(avante_opts, opts)
  opts = vim.tbl_extend('force', M.defaults, opts or {})
  local out = vim.deepcopy(avante_opts or {})
  local theirs = out.custom_tools
  out.custom_tools = function()
    local list = {}
    if type(theirs) == 'function' then
      list = vim.deepcopy(theirs() or {})
    elseif type(theirs) == 'table' then
      list = vim.deepcopy(theirs)
    end
    return vim.list_extend(list, M.tools(opts))
  end
  local disabled = type(out.disabled_tools) == 'table' and out.disabled_tools or {}
  for _, name in ipairs(M.disabled_names(opts.replace)) do
    if not vim.tbl_contains(disabled, name) then
      table.insert(disabled, name)
    end
  end
  out.disabled_tools = disabled
  M.configured = true
  return out
end

--- For :checkhealth whale, read from avante's own configuration: {tools =
--- the whale tools its custom_tools gives, disabled = the avante tools
--- whale replaces that its disabled_tools holds, error}.
function M.state()
  local disabled = {}
  local ok, cfg = pcall(require, 'avante.config')
  local count = 0
  local custom = ok and type(cfg) == 'table' and cfg.custom_tools or nil
  if type(custom) == 'function' then
    local okc, list = pcall(custom)
    custom = okc and list or nil
  end
  for _, t in ipairs(type(custom) == 'table' and custom or {}) do
    if
      type(t) == 'table'
      and type(t.name) == 'string'
      and vim.startswith(t.name, M.prefix or M.defaults.prefix)
    then
      count = count + 1
    end
  end
  M.last_count = count
  local list = ok and type(cfg) == 'table' and cfg.disabled_tools or nil
  if type(list) == 'table' then
    for _, name in ipairs(M.disabled_names('all')) do
      if vim.tbl_contains(list, name) then
        table.insert(disabled, name)
      end
    end
  end
  return { tools = M.last_count, disabled = disabled, error = M.error }
end

return M
