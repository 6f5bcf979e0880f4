-- avante.nvim: every whale tool as an entry of avante's `custom_tools`.
--
--   require('avante').setup({
--     custom_tools = function()
--       return require('whale.avante').tools()
--     end,
--   })
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
}

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
  local catalog, err = require('whale').tools()
  if not catalog then
    vim.notify('whale: avante tools not available: ' .. tostring(err), vim.log.levels.WARN)
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
  return out
end

return M
