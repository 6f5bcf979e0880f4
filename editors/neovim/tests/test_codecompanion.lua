-- The real CodeCompanion (not the stand-in) in a real chat turn: whale's
-- extension registered, the openai_compatible adapter pointed at a scripted
-- model on 127.0.0.1 (tests/scripted_model.py) that calls whale's tools and
-- then answers; every request the model receives is checked.
--
-- Needs Neovim 0.11 and, in WHALE_CODECOMPANION, an extracted CodeCompanion
-- folder and, in WHALE_NVIM_PLUGINS, a folder holding plenary.nvim-*;
-- tests/run.sh runs this file once per codecompanion.nvim-* folder in
-- WHALE_NVIM_PLUGINS (.ci/run extracts them from ../shared/testbed).
local H = require('harness')
local scripted = require('scripted')

local missing
if vim.fn.has('nvim-0.11') == 0 then
  missing = 'Neovim 0.11 (set WHALE_NVIM_011 to its bin/nvim)'
elseif not vim.env.WHALE_CODECOMPANION or vim.env.WHALE_CODECOMPANION == '' then
  missing =
    'CodeCompanion and plenary (set WHALE_NVIM_PLUGINS to a folder of extracted codecompanion.nvim-* and plenary.nvim-* folders)'
elseif not vim.fn.glob((vim.env.WHALE_NVIM_PLUGINS or '') .. '/plenary.nvim-*', false, true)[1] then
  missing = 'plenary (extract plenary.nvim-* into WHALE_NVIM_PLUGINS)'
else
  missing = scripted.missing()
end
if missing then
  H.log('SKIP test_codecompanion: the real CodeCompanion test needs ' .. missing)
  return {}
end

local cc_dir = vim.env.WHALE_CODECOMPANION
local version = vim.fn.fnamemodify(cc_dir, ':t'):gsub('^codecompanion%.nvim%-', '')
local plenary = vim.fn.glob((vim.env.WHALE_NVIM_PLUGINS or '') .. '/plenary.nvim-*', false, true)[1]

local model

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), '\n')
end

local function explain(chat)
  return function()
    local reqs = model.requests()
    local last = reqs[#reqs]
    return string.format(
      '%d requests; last messages: %s\nchat buffer:\n%s',
      #reqs,
      last and vim.inspect(last.messages) or '-',
      chat and chat_text(chat) or '-'
    )
  end
end

local chat

local language_tools = {
  problems = true,
  symbols = true,
  document_symbols = true,
  definition = true,
  references = true,
  hover = true,
  rename = true,
}

--- Registers whale's tools with approval of mutating calls, and answers
--- CodeCompanion's approval of each with `choice` ('once': allow once;
--- 'always': always accept), in the prompt API of the CodeCompanion
--- version under test. Returns the prompts shown and a function that
--- puts the real prompt back.
local function answer_approvals(choice)
  require('whale.codecompanion').register(
    vim.tbl_extend('force', require('whale.codecompanion').opts or {}, { approval = 'mutating' })
  )
  local prompts = {}
  if version:match('^v18') then
    local ui = require('codecompanion.utils.ui')
    local real = ui.confirm
    ui.confirm = function(prompt)
      table.insert(prompts, prompt)
      return choice == 'always' and 1 or 2 -- 1: Allow always, 2: Allow once
    end
    return prompts, function()
      ui.confirm = real
    end
  end
  local ap = require('codecompanion.interactions.chat.helpers.approval_prompt')
  local real = ap.request
  local labels = require('codecompanion.interactions.chat.tools.labels')
  local want = choice == 'always' and labels.always_accept or labels.accept
  ap.request = function(_, opts)
    table.insert(prompts, opts.prompt)
    for _, c in ipairs(opts.choices) do
      if c.label == want then
        vim.schedule(c.callback)
        return function() end
      end
    end
    error('no ' .. want .. ' choice in ' .. vim.inspect(opts.choices))
  end
  return prompts, function()
    ap.request = real
  end
end

