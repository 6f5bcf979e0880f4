-- A user's init.lua with lazy.nvim, for test_install.lua, which starts it in
-- a child Neovim (`nvim --headless -u lazy_user.lua`): whale-ls is installed
-- by lazy's short form { 'whale-ls/whale-ls', opts = {} } from a local git
-- remote (git.url_format points there, so nothing leaves the machine), with
-- its build.lua, next to the real CodeCompanion (a local `dir` plugin) whose
-- chat adapter is the scripted model. What a user would see is then
-- observed and written as JSON to $WHALE_TEST_OUT; test_install.lua checks
-- it.
--
-- $WHALE_TEST_PHASE:
--   install  lazy installs and builds the plugin; :help whale, :checkhealth
--            whale, a chat turn with @{whale}.
--   missing  the plugin is installed but its program is gone (and none is on
--            PATH): the messages at startup, :WhaleStart and :WhaleChanges
--            then; lazy's build runs again (the program appears), :WhaleStart,
--            and a chat opened before that gets the tools at its next turn.
local env = vim.env
local out = {}
local notes = {}

vim.notify = function(msg, level)
  table.insert(notes, { msg = tostring(msg), level = level })
end

local function write_out()
  out.notes = notes
  local f = assert(io.open(env.WHALE_TEST_OUT, 'w'))
  f:write(vim.json.encode(out))
  f:close()
end

local function fail(msg)
  out.error = msg
  write_out()
  vim.cmd('qall!')
end

local function wait(ms, cond)
  return vim.wait(ms, function()
    local ok, v = pcall(cond)
    return ok and v
  end, 20)
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false), '\n')
end

local function health()
  vim.cmd('silent checkhealth whale')
  local text = buffer_text(0)
  vim.cmd('tabclose')
  return text
end

vim.opt.rtp:prepend(env.WHALE_TEST_LAZY)

local plugin_dir = env.WHALE_TEST_LAZY_ROOT .. '/whale-ls'
if env.WHALE_TEST_PHASE == 'missing' then
  -- The program is gone; the release folder is not offered yet.
  os.remove(plugin_dir .. '/bin/whale-ls')
  out.missing_before = vim.loop.fs_stat(plugin_dir .. '/bin/whale-ls') == nil
end

local model_url = env.WHALE_TEST_MODEL_URL

