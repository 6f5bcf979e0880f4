-- Test stand-in for codecompanion.nvim (which needs Neovim 0.11): the
-- extension loader and the tool-calling contract, written after
-- CodeCompanion's lua/codecompanion/_extensions/init.lua and its tool docs.
--   * setup({extensions = {name = {enabled?, callback?, opts?}}}) resolves
--     each extension from callback (module name, function or table) or from
--     codecompanion._extensions.<name>, requires a setup function, calls
--     setup(opts) and keeps its exports under extensions.<name>;
--   * run_tool(name, args, api) runs a registered tool the way the chat does:
--     api 19: cmds[i](self, args, {input, output_cb}), output.success(self,
--     stdout, {tools, cmd}), and the entry resolved as v19 does (path, a
--     function callback, extends or an inline table: a table callback is
--     refused); api 18: cmds[i](self, args, input, output_handler),
--     output.success(self, tools, cmd, stdout), a table callback accepted.
--   A stand-in for quick unit tests only: tests/test_codecompanion.lua
--   runs the real CodeCompanion.
local config = require('codecompanion.config')

local M = { extensions = {} }

local function resolve(name, callback)
  local ext
  if callback then
    if type(callback) == 'string' then
      ext = require(callback)
    elseif type(callback) == 'function' then
      ext = callback()
    elseif type(callback) == 'table' then
      ext = callback
    else
      error('Codecompanion extension ' .. name .. ' callback is not a string, table or function')
    end
  else
    ext = require('codecompanion._extensions.' .. name)
  end
  if type(ext) ~= 'table' then
    error('Codecompanion extension ' .. name .. ' is not a table')
  end
  if type(ext.setup) ~= 'function' then
    error('Codecompanion extension ' .. name .. ' does not have a setup function')
  end
  return ext
end

function M.setup(opts)
  opts = opts or {}
  config.extensions = opts.extensions or {}
  for name, schema in pairs(config.extensions) do
    if schema.enabled ~= false then
      local ext = resolve(name, schema.callback)
      ext.setup(schema.opts or {})
      if ext.exports then
        M.extensions[name] = ext.exports
      end
    end
  end
end

--- A chat buffer stand-in recording tool output.
function M.new_chat()
  local chat = { outputs = {} }
  function chat:add_tool_output(tool, for_llm, for_user)
    table.insert(self.outputs, { tool = tool.name, for_llm = for_llm, for_user = for_user })
  end
  return chat
end

--- Run a tool as the chat does; on_done(status, data) after its output.
function M.run_tool(name, args, api, chat, on_done)
  local entry = config.interactions.chat.tools[name]
  assert(entry, 'no tool ' .. name)
  local tool = entry.callback
  assert(api < 19 or type(tool) ~= 'table', 'tool ' .. name .. ': v19 cannot run a table callback')
  if type(tool) == 'function' then
    tool = tool()
  elseif type(tool) == 'string' then
    tool = require(tool)
  end
  assert(type(tool) == 'table' and type(tool.cmds) == 'table', 'tool ' .. name .. ' has no cmds')
  assert(
    tool.schema and tool.schema['function'] and tool.schema['function'].name == name,
    'tool ' .. name .. ' schema name'
  )
  tool = vim.deepcopy(tool)
  tool.args = args
  local tools = { chat = chat }
  local function handle(result)
    local out = tool.output or {}
    if result.status == 'success' then
      if api >= 19 then
        out.success(tool, { result.data }, { tools = tools, cmd = tool.cmds[1] })
      else
        out.success(tool, tools, tool.cmds[1], { result.data })
      end
    else
      if api >= 19 then
        out.error(tool, { result.data }, { tools = tools, cmd = tool.cmds[1] })
      else
        out.error(tool, tools, tool.cmds[1], { result.data })
      end
    end
    on_done(result.status, result.data)
  end
  local ret
  if api >= 19 then
    ret = tool.cmds[1](tool, args, { input = nil, output_cb = handle })
  else
    ret = tool.cmds[1](tool, args, nil, handle)
  end
  if ret then
    handle(ret)
  end
end

return M
