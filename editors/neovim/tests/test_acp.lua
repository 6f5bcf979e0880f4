-- The real CodeCompanion v19 as an ACP client (its own ACP adapter, not
-- whale's extension) in front of `whale-ls acp` in front of a scripted ACP
-- agent (acpfront/e2e/agent.mjs, run with node and the official ACP SDK):
-- a chat turn in which the agent writes a file through whale (on disk, in
-- :WhaleChanges, and as a diff in CodeCompanion's chat), and a terminal
-- command the exec boundary asks about, answered with the key CodeCompanion's
-- permission prompt binds in the chat buffer. The first case runs the same
-- agent without whale, as the comparison.
--
-- Why the cases submit from a scheduled callback: CodeCompanion's ACP
-- connection waits for each answer by yielding the running coroutine when
-- there is one (and polls with vim.wait otherwise). This harness runs every
-- case in a coroutine of its own, so a chat:submit() called from the case
-- itself, before the connection CodeCompanion starts in the background is
-- ready, yields the case's coroutine to CodeCompanion's waiter, which nobody
-- resumes: the case hangs until the harness gives up on it. The cases wait
-- for the connection (H.wait_loop) and submit from vim.schedule, outside
-- the case's coroutine.
--
-- With WHALE_TEST_ARTIFACTS naming a folder, the chat buffer at the approval,
-- after the write and without whale, and the :WhaleChanges list, are kept
-- there (acp-codecompanion-*.txt).
--
-- Needs Neovim 0.11, node, and in WHALE_NVIM_PLUGINS extracted
-- codecompanion.nvim-v19* and plenary.nvim-* folders, and the SDK installed
-- in acpfront/e2e (npm ci there; make acp does it).
local H = require('harness')

local plugins = vim.env.WHALE_NVIM_PLUGINS or ''
local function plugin(pattern)
  local found = vim.fn.glob(plugins .. '/' .. pattern, false, true)
  return found[#found]
end

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local e2e = vim.fn.fnamemodify(here .. '/../../../acpfront/e2e', ':p'):gsub('/$', '')
local agent_script = e2e .. '/agent.mjs'

local missing
if vim.fn.has('nvim-0.11') == 0 then
  missing = 'Neovim 0.11 (set WHALE_NVIM_011 to its bin/nvim)'
elseif plugins == '' then
  missing =
    'CodeCompanion v19 and plenary (set WHALE_NVIM_PLUGINS to a folder of extracted codecompanion.nvim-v19* and plenary.nvim-* folders)'
elseif not plugin('codecompanion.nvim-v19*') then
  missing = 'CodeCompanion v19 (extract codecompanion.nvim-v19* into WHALE_NVIM_PLUGINS)'
elseif not plugin('plenary.nvim-*') then
  missing = 'plenary (extract plenary.nvim-* into WHALE_NVIM_PLUGINS)'
elseif vim.fn.executable('node') == 0 then
  missing = 'node (the scripted ACP agent runs with it)'
elseif vim.fn.isdirectory(e2e .. '/node_modules/@agentclientprotocol/sdk') == 0 then
  missing = 'the ACP SDK in acpfront/e2e (run npm ci there)'
end
if missing then
  local msg = 'the CodeCompanion ACP test needs ' .. missing
  if vim.env.CI == 'true' and vim.fn.has('nvim-0.11') == 1 then
    return {
      {
        'CodeCompanion ACP: ' .. msg,
        function()
          H.fail(msg)
        end,
      },
    }
  end
  H.log('SKIP test_acp: ' .. msg)
  return {}
end

local cc_dir = plugin('codecompanion.nvim-v19*')
local version = vim.fn.fnamemodify(cc_dir, ':t'):gsub('^codecompanion%.nvim%-', '')
local node = vim.fn.exepath('node')
local whale = vim.env.WHALE_LS or 'whale-ls'

--- An ACP adapter of CodeCompanion's own shape (as its gemini_cli one)
--- whose command is cmd.
local function adapter(name, cmd)
  return function()
    return {
      name = name,
      formatted_name = 'Scripted Agent',
      type = 'acp',
      roles = { llm = 'assistant', user = 'user' },
      -- CodeCompanion's own option: a finished edit is shown with its diff's
      -- size ("Edited a.txt (+1 lines)") instead of "Edit: a.txt".
      opts = { verbose_output = true },
      commands = { default = cmd },
      defaults = { mcpServers = {}, timeout = 20000 },
      parameters = {
        protocolVersion = 1,
        clientCapabilities = { fs = { readTextFile = true, writeTextFile = true } },
        clientInfo = { name = 'CodeCompanion.nvim', version = '1.0.0' },
      },
      handlers = {
        setup = function()
          return true
        end,
        form_messages = function(self, messages, capabilities)
          return require('codecompanion.adapters.acp.helpers').form_messages(
            self,
            messages,
            capabilities
          )
        end,
        on_exit = function() end,
      },
    }
  end
end

local set_up = false
local function setup_codecompanion(config_file)
  if not set_up then
    vim.opt.runtimepath:append(plugin('plenary.nvim-*'))
    vim.opt.runtimepath:append(cc_dir)
    set_up = true
  end
  require('codecompanion').setup({
    adapters = {
      acp = {
        direct = adapter('direct', { node, agent_script }),
        whale = adapter(
          'whale',
          { whale, 'acp', '--config', config_file, '--', node, agent_script }
        ),
        opts = { show_defaults = false },
      },
    },
    interactions = { chat = { adapter = 'whale' } },
    opts = { log_level = 'ERROR' },
  })
end

local function chat_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), '\n')
end

--- Opens a chat with the adapter named, waits until its ACP session is
--- established, and submits steps (the scripted agent's prompt) from the
--- main loop; returns the chat.
local function turn(adapter_name, steps)
  local chat = require('codecompanion').chat({ params = { adapter = adapter_name } })
  H.ok(chat and chat.bufnr, 'a chat buffer')
  H.wait_loop(
    function()
      return chat.acp_connection and chat.acp_connection:is_connected()
    end,
    'the ACP session of ' .. adapter_name,
    nil,
    function()
      return chat_text(chat)
    end
  )
  chat:add_buf_message({ role = 'user', content = vim.json.encode(steps) })
  vim.schedule(function()
    chat:submit()
  end)
  return chat
end

--- Keeps what the user saw (lines) as name.txt when WHALE_TEST_ARTIFACTS
--- names a folder.
local function keep(name, lines)
  local artifacts = vim.env.WHALE_TEST_ARTIFACTS
  if artifacts and artifacts ~= '' then
    vim.fn.mkdir(artifacts, 'p')
    vim.fn.writefile(lines, artifacts .. '/acp-codecompanion-' .. name .. '.txt')
  end
end

--- What CodeCompanion's ACP connection of chat sent and received.
local function rpc_log(chat)
  local path = chat.acp_connection
    and chat.acp_connection._rpc_log
    and chat.acp_connection._rpc_log.path
  H.ok(path, "CodeCompanion's RPC log")
  return table.concat(vim.fn.readfile(path), '\n')
end

local function wait_text(chat, needle, what)
  H.wait_loop(
    function()
      return chat_text(chat):find(needle, 1, true)
    end,
    what,
    nil,
    function()
      return 'chat buffer:\n' .. chat_text(chat)
    end
  )
end

--- Presses the key CodeCompanion's approval prompt binds in the chat
--- buffer for the choice labeled label; returns the key.
local function press(chat, label)
  local lhs
  H.wait_loop(
    function()
      for _, m in ipairs(vim.api.nvim_buf_get_keymap(chat.bufnr, 'n')) do
        if m.desc == label then
          lhs = m.lhs
          return true
        end
      end
    end,
    'the approval prompt (a ' .. label .. ' key in the chat buffer)',
    nil,
    function()
      return 'chat buffer:\n' .. chat_text(chat)
    end
  )
  keep('approval', vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false))
  vim.api.nvim_set_current_win(vim.fn.bufwinid(chat.bufnr))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(lhs, true, false, true), 'mx', false)
  return lhs