require('lazy').setup({
  -- The short form, as the README gives it.
  { 'whale-ls/whale-ls', opts = {} },
  { dir = env.WHALE_TEST_PLENARY, name = 'plenary.nvim', lazy = true },
  {
    dir = env.WHALE_TEST_CC,
    name = 'codecompanion.nvim',
    dependencies = { 'plenary.nvim' },
    opts = {
      adapters = {
        http = {
          scripted = function()
            return require('codecompanion.adapters').extend('openai_compatible', {
              name = 'scripted',
              env = {
                url = model_url,
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
    },
  },
}, {
  root = env.WHALE_TEST_LAZY_ROOT,
  lockfile = env.WHALE_TEST_LAZY_ROOT .. '/lazy-lock.json',
  git = { url_format = 'file://' .. env.WHALE_TEST_REMOTES .. '/%s.git' },
  install = { missing = true, colorscheme = {} },
  checker = { enabled = false },
  change_detection = { enabled = false },
  rocks = { enabled = false },
  headless = { process = false, log = false, task = false },
})

local function lazy_plugin()
  return require('lazy.core.config').plugins['whale-ls']
end

local function task_log()
  local p = lazy_plugin()
  local lines = {}
  for _, t in ipairs(p and p._.tasks or {}) do
    table.insert(lines, t.name .. ': ' .. t:output())
  end
  return table.concat(lines, '\n')
end

--- A CodeCompanion chat turn: @{whale} and a question; returns the tools
--- the scripted model was offered (names) and the chat's text.
local function chat_turn(chat)
  chat:add_buf_message({ role = 'user', content = '@{whale} What does notes.txt say?' })
  chat:submit()
  local done = wait(60000, function()
    return buffer_text(chat.bufnr):find('The file says hello.', 1, true)
  end)
  return done, buffer_text(chat.bufnr)
end

local function install_phase()
  local p = lazy_plugin()
  if not p then
    return fail(
      'lazy.nvim has no plugin named whale-ls: '
        .. vim.inspect(vim.tbl_keys(require('lazy.core.config').plugins))
    )
  end
  out.name = p.name
  out.dir = p.dir
  out.main = require('lazy.core.loader').get_main(p)
  out.build_log = task_log()
  out.bin = vim.loop.fs_stat(p.dir .. '/bin/whale-ls') ~= nil
  out.git_status = vim.fn.system({ 'git', '-C', p.dir, 'status', '--porcelain', '--ignored=no' })
  out.whale_loaded = package.loaded['whale'] ~= nil
  out.did_setup = require('whale.config').did_setup
  -- :help whale opens the introduction.
  vim.cmd('help whale')
  out.help_file = vim.api.nvim_buf_get_name(0)
  out.help_line = vim.api.nvim_get_current_line()
  vim.cmd('close')
  -- A workspace with a file: whale-ls attaches.
  vim.cmd('cd ' .. vim.fn.fnameescape(env.WHALE_TEST_WS))
  vim.cmd('edit notes.txt')
  out.attached = wait(20000, function()
    for _, c in ipairs(vim.lsp.get_clients({ name = 'whale_ls', bufnr = 0 })) do
      if c.initialized then
        return true
      end
    end
  end)
  out.health = health()
  local chat = require('codecompanion').chat({})
  out.chat_done, out.chat_text = chat_turn(chat)
end

local function missing_phase()
  -- Startup has happened: setup() ran, CodeCompanion's extension ran.
  vim.cmd('cd ' .. vim.fn.fnameescape(env.WHALE_TEST_WS))
  vim.cmd('edit notes.txt')
  vim.cmd('edit other.txt')
  local chat = require('codecompanion').chat({})
  vim.wait(200)
  out.notes_at_start = vim.deepcopy(notes)
  out.clients_at_start = #vim.lsp.get_clients({ name = 'whale_ls' })
  out.registered_at_start = #require('whale.codecompanion').registered
  out.health_missing = health()
  notes = {}
  vim.cmd('WhaleStart')
  out.notes_whalestart = vim.deepcopy(notes)
  notes = {}
  vim.cmd('WhaleChanges')
  wait(3000, function()
    return #notes > 0
  end)
  out.notes_whalechanges = vim.deepcopy(notes)
  pcall(vim.cmd, 'close')
  notes = {}
  -- The user installs the program: lazy's build again, from the release
  -- folder now offered.
  vim.env.WHALE_RELEASE_DIR = env.WHALE_TEST_RELEASE_DIR
  require('lazy').build({ plugins = { 'whale-ls' }, wait = true, show = false })
  out.build_log = task_log()
  out.bin = vim.loop.fs_stat(plugin_dir .. '/bin/whale-ls') ~= nil
  vim.cmd('buffer ' .. vim.fn.bufnr(env.WHALE_TEST_WS .. '/notes.txt'))
  vim.cmd('WhaleStart')
  out.notes_recovered = vim.deepcopy(notes)
  out.attached = wait(20000, function()
    for _, c in ipairs(vim.lsp.get_clients({ name = 'whale_ls', bufnr = 0 })) do
      if c.initialized then
        return true
      end
    end
  end)
  out.registered = wait(20000, function()
    return #require('whale.codecompanion').registered > 0
  end)
  out.registered_count = #require('whale.codecompanion').registered
  out.health = health()
  -- The chat opened while whale-ls was missing gets the tools now.
  out.chat_done, out.chat_text = chat_turn(chat)
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  callback = function()
    vim.schedule(function()
      local ok, err = xpcall(
        env.WHALE_TEST_PHASE == 'missing' and missing_phase or install_phase,
        debug.traceback
      )
      if not ok then
        out.error = err
      end
      write_out()
      pcall(function()
        require('whale').stop()
      end)
      vim.wait(3000, function()
        return #vim.lsp.get_clients({ name = 'whale_ls' }) == 0
      end, 20)
      vim.cmd('qall!')
    end)
  end,
})
