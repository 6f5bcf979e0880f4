-- Test stand-in for avante.nvim (which needs Neovim 0.10+): how it takes
-- `custom_tools` (a list, or a function returning one) and checks and calls
-- each entry, after avante's AvanteLLMTool contract: name, description,
-- param = {type = 'table', fields = {{name, description, type, optional?}}},
-- returns = {{name, description, type, optional?}}, and
-- func(input, {on_log, on_complete, session_ctx}) (current) or
-- func(params, on_log, on_complete) (older releases), answering through
-- on_complete(result, err) or by returning result, err.
-- A stand-in for quick unit tests only: tests/test_avante.lua runs the real
-- avante.
local M = { tools = {} }

local field_types = {
  string = true,
  integer = true,
  number = true,
  boolean = true,
  object = true,
  array = true,
  table = true,
}

local function check_field(tool, f)
  assert(type(f.name) == 'string' and f.name ~= '', tool .. ': a field has no name')
  assert(type(f.description) == 'string', tool .. ': field ' .. f.name .. ' has no description')
  assert(field_types[f.type], tool .. ': field ' .. f.name .. ' has type ' .. tostring(f.type))
  if f.type == 'array' then
    assert(type(f.items) == 'table', tool .. ': array field ' .. f.name .. ' has no items')
  end
end

function M.setup(opts)
  local list = opts.custom_tools
  if type(list) == 'function' then
    list = list()
  end
  M.tools = {}
  for _, t in ipairs(list or {}) do
    assert(type(t.name) == 'string' and t.name ~= '', 'custom tool without a name')
    assert(type(t.description) == 'string', t.name .. ': no description')
    assert(
      type(t.param) == 'table' and t.param.type == 'table' and type(t.param.fields) == 'table',
      t.name .. ': bad param'
    )
    for _, f in ipairs(t.param.fields) do
      check_field(t.name, f)
    end
    assert(type(t.returns) == 'table' and #t.returns > 0, t.name .. ': no returns')
    assert(type(t.func) == 'function', t.name .. ': no func')
    M.tools[t.name] = t
  end
end

--- Call a tool as avante does; on_done(result, err).
function M.run(name, input, legacy, on_done)
  local t = assert(M.tools[name], 'no custom tool ' .. name)
  local logs = {}
  local function on_log(msg)
    table.insert(logs, msg)
  end
  local result, err
  if legacy then
    result, err = t.func(input, on_log, on_done)
  else
    result, err = t.func(input, { on_log = on_log, on_complete = on_done, session_ctx = {} })
  end
  if result ~= nil or err ~= nil then
    on_done(result, err)
  end
  return logs
end

return M