end

local ws, config_file

return {
  {
    'CodeCompanion '
      .. version
      .. ' without whale: the scripted agent writes a file through the editor',
    function()
      ws = H.workspace({ ['notes.txt'] = 'one\ntwo\n' })
      -- A real repository: CodeCompanion v19 snapshots a review baseline
      -- through git.
      vim.fn.system({ 'git', 'init', '-q', ws })
      config_file = vim.fn.tempname() .. '.json'
      vim.fn.writefile({
        vim.json.encode({
          execBoundary = { mode = 'enforce', rules = { { program = 'touch', decision = 'ask' } } },
        }),
      }, config_file)
      H.setup()
      setup_codecompanion(config_file)
      local chat = turn('direct', {
        { toolCall = 'e1' },
        {
          method = 'fs/write_text_file',
          params = { path = ws .. '/direct.txt', content = 'written by the editor\n' },
        },
        { toolCallDone = 'e1' },
      })
      wait_text(chat, 'ok {}', "the agent's report of the write")
      -- CodeCompanion wrote it itself; the agent's edit tool call carries
      -- no diff (this agent sends none), so the chat shows only its title.
      keep('without-whale', vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false))
      H.contains(rpc_log(chat), '"method":"fs/write_text_file"', "CodeCompanion's RPC log")
      H.contains(chat_text(chat), 'Edit: Edit', 'the tool call in the chat')
      H.eq(vim.fn.readfile(ws .. '/direct.txt'), { 'written by the editor' }, 'direct.txt')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': the agent writes a file through whale-ls acp (on disk, in :WhaleChanges, in the chat)',
    function()
      local path = ws .. '/notes.txt'
      -- The file is open: whale-ls acp writes through the editor's whale-ls.
      vim.cmd('edit ' .. vim.fn.fnameescape(path))
      H.client_for(vim.api.nvim_get_current_buf())
      local chat = turn('whale', {
        { method = 'fs/read_text_file', params = { path = path } },
        { toolCall = 'e1' },
        { method = 'fs/write_text_file', params = { path = path, content = 'one\nTWO\nthree\n' } },
        { toolCallDone = 'e1' },
      })
      wait_text(chat, 'ok {}', "the agent's report of the write")
      H.eq(vim.fn.readfile(path), { 'one', 'TWO', 'three' }, 'notes.txt on disk')
      -- The change is journaled: :WhaleChanges lists it.
      vim.cmd('WhaleChanges')
      local list = vim.api.nvim_get_current_buf()
      local st
      H.wait_loop(function()
        st = require('whale.changes').state[list]
        return st and st.entries and #st.entries >= 1 and st.rows ~= nil
      end, 'an entry in :WhaleChanges')
      local shown = table.concat(vim.api.nvim_buf_get_lines(list, 0, -1, false), '\n')
      keep('whalechanges', vim.api.nvim_buf_get_lines(list, 0, -1, false))
      keep('after-write', vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false))
      H.contains(shown, 'Scripted Agent edited notes.txt', ':WhaleChanges')
      vim.cmd('close')
      -- CodeCompanion shows the agent's edit tool call with whale's diff.
      -- The open buffer shows the new text (written through the editor's
      -- whale-ls).
      H.eq(
        vim.api.nvim_buf_get_lines(vim.fn.bufnr(path), 0, -1, false),
        { 'one', 'TWO', 'three' },
        'the notes.txt buffer'
      )
      -- CodeCompanion shows the agent's edit tool call with the diff whale
      -- added to it: whale served the write, CodeCompanion got no
      -- fs/write_text_file, only the diff.
      local log = rpc_log(chat)
      H.ok(
        not log:find('"method":"fs/write_text_file"', 1, true),
        'no fs/write_text_file reached CodeCompanion'
      )
      H.contains(log, '"type":"diff"', "the diff in CodeCompanion's RPC log")
      H.contains(chat_text(chat), 'Edited notes.txt (+1 lines)', 'the edit in the chat')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': the agent writes an open file without a final newline through whale-ls acp',
    function()
      local path = ws .. '/nofinal.txt'
      vim.fn.writefile({ 'a', 'b' }, path)
      vim.cmd('edit ' .. vim.fn.fnameescape(path))
      H.client_for(vim.api.nvim_get_current_buf())
      local chat = turn('whale', {
        { method = 'fs/read_text_file', params = { path = path } },
        { method = 'fs/write_text_file', params = { path = path, content = 'a\nB' } },
      })
      wait_text(chat, 'ok {}', "the agent's report of the write")
      H.eq(vim.api.nvim_buf_get_lines(vim.fn.bufnr(path), 0, -1, false), { 'a', 'B' }, 'the buffer')
    end,
  },
  {
    'CodeCompanion '
      .. version
      .. ': a command the exec boundary asks about is answered in CodeCompanion',
    function()
      local made = ws .. '/made.txt'
      local chat = turn('whale', {
        { method = 'terminal/create', params = { command = 'touch', args = { made } } },
        { method = 'terminal/wait_for_exit', params = { terminalId = 't1' } },
      })
      press(chat, 'Accept')
      wait_text(chat, 'ok {"exitCode":0', 'the command ran')
      H.ok(vim.fn.filereadable(made) == 1, 'made.txt exists')
      local text = chat_text(chat)
      H.contains(text, 'Execute: Allow `touch ' .. made .. '`?', 'the question in the chat')
      H.contains(text, 'You selected: Accept', 'the answer in the chat')
    end,
  },
}