return {
  {
    'CodeCompanion '
      .. version
      .. ": a chat turn offers whale's tools, runs read_file through whale-ls and returns its result to the model",
    function()
      local dir = H.workspace({ ['notes.txt'] = 'whale real codecompanion\nsecond line\n' })
      -- A real repository: v19 snapshots a review baseline through git.
      vim.fn.system({ 'git', 'init', '-q', dir })
      H.setup()
      vim.opt.runtimepath:append(plenary)
      vim.opt.runtimepath:append(cc_dir)
      model = scripted.start(
        { { tool = 'whale_read_file', arguments = { file_path = 'notes.txt' } } },
        'The file says hello.'
      )
      local url = model.url
      require('codecompanion').setup({
        adapters = {
          http = {
            scripted = function()
              return require('codecompanion.adapters').extend('openai_compatible', {
                name = 'scripted',
                env = {
                  url = url,
                  api_key = 'none',
                  chat_url = '/v1/chat/completions',
                  models_endpoint = '/v1/models',
                },
                schema = { model = { default = 'scripted' } },
              })
            end,
            opts = { show_defaults = false, show_model_choices = false },
          },
        },
        interactions = { chat = { adapter = 'scripted' }, inline = { adapter = 'scripted' } },
        strategies = { chat = { adapter = 'scripted' }, inline = { adapter = 'scripted' } },
        extensions = { whale = { opts = { approval = 'none' } } },
        opts = { log_level = 'ERROR' },
      })
      chat = require('codecompanion').chat({})
      H.ok(chat and chat.bufnr, 'a chat buffer')
      chat:add_buf_message({ role = 'user', content = '@{whale} What does notes.txt say?' })
      chat:submit()
      H.wait_loop(function()
        return chat_text(chat):find('The file says hello.', 1, true)
      end, 'the final answer in the chat buffer', nil, explain(chat))

      local reqs = model.requests()
      H.ok(#reqs >= 2, 'at least two requests, got ' .. #reqs)
      local offered = scripted.offered(reqs[1])
      H.ok(
        offered.whale_read_file,
        'whale_read_file offered; tools: ' .. vim.inspect(vim.tbl_keys(offered))
      )
      local catalog = assert(require('whale').tools())
      local want = 0
      for _, t in ipairs(catalog) do
        want = want + 1
        local fn = offered['whale_' .. t.name]
        -- The language tools exist only in a running server's catalog (for
        -- a client that declares languageFeatures); this chat's first
        -- request went out before whale-ls started. The next case checks
        -- they are offered once it runs.
        if language_tools[t.name] and not fn then
          goto continue
        end
        H.ok(fn, 'whale_' .. t.name .. ' offered')
        H.eq(fn.parameters.type, 'object', 'schema type of whale_' .. t.name)
        H.eq(
          H.sorted_keys(fn.parameters.properties),
          H.sorted_keys(t.inputSchema.properties),
          'schema properties of whale_' .. t.name
        )
        ::continue::
      end
      H.ok(want >= 10, 'catalog size ' .. want)
      local results = scripted.tool_messages(reqs[#reqs])
      H.eq(#results, 1, 'tool results in the last request')
      H.eq(results[1].tool_call_id, 'call_1', 'tool_call_id')
      H.contains(
        results[1].content,
        'whale real codecompanion',
        'the read_file result the model receives'
      )
      H.contains(chat_text(chat), 'whale `read_file`', 'the chat buffer shows the tool output')
      H.ok(dir, 'workspace')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': a chat turn edits an open modified buffer and runs shell_run through whale-ls',
    function()
      local buf, _, edit = scripted.modified_todo()
      model.play({
        edit,
        {
          tool = 'whale_shell_run',
          arguments = { command = 'echo shell-from-$((40 + 2))', mode = 'pipe' },
        },
      }, 'Edited and ran.')
      chat = require('codecompanion').chat({})
      chat:add_buf_message({
        role = 'user',
        content = '@{whale} Capitalize alpha in todo.txt, then run a command.',
      })
      chat:submit()
      H.wait_loop(function()
        return chat_text(chat):find('Edited and ran.', 1, true)
      end, 'the final answer in the chat buffer', nil, explain(chat))
      local reqs = model.requests()
      local offered = scripted.offered(reqs[1])
      for name in pairs(language_tools) do
        H.ok(offered['whale_' .. name], 'whale_' .. name .. ' offered once whale-ls runs')
      end
      local results = scripted.tool_messages(reqs[#reqs])
      H.eq(#results, 2, 'tool results in the last request')
      H.ok(not results[1].content:find('^%['), 'the edit succeeded: ' .. results[1].content)
      H.contains(results[2].content, 'shell-from-42', 'the shell_run output the model receives')
      H.eq(
        vim.api.nvim_buf_get_lines(buf, 0, 4, false),
        { 'unsaved first line', 'ALPHA', 'beta', 'gamma' },
        'the buffer holds the edit and the unsaved line'
      )
      local text = chat_text(chat)
      H.contains(text, 'whale `edit`', 'the chat buffer shows the edit output')
      H.contains(
        text,
        '```diff\n@@ -1,4 +1,4 @@\n unsaved first line\n-alpha\n+ALPHA',
        "the edit's diff is fenced in the chat buffer"
      )
      H.contains(text, 'whale `shell_run`', 'the chat buffer shows the shell_run output')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ": an rm the exec boundary asks about shows whale's approval prompt; allow once runs it, deny in the next turn refuses it, and the model is told which",
    function()
      -- whale's prompt UI is vim.ui.select (lua/whale/prompts.lua); this
      -- stand-in for the user picks `answer` and records what was shown.
      local real_select = vim.ui.select
      local shown, answer = {}, nil
      vim.ui.select = function(items, opts, on_choice)
        local ids = {}
        for _, item in ipairs(items) do
          table.insert(ids, item.id)
        end
        table.insert(shown, { prompt = opts.prompt, kind = opts.kind, ids = ids })
        for i, item in ipairs(items) do
          if item.id == answer then
            return on_choice(item, i)
          end
        end
        on_choice(nil)
      end
      --- One chat turn whose model runs `rm -rf <name>` (a default ask
      --- rule); returns the tool result the model receives.
      local function rm_turn(name, final)
        vim.fn.mkdir(name .. '/sub', 'p')
        model.play({
          { tool = 'whale_shell_run', arguments = { command = 'rm -rf ' .. name, mode = 'pipe' } },
        }, final)
        chat = require('codecompanion').chat({})
        chat:add_buf_message({
          role = 'user',
          content = '@{whale} Remove the folder ' .. name .. '.',
        })
        chat:submit()
        H.wait_loop(function()
          return chat_text(chat):find(final, 1, true)
        end, 'the final answer in the chat buffer', nil, explain(chat))
        local reqs = model.requests()
        local results = scripted.tool_messages(reqs[#reqs])
        H.eq(#results, 1, 'tool results in the last request')
        return results[1].content
      end
      local rm = vim.loop.fs_realpath(vim.fn.exepath('rm'))
      local ok, err = pcall(function()
        answer = 'allow_once'
        local allowed = rm_turn('victim1', 'Removed it.')
        H.eq(#shown, 1, 'approval prompts shown in the first turn')
        H.eq(shown[1].kind, 'whale.approval', 'prompt kind')
        H.eq(shown[1].ids, { 'deny', 'allow_once', 'allow_session' }, 'prompt options, Deny first')
        H.contains(shown[1].prompt, 'rm -rf victim1', 'the prompt shows the command')
        H.contains(shown[1].prompt, 'Program: ' .. rm, 'the prompt shows the program')
        H.eq(vim.fn.isdirectory('victim1'), 0, 'victim1 removed after allow once')
        H.contains(allowed, 'exit code 0', 'the allowed rm as the model receives it')
        H.ok(
          not allowed:find('denied', 1, true),
          'the allowed rm is not reported as denied: ' .. allowed
        )

        answer = 'deny'
        local denied = rm_turn('victim2', 'Could not remove it.')
        H.eq(#shown, 2, 'allow once is not remembered: the second turn asks again')
        H.contains(shown[2].prompt, 'rm -rf victim2', 'the second prompt shows the command')
        H.eq(vim.fn.isdirectory('victim2'), 1, 'victim2 still there after deny')
        H.contains(denied, 'whale: policy denied ' .. rm, 'the denied rm as the model receives it')
        H.contains(denied, 'the user said no', 'the denied rm as the model receives it')
        H.contains(denied, 'Operation not permitted', 'the denied rm as the model receives it')
        H.ok(
          not denied:find('exit code 0', 1, true),
          'the denied rm does not report success: ' .. denied
        )
      end)
      vim.ui.select = real_select
      if not ok then
        error(err, 0)
      end
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': the @ menu lists the whale group, not each whale tool; a tool typed by name still works',
    function()
      -- CodeCompanion's completion source (what cmp, blink and its own
      -- completion list after @), for a new chat buffer.
      local completion = require('codecompanion.providers.completion')
      local c = require('codecompanion').chat({})
      vim.api.nvim_set_current_buf(c.bufnr)
      local labels = {}
      H.wait(function()
        labels = {}
        for _, item in ipairs(completion.tools()) do
          table.insert(labels, item.label)
        end
        return #labels > 0
      end, 'the @ menu to list something')
      local listed = table.concat(labels, ' ')
      H.ok(vim.tbl_contains(labels, '@whale'), 'the whale group is listed: ' .. listed)
      for _, l in ipairs(labels) do
        H.ok(not l:match('whale_'), 'a single whale tool is listed: ' .. l .. ' in ' .. listed)
      end
      H.ok(#labels < 40, #labels .. ' entries in the @ menu: ' .. listed)
      -- Typed by name, a single tool is resolved by the chat.
      local tools_config =
        require('codecompanion.interactions.chat.tools.filter').filter_enabled_tools(
          require('codecompanion.config').interactions.chat.tools,
          { adapter = c.adapter }
        )
      H.ok(tools_config.whale_grep, 'whale_grep is a tool of the chat')
      H.ok(tools_config.groups.whale, 'the whale group is a group of the chat')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ": the approval of a whale edit shows what it will do (whale/preview's diff, or the arguments as text), never escaped JSON",
    function()
      -- Does this whale-ls answer whale/preview? (A server without it
      -- answers -32601; the prompt then lists the arguments.)
      local probe, why = require('whale').preview('read_file', { file_path = 'todo.txt' })
      local has_preview = probe ~= nil
      if not has_preview then
        H.log('  (whale/preview: ' .. tostring(why) .. '; the fallback text is checked)')
      end
      local prompts, restore = answer_approvals('once')
      local ok, err = pcall(function()
        vim.fn.writefile({ 'one', 'two', 'three' }, 'approve.txt')
        model.play({
          {
            tool = 'whale_edit',
            arguments = {
              file_path = 'approve.txt',
              search = 'two\nthree',
              replace = 'two\nTHREE "quoted"',
            },
          },
          { tool = 'whale_read_file', arguments = { file_path = 'approve.txt' } },
        }, 'Approved and edited.')
        chat = require('codecompanion').chat({})
        chat:add_buf_message({ role = 'user', content = '@{whale} Edit approve.txt.' })
        chat:submit()
        H.wait_loop(function()
          return chat_text(chat):find('Approved and edited.', 1, true)
        end, 'the final answer in the chat buffer', nil, explain(chat))
      end)
      restore()
      if not ok then
        error(err, 0)
      end
      H.eq(#prompts, 1, 'one approval (the edit; read_file is read-only): ' .. vim.inspect(prompts))
      local p = prompts[1]
      H.ok(not p:find('\\"', 1, true) and not p:find('\\n', 1, true), 'no escaped JSON: ' .. p)
      if has_preview then
        H.contains(p, '```diff', 'the diff whale would apply')
        H.contains(p, '+THREE "quoted"', 'the diff whale would apply')
      else
        H.contains(p, 'Run whale `edit`?', 'the fallback text')
        H.contains(p, 'file_path: approve.txt', 'the fallback text')
        H.contains(p, 'THREE "quoted"', 'the fallback text')
      end
      H.eq(
        vim.fn.readfile('approve.txt'),
        { 'one', 'two', 'THREE "quoted"' },
        'the approved edit is applied'
      )
      require('whale.codecompanion').register(
        vim.tbl_extend('force', require('whale.codecompanion').opts or {}, { approval = 'none' })
      )
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ": with review on, whale's review is the one gate for an edit; while it waits, the chat says so (the review may be hidden), and not once it is answered",
    function()
      -- whale-ls again, with review on.
      require('whale').stop()
      H.wait(function()
        return #require('whale.compat').get_clients({ name = 'whale_ls' }) == 0
      end, 'whale-ls to stop')
      H.setup({ settings = { edits = { review = 'ask' } } })
      -- CodeCompanion's approval on: whale's review is the one gate.
      require('whale.codecompanion').register(
        vim.tbl_extend(
          'force',
          require('whale.codecompanion').opts or {},
          { approval = 'mutating' }
        )
      )
      local asked = 0
      local restore
      if version:match('^v18') then
        local ui = require('codecompanion.utils.ui')
        local real = ui.confirm
        ui.confirm = function()
          asked = asked + 1
          return 2
        end
        restore = function()
          ui.confirm = real
        end
      else
        local ap = require('codecompanion.interactions.chat.helpers.approval_prompt')
        local real = ap.request
        ap.request = function(c, opts)
          asked = asked + 1
          return real(c, opts)
        end
        restore = function()
          ap.request = real
        end
      end
      vim.fn.writefile({ 'keep', 'change me' }, 'reviewed.txt')
      model.play({
        {
          tool = 'whale_edit',
          arguments = { file_path = 'reviewed.txt', search = 'change me', replace = 'changed' },
        },
      }, 'Reviewed and edited.')
      chat = require('codecompanion').chat({})
      chat:add_buf_message({ role = 'user', content = '@{whale} Edit reviewed.txt.' })
      chat:submit()
      local review = require('whale.review')
      H.wait_loop(function()
        return review.current() ~= nil
      end, 'the review', nil, explain(chat))
      local function waiting_lines()
        local texts = {}
        local ns = vim.api.nvim_create_namespace('whale_codecompanion_wait')
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.bufnr, ns, 0, -1, { details = true })) do
          for _, vl in ipairs(m[4].virt_lines or {}) do
            for _, chunk in ipairs(vl) do
              table.insert(texts, chunk[1])
            end
          end
        end
        return table.concat(texts, '\n')
      end
      H.contains(waiting_lines(), 'whale is waiting for your review', 'the chat says whale waits')
      H.contains(waiting_lines(), ':WhaleReview shows it', 'and how to get to the review')
      review.finish(review.current(), { optionId = 'accept' })
      H.wait_loop(function()
        return chat_text(chat):find('Reviewed and edited.', 1, true)
      end, 'the final answer in the chat buffer', nil, explain(chat))
      H.eq(waiting_lines(), '', 'the note is gone once answered')
      H.eq(vim.fn.readfile('reviewed.txt'), { 'keep', 'changed' }, 'the reviewed edit is applied')
      restore()
      H.eq(asked, 0, "CodeCompanion did not ask too: whale's review was the one gate")
      require('whale.codecompanion').register(
        vim.tbl_extend('force', require('whale.codecompanion').opts or {}, { approval = 'none' })
      )
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': "Always accept" of a whale edit covers that file, not every edit',
    function()
      -- whale-ls again, without review (CodeCompanion is the gate).
      require('whale').stop()
      H.wait(function()
        return #require('whale.compat').get_clients({ name = 'whale_ls' }) == 0
      end, 'whale-ls to stop')
      H.setup()
      local prompts, restore = answer_approvals('always')
      local ok, err = pcall(function()
        vim.fn.writefile({ 'a1', 'a2', 'a3' }, 'always_a.txt')
        vim.fn.writefile({ 'b1' }, 'always_b.txt')
        model.play({
          {
            tool = 'whale_edit',
            arguments = { file_path = 'always_a.txt', search = 'a1', replace = 'A1' },
          },
          {
            tool = 'whale_edit',
            arguments = { file_path = 'always_a.txt', search = 'a2', replace = 'A2' },
          },
          {
            tool = 'whale_edit',
            arguments = { file_path = 'always_b.txt', search = 'b1', replace = 'B1' },
          },
        }, 'Three edits.')
        chat = require('codecompanion').chat({})
        chat:add_buf_message({ role = 'user', content = '@{whale} Edit both files.' })
        chat:submit()
        H.wait_loop(function()
          return chat_text(chat):find('Three edits.', 1, true)
        end, 'the final answer in the chat buffer', nil, explain(chat))
      end)
      restore()
      require('whale.codecompanion').register(
        vim.tbl_extend('force', require('whale.codecompanion').opts or {}, { approval = 'none' })
      )
      if not ok then
        error(tostring(err) .. '\nquestions asked: ' .. vim.inspect(prompts), 0)
      end
      H.eq(
        #prompts,
        2,
        'asked for always_a.txt once and for always_b.txt: ' .. vim.inspect(prompts)
      )
      H.contains(prompts[1], 'always_a.txt', 'the first question')
      H.contains(prompts[2], 'always_b.txt', 'the second question is about the other file')
      H.eq(vim.fn.readfile('always_a.txt'), { 'A1', 'A2', 'a3' }, 'both edits of always_a.txt')
      H.eq(vim.fn.readfile('always_b.txt'), { 'B1' }, 'the edit of always_b.txt')
    end,
  },
}
