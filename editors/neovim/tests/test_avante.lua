-- The real avante.nvim (not the stand-in): whale's tools set up as the
-- README says, then avante's own code builds the request a model receives
-- and runs the model's tool calls.
--
-- avante's own turn (:AvanteAsk, the sidebar's submit) is
-- Sidebar:get_generate_prompts_options (tools = avante.llm_tools.get_tools)
-- → avante.llm.generate_prompts (from calculate_tokens, then from _stream),
-- which stops at avante.path's get_templates_dir without avante's native
-- avante_templates library: "Make sure to build avante (missing
-- avante_templates)". That library renders the system prompt; the rest of
-- _stream is Lua. So each turn here replaces only that step, with a fixed
-- system prompt, and runs the rest as _stream does: avante.llm.curl with
-- the openai provider against the scripted model (tests/scripted_model.py;
-- the provider's parse_curl_args/transform_tool build the body), avante's
-- stream parser turns the answer into history messages,
-- avante.history.get_pending_tools finds the tool call and
-- avante.llm_tools.process_tool_use runs it; the result goes back in the
-- next request as avante's tool_result message.
--
-- Needs Neovim 0.11 and, in WHALE_NVIM_PLUGINS, extracted avante.nvim-*,
-- nui.nvim-* and plenary.nvim-* folders (.ci/run extracts them from
-- ../shared/testbed).
local H = require('harness')
local scripted = require('scripted')

local plugins = vim.env.WHALE_NVIM_PLUGINS or ''
local function plugin(name)
  return vim.fn.glob(plugins .. '/' .. name .. '-*', false, true)[1]
end

local missing
if vim.fn.has('nvim-0.11') == 0 then
  missing = 'Neovim 0.11 (set WHALE_NVIM_011 to its bin/nvim)'
elseif plugins == '' then
  missing =
    'avante, nui and plenary (set WHALE_NVIM_PLUGINS to a folder of extracted avante.nvim-*, nui.nvim-* and plenary.nvim-* folders)'
else
  for _, name in ipairs({ 'avante.nvim', 'nui.nvim', 'plenary.nvim' }) do
    if not plugin(name) then
      missing = name .. ' (extract ' .. name .. '-* into WHALE_NVIM_PLUGINS)'
      break
    end
  end
  missing = missing or scripted.missing()
end
if missing then
  local msg = 'the real avante test needs ' .. missing
  if vim.env.CI == 'true' and vim.fn.has('nvim-0.11') == 1 then
    return { {
      'avante: ' .. msg,
      function()
        H.fail(msg)
      end,
    } }
  end
  H.log('SKIP test_avante: ' .. msg)
  return {}
end

local avante_dir = plugin('avante.nvim')
local version = vim.fn.fnamemodify(avante_dir, ':t'):gsub('^avante%.nvim%-', '')

local model

--- One avante turn as avante.llm._stream runs it after generate_prompts:
--- send messages with tools, collect the history messages avante makes of
--- the answer, and return them once avante's stream handler stops.
local function turn(tools, messages)
  local Providers = require('avante.providers')
  local added, order, stopped = {}, {}, nil
  require('avante.llm').curl({
    provider = Providers[require('avante.config').provider],
    prompt_opts = { system_prompt = 'You are a test.', messages = messages, tools = tools },
    handler_opts = {
      on_start = function() end,
      on_chunk = function() end,
      on_messages_add = function(msgs)
        for _, m in ipairs(msgs) do
          if not added[m.uuid] then
            table.insert(order, m.uuid)
          end
          added[m.uuid] = m
        end
      end,
      on_state_change = function() end,
      on_stop = function(opts)
        stopped = opts
      end,
    },
  })
  H.wait_loop(
    function()
      return stopped
    end,
    "avante's stream handler to stop",
    nil,
    function()
      return vim.inspect(model.requests())
    end
  )
  H.ok(stopped.reason ~= 'error', 'avante stopped with ' .. vim.inspect(stopped))
  local history = {}
  for _, id in ipairs(order) do
    table.insert(history, added[id])
  end
  return stopped, history
end

--- Run the model's pending tool call through avante's dispatcher, as
--- _stream's on_stop does; returns the tool use, result and error.
local function dispatch(tools, history)
  local pending = require('avante.history').get_pending_tools(history)
  H.eq(#pending, 1, 'tool calls avante found in the answer')
  local use = pending[1]
  local result, err, done
  local r, e = require('avante.llm_tools').process_tool_use(tools, use, {
    session_ctx = {},
    on_log = function() end,
    on_complete = function(res, er)
      result, err, done = res, er, true
    end,
    tool_use_id = use.id,
  })
  if r ~= nil or e ~= nil then
    result, err, done = r, e, true
  end
  H.wait_loop(function()
    return done
  end, 'avante to finish ' .. use.name)
  return use, result, err
end

--- The messages avante sends for a user question, the model's tool call
--- and avante's tool_result (as generate_prompts lists history messages).
local function follow_up(question, history, use, result, err)
  local Message = require('avante.history.message')
  local messages = { question }
  for _, m in ipairs(history) do
    table.insert(messages, m.message)
  end
  local reply = Message:new('user', {
    type = 'tool_result',
    tool_use_id = use.id,
    content = err ~= nil and err or result,
    is_error = err ~= nil,
  })
  table.insert(messages, reply.message)
  return messages
end

--- What a schema says about the values it accepts: types, enums,
--- properties, items and required names (descriptions left out).
local function shape(schema)
  if type(schema) ~= 'table' then
    return nil
  end
  local out = { type = schema.type or 'string', enum = schema.enum }
  if type(schema.properties) == 'table' and next(schema.properties) then
    out.properties = {}
    for name, p in pairs(schema.properties) do
      out.properties[name] = shape(p)
    end
  end
  out.items = shape(schema.items)
  if type(schema.required) == 'table' and #schema.required > 0 then
    out.required = vim.deepcopy(schema.required)
    table.sort(out.required)
  end
  return out
end

local tools

return {
  {
    'avante '
      .. version
      .. ": get_tools and the openai provider offer whale's tools with their schemas and none of avante's own edit and shell tools; process_tool_use runs whale_read_file through whale-ls",
    function()
      H.workspace({ ['notes.txt'] = 'whale real avante\nsecond line\n' })
      H.setup()
      for _, name in ipairs({ 'plenary.nvim', 'nui.nvim' }) do
        vim.opt.runtimepath:append(plugin(name))
      end
      vim.opt.runtimepath:append(avante_dir)
      model = scripted.start(
        { { tool = 'whale_read_file', arguments = { file_path = 'notes.txt' } } },
        'It says hello.'
      )
      vim.env.SCRIPTED_API_KEY = 'none'
      -- As the README says (setup_opts), with a provider pointed at the
      -- scripted model.
      require('avante').setup(require('whale.avante').setup_opts({
        provider = 'openai',
        providers = {
          openai = {
            endpoint = model.url .. '/v1',
            model = 'scripted',
            api_key_name = 'SCRIPTED_API_KEY',
            timeout = 30000,
          },
        },
      }))
      -- The whale client starts with the first buffer of the workspace.
      vim.cmd('edit notes.txt')
      H.client_for(vim.api.nvim_get_current_buf())

      local question = { role = 'user', content = 'What does notes.txt say?' }
      tools = require('avante.llm_tools').get_tools(question.content, {})
      local stopped, history = turn(tools, { question })
      H.eq(stopped.reason, 'tool_use', 'why avante stopped')

      local reqs = model.requests()
      H.eq(#reqs, 1, 'requests')
      local offered = scripted.offered(reqs[1])
      local catalog = assert(require('whale').tools())
      H.ok(#catalog >= 10, 'catalog size ' .. #catalog)
      for _, t in ipairs(catalog) do
        local fn = offered['whale_' .. t.name]
        H.ok(
          fn,
          'whale_' .. t.name .. ' offered; offered: ' .. table.concat(vim.tbl_keys(offered), ' ')
        )
        H.eq(fn.description, t.description, 'description of whale_' .. t.name)
        H.eq(shape(fn.parameters), shape(t.inputSchema), 'parameter schema of whale_' .. t.name)
      end
      -- avante's own tools that write files or run programs are not
      -- offered; each of the ones its registry has is named in the list.
      local avante_names = require('avante.llm_tools').get_tool_names()
      for _, name in ipairs({
        'bash',
        'str_replace',
        'write_to_file',
        'edit_file',
        'insert',
        'undo_edit',
        'run_python',
        'git_commit',
        'move_path',
        'copy_path',
        'delete_path',
        'create_dir',
        'write_global_file',
      }) do
        H.ok(vim.tbl_contains(avante_names, name), "avante's registry has " .. name)
        H.ok(
          vim.tbl_contains(require('whale.avante').replaced.edit_shell, name),
          name .. ' is replaced'
        )
        H.ok(not offered[name], "avante's " .. name .. ' is not offered')
      end
      for name in pairs(offered) do
        H.ok(
          name:match('^whale_')
            or not vim.tbl_contains(require('whale.avante').replaced.edit_shell, name),
          name .. ' offered'
        )
      end
      -- Tools whale has no counterpart of stay.
      H.ok(
        offered.think or offered.attempt_completion,
        "avante's think/attempt_completion stay: " .. table.concat(vim.tbl_keys(offered), ' ')
      )
      -- :checkhealth whale tells it.
      vim.cmd('silent checkhealth whale')
      local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      vim.cmd('tabclose')
      H.contains(
        report,
        'avante: ' .. #catalog .. " whale tools in custom_tools; avante's own str_replace",
        'health'
      )

      local use, result, err = dispatch(tools, history)
      H.eq(use.name, 'whale_read_file', 'the tool avante runs')
      H.eq(err, nil, 'error of whale_read_file')
      H.contains(result, 'whale real avante', 'the result of whale_read_file')

      turn(tools, follow_up(question, history, use, result, err))
      reqs = model.requests()
      local results = scripted.tool_messages(reqs[#reqs])
      H.eq(#results, 1, 'tool results in the last request')
      H.eq(results[1].tool_call_id, 'call_1', 'tool_call_id')
      H.contains(results[1].content, 'whale real avante', 'the read_file result the model receives')
    end,
  },
  {
    'avante '
      .. version
      .. ': process_tool_use runs whale_edit through whale-ls on an open, modified buffer; the buffer and the saved file hold the edit',
    function()
      local buf, path, edit = scripted.modified_todo()
      model.play({
        edit,
      }, 'Edited.')

      local question = { role = 'user', content = 'Capitalize alpha in todo.txt.' }
      local stopped, history = turn(tools, { question })
      H.eq(stopped.reason, 'tool_use', 'why avante stopped')
      local use, result, err = dispatch(tools, history)
      H.eq(use.name, 'whale_edit', 'the tool avante runs')
      H.eq(err, nil, 'error of whale_edit')
      H.eq(
        vim.api.nvim_buf_get_lines(buf, 0, -1, false),
        { 'unsaved first line', 'ALPHA', 'beta', 'gamma' },
        'the buffer holds the edit and the unsaved line'
      )
      H.wait_loop(function()
        return not vim.bo[buf].modified
      end, 'whale to save the edited buffer')
      H.eq(H.read(path), 'unsaved first line\nALPHA\nbeta\ngamma\n', 'the file on disk')

      turn(tools, follow_up(question, history, use, result, err))
      local reqs = model.requests()
      local results = scripted.tool_messages(reqs[#reqs])
      H.eq(#results, 1, 'tool results in the last request')
      H.eq(results[1].content, result, 'the edit result the model receives')
      model.stop()
    end,
  },
}
