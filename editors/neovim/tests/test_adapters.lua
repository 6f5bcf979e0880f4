-- Quick unit tests of the chat-plugin adapters on any Neovim, against
-- stand-ins of the registration APIs they call (tests/standins): every whale
-- tool is registered and runs whale. Not the proof that the plugins take
-- them: tests/test_codecompanion.lua and tests/test_avante.lua run the real
-- CodeCompanion and avante in Neovim 0.11.
local H = require('harness')

local standins = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/standins'
vim.opt.runtimepath:append(standins)

local catalog

return {
  {
    'CodeCompanion: the extension registers every tool and a group',
    function()
      H.workspace({ ['notes.txt'] = 'whale adapters\n' })
      H.setup()
      catalog = assert(require('whale').tools())
      H.ok(#catalog >= 10, 'catalog size ' .. #catalog)
      require('codecompanion').setup({ extensions = { whale = { opts = {} } } })
      local tools = require('codecompanion.config').interactions.chat.tools
      for _, t in ipairs(catalog) do
        local entry = tools['whale_' .. t.name]
        H.ok(entry, 'whale_' .. t.name .. ' registered')
        local fn = entry.callback().schema['function']
        H.eq(fn.name, 'whale_' .. t.name, 'schema name')
        H.eq(fn.parameters, t.inputSchema, 'parameters of ' .. t.name)
        H.eq(
          type(entry.opts.require_approval_before) == 'function',
          not t.readOnly,
          'approval of ' .. t.name
        )
      end
      H.eq(#tools.groups.whale.tools, #catalog, 'group size')
      H.eq(
        tools.read_file.description,
        'built-in read_file',
        "CodeCompanion's own read_file is untouched"
      )
      H.eq(#require('codecompanion').extensions.whale.registered(), #catalog, 'exports')
      -- Tools whale-ls activates later (whale/toolsChanged) join the group.
      local client = require('whale').start()
      local handler = client.handlers['whale/toolsChanged']
      handler(nil, {
        added = {
          {
            name = 'late_tool',
            description = 'activated later',
            inputSchema = { type = 'object', properties = {} },
            readOnly = true,
          },
        },
        count = #catalog + 1,
      }, { client_id = client.id })
      H.ok(tools.whale_late_tool, 'the later tool is registered')
      H.eq(#tools.groups.whale.tools, #catalog + 1, 'group size after toolsChanged')
    end,
  },
  {
    'CodeCompanion: a registered tool runs whale (tool API v19 and v18)',
    function()
      local cc = require('codecompanion')
      for _, api in ipairs({ 19, 18 }) do
        local chat = cc.new_chat()
        local status, data
        cc.run_tool('whale_read_file', { file_path = 'notes.txt' }, api, chat, function(s, d)
          status, data = s, d
        end)
        H.wait(function()
          return status ~= nil
        end, 'the tool result (api ' .. api .. ')')
        H.eq(status, 'success', 'status (api ' .. api .. ')')
        H.contains(data, 'whale adapters', 'data')
        H.eq(#chat.outputs, 1, 'chat output')
        H.contains(chat.outputs[1].for_llm, 'whale adapters', 'output for the model')
      end
      local chat = cc.new_chat()
      local status, data
      cc.run_tool('whale_read_file', { file_path = 'missing.txt' }, 19, chat, function(s, d)
        status, data = s, d
      end)
      H.wait(function()
        return status ~= nil
      end, 'the failing tool result')
      H.eq(status, 'error', 'a failing tool is an error')
      H.contains(data, 'not_found', 'the Envelope code is passed on')
    end,
  },
  {
    'CodeCompanion: the approval text is the preview (title, diff) or the arguments as text; no question when whale reads only or asks itself',
    function()
      local cc = require('whale.codecompanion')
      local t = { name = 'edit', readOnly = false }
      local args = { file_path = 'a.go', search = 'x := 1\ny := 2', replace = 'x := "one"' }
      -- With whale/preview's answer (the shape lsp/protocol.go gives it).
      local text = cc.approval_text(t, args, {
        title = 'Edit a.go',
        detail = '```diff\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1 @@\n-x := 1\n-y := 2\n+x := "one"\n```',
        readOnly = false,
        whaleAsks = false,
      })
      H.contains(text, '**whale: Edit a.go**', 'title')
      H.contains(text, '```diff\n--- a/a.go', 'the diff fence')
      H.contains(text, '+x := "one"', 'the diff')
      text = cc.approval_text(
        t,
        args,
        { title = 'Edit a.go', detail = '', error = 'search text not found in a.go' }
      )
      H.contains(text, 'It would fail: search text not found in a.go', 'a failing call says so')
      -- Without (an older whale-ls): the arguments, multi-line ones fenced.
      text = cc.approval_text(t, args, nil)
      H.eq(
        text,
        'Run whale `edit`?\nfile_path: a.go\nreplace: x := "one"\nsearch:\n```\nx := 1\ny := 2\n```',
        'fallback text'
      )
      -- The gate: asks unless the preview says read-only or whale asks.
      local gate = cc.approval_gate(t, true)
      H.eq(gate({ _whale_preview = { readOnly = false, whaleAsks = false } }), true, 'asks')
      H.eq(
        gate({ _whale_preview = { readOnly = false, whaleAsks = true } }),
        false,
        'whale asks: one gate'
      )
      H.eq(gate({ _whale_preview = { readOnly = true, whaleAsks = false } }), false, 'read-only')
      H.eq(cc.approval_gate(t, false), false, 'approval off')
    end,
  },
  {
    'CodeCompanion: diffs in a result are fenced for the chat buffer (what the model reads is unchanged)',
    function()
      local cc = require('whale.codecompanion')
      local text =
        'Wrote a.txt (+1 -1 lines).\n\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n\nNext: run the tests.'
      H.eq(
        cc.display_text(text),
        'Wrote a.txt (+1 -1 lines).\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n```\n\nNext: run the tests.',
        'fenced'
      )
      local fenced = 'Done.\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n```'
      H.eq(cc.display_text(fenced), fenced, 'a fenced diff stays as it is')
      H.eq(cc.display_text('- a list\n- item'), '- a list\n- item', 'a list is not a diff')
      local tail = 'x\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-1\n+2\n'
      H.eq(
        cc.display_text(tail),
        'x\n```diff\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-1\n+2\n```',
        'a diff at the end'
      )
    end,
  },
  {
    'avante: custom_tools has every tool, and func runs whale (both signatures)',
    function()
      local avante = require('avante')
      avante.setup({
        custom_tools = function()
          return require('whale.avante').tools()
        end,
      })
      for _, t in ipairs(catalog) do
        H.ok(avante.tools['whale_' .. t.name], 'whale_' .. t.name .. ' in custom_tools')
      end
      local edit = avante.tools.whale_edit
      local names = {}
      for _, f in ipairs(edit.param.fields) do
        names[f.name] = f.optional
      end
      H.eq(
        names,
        { file_path = false, search = false, replace = false, all = true },
        'edit fields (optional?)'
      )
      for _, legacy in ipairs({ false, true }) do
        local result, err, done
        avante.run('whale_read_file', { file_path = 'notes.txt' }, legacy, function(r, e)
          result, err, done = r, e, true
        end)
        H.wait(function()
          return done
        end, 'avante tool result')
        H.eq(err, nil, 'error')
        H.contains(result, 'whale adapters', 'result')
      end
      local result, err, done
      avante.run('whale_grep', { pattern = 'no-such-text-anywhere' }, false, function(r, e)
        result, err, done = r, e, true
      end)
      H.wait(function()
        return done
      end, 'avante grep')
      H.ok(result ~= nil or err ~= nil, 'grep answered')
    end,
  },
}
