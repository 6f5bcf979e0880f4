-- Installing the plugin the way users do: lazy.nvim's short form
-- { 'whale-ls/whale-ls', opts = {} } from a git remote (a local bare clone
-- of this working tree, tagged v0.9.0; lazy's git.url_format points at it,
-- so the test is offline), whose build.lua installs whale-ls from a folder
-- of release files (WHALE_RELEASE_DIR: the archive and SHA256SUMS, made here
-- from the whale-ls under test as a release is). Each phase runs
-- tests/lazy_user.lua as the init.lua of a child Neovim with no whale-ls on
-- PATH, next to the real CodeCompanion whose model is the scripted one.
--
-- With WHALE_TEST_ARTIFACTS naming a folder, what the user saw in each
-- phase (lazy's build log, :checkhealth whale, the messages, the chat) is
-- written there as install-<phase>.txt.
--
-- Needs Neovim 0.11 and, in WHALE_NVIM_PLUGINS, extracted lazy.nvim-*,
-- codecompanion.nvim-* (the newest is used) and plenary.nvim-* folders
-- (.ci/run extracts them from ../shared/testbed), plus git, tar, python3
-- and curl.
local H = require('harness')
local scripted = require('scripted')

local plugins = vim.env.WHALE_NVIM_PLUGINS or ''
local function plugin(name)
  local all = vim.fn.glob(plugins .. '/' .. name .. '-*', false, true)
  table.sort(all)
  return all[#all]
end

local missing
if vim.fn.has('nvim-0.11') == 0 then
  missing = 'Neovim 0.11 (set WHALE_NVIM_011 to its bin/nvim)'
elseif plugins == '' then
  missing =
    'lazy.nvim, CodeCompanion and plenary (set WHALE_NVIM_PLUGINS to a folder of extracted lazy.nvim-*, codecompanion.nvim-* and plenary.nvim-* folders)'
else
  for _, name in ipairs({ 'lazy.nvim', 'codecompanion.nvim', 'plenary.nvim' }) do
    if not plugin(name) then
      missing = name .. ' (extract ' .. name .. '-* into WHALE_NVIM_PLUGINS)'
      break
    end
  end
  for _, prog in ipairs({ 'git', 'tar' }) do
    if not missing and vim.fn.executable(prog) == 0 then
      missing = prog
    end
  end
  missing = missing or scripted.missing()
end
if missing then
  local msg = 'the lazy.nvim install test needs ' .. missing
  if vim.env.CI == 'true' and vim.fn.has('nvim-0.11') == 1 then
    return { {
      'install: ' .. msg,
      function()
        H.fail(msg)
      end,
    } }
  end
  H.log('SKIP test_install: ' .. msg)
  return {}
end

local tests = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local repo = vim.fn.fnamemodify(tests, ':h:h:h')
local version = '0.9.0'

local function sh(argv)
  local out = vim.fn.system(argv)
  if vim.v.shell_error ~= 0 then
    H.fail(table.concat(argv, ' ') .. ' failed: ' .. out, 2)
  end
  return out
end

local work = vim.fn.tempname()
local lazy_root = work .. '/lazy'
local remotes = work .. '/remotes'
local release = work .. '/release'
local home = work .. '/home'

--- The remote lazy clones: this working tree's files (tracked, and new
--- ones not ignored) committed and tagged v<version>.
local function make_remote()
  local src = work .. '/src'
  vim.fn.mkdir(src, 'p')
  sh({
    'sh',
    '-c',
    'git -C "$1" ls-files -z --cached --others --exclude-standard | (cd "$1" && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$2"',
    'sh',
    repo,
    src,
  })
  sh({ 'git', 'init', '-q', src })
  sh({ 'git', '-C', src, 'add', '-A' })
  sh({
    'git',
    '-C',
    src,
    '-c',
    'user.name=test',
    '-c',
    'user.email=test@example.com',
    'commit',
    '-q',
    '-m',
    'whale-ls',
  })
  sh({ 'git', '-C', src, 'tag', 'v' .. version })
  vim.fn.mkdir(remotes .. '/whale-ls', 'p')
  sh({ 'git', 'clone', '-q', '--bare', src, remotes .. '/whale-ls/whale-ls.git' })
end

--- A release folder as the release build makes it: the archive holds one
--- folder of its own name with whale-ls, README.md and LICENSE; SHA256SUMS
--- in sha256sum's format (written by sha256sum when it is installed).
local function make_release()
  local name = string.format('whale-ls_%s_linux_amd64', version)
  local stage = work .. '/stage/' .. name
  vim.fn.mkdir(stage, 'p')
  vim.fn.mkdir(release, 'p')
  sh({ 'cp', vim.env.WHALE_LS, stage .. '/whale-ls' })
  sh({ 'cp', repo .. '/README.md', stage .. '/README.md' })
  vim.fn.writefile({ 'license' }, stage .. '/LICENSE')
  sh({ 'tar', '-C', work .. '/stage', '-czf', release .. '/' .. name .. '.tar.gz', name })
  if vim.fn.executable('sha256sum') == 1 then
    sh({ 'sh', '-c', 'cd "$1" && sha256sum *.tar.gz > SHA256SUMS', 'sh', release })
  else
    local f = assert(io.open(release .. '/' .. name .. '.tar.gz', 'rb'))
    local bytes = f:read('*a')
    f:close()
    local sum = dofile(repo .. '/lua/whale/build.lua').sha256(bytes)
    vim.fn.writefile({ sum .. '  ' .. name .. '.tar.gz' }, release .. '/SHA256SUMS')
  end
end

--- PATH without any folder holding a whale-ls.
local function path_without_whale()
  local keep = {}
  for _, dir in ipairs(vim.split(vim.env.PATH or '', ':', { plain = true })) do
    if dir ~= '' and vim.fn.executable(dir .. '/whale-ls') == 0 then
      table.insert(keep, dir)
    end
  end
  return table.concat(keep, ':')
end

local model, ws

--- Run lazy_user.lua in a child Neovim for phase; returns what it saw.
local function child(phase, extra_env)
  local result = work .. '/' .. phase .. '.json'
  local envs = {
    PATH = path_without_whale(),
    HOME = home,
    GOBIN = '',
    GOPATH = '',
    WHALE_TEST_PHASE = phase,
    WHALE_TEST_OUT = result,
    WHALE_TEST_LAZY = plugin('lazy.nvim'),
    WHALE_TEST_LAZY_ROOT = lazy_root,
    WHALE_TEST_REMOTES = remotes,
    WHALE_TEST_CC = plugin('codecompanion.nvim'),
    WHALE_TEST_PLENARY = plugin('plenary.nvim'),
    WHALE_TEST_MODEL_URL = model.url,
    WHALE_TEST_WS = ws,
    WHALE_RELEASE_DIR = '',
    WHALE_BUILD = '',
  }
  for k, v in pairs(extra_env or {}) do
    envs[k] = v
  end
  local output = {}
  local code
  local job = vim.fn.jobstart({
    vim.v.progpath,
    '--headless',
    '-u',
    tests .. '/lazy_user.lua',
    '-i',
    'NONE',
    '-n',
  }, {
    env = envs,
    on_stdout = function(_, d)
      vim.list_extend(output, d)
    end,
    on_stderr = function(_, d)
      vim.list_extend(output, d)
    end,
    on_exit = function(_, c)
      code = c
    end,
  })
  H.ok(job > 0, 'the child Neovim started')
  H.wait_loop(function()
    return code ~= nil
  end, 'the child Neovim (' .. phase .. ') to finish', 240000)
  local text = H.read(result)
  if not text then
    H.fail(
      string.format(
        'the child Neovim (%s) exited with %d and wrote nothing; its output:\n%s',
        phase,
        code,
        table.concat(output, '\n')
      )
    )
  end
  local seen = vim.json.decode(text)
  -- What the user saw, kept when WHALE_TEST_ARTIFACTS names a folder.
  local artifacts = vim.env.WHALE_TEST_ARTIFACTS
  if artifacts and artifacts ~= '' then
    vim.fn.mkdir(artifacts, 'p')
    local lines = {}
    for _, key in ipairs({ 'build_log', 'health_missing', 'health', 'chat_text' }) do
      if type(seen[key]) == 'string' then
        table.insert(lines, '== ' .. key)
        vim.list_extend(lines, vim.split(seen[key], '\n', { plain = true }))
      end
    end
    for _, key in ipairs({
      'notes_at_start',
      'notes_whalestart',
      'notes_whalechanges',
      'notes_recovered',
    }) do
      if type(seen[key]) == 'table' then
        table.insert(lines, '== ' .. key)
        for _, n in ipairs(seen[key]) do
          table.insert(lines, n.msg)
        end
      end
    end
    vim.fn.writefile(lines, artifacts .. '/install-' .. phase .. '.txt')
  end
  if seen.error and seen.error ~= vim.NIL then
    H.fail('the child Neovim (' .. phase .. ') failed: ' .. tostring(seen.error))
  end
  return seen
end

local function whale_notes(list)
  local out = {}
  for _, n in ipairs(list or {}) do
    if n.msg:match('^whale') then
      table.insert(out, n.msg)
    end
  end
  return out
end

--- The scripted model's requests: the tools of the last one, and that the
--- tool result (notes.txt's text) came back.
local function check_turn(seen, what)
  H.ok(seen.chat_done, what .. ': the final answer in the chat:\n' .. tostring(seen.chat_text))
  local reqs = model.requests()
  H.ok(#reqs >= 2, what .. ': two requests, got ' .. #reqs)
  local offered = scripted.offered(reqs[1])
  local n = 0
  for name in pairs(offered) do
    if name:match('^whale_') then
      n = n + 1
    end
  end
  H.ok(
    n >= 20,
    what .. ': @{whale} offered ' .. n .. ' whale tools: ' .. vim.inspect(vim.tbl_keys(offered))
  )
  H.ok(offered.whale_read_file, what .. ': whale_read_file offered')
  local results = scripted.tool_messages(reqs[#reqs])
  H.ok(#results > 0, what .. ': a tool result went back')
  H.contains(results[1].content, 'installed by lazy', what .. ': the tool result')
end

return {
  {
    "lazy.nvim installs { 'whale-ls/whale-ls' } by its short form; build.lua installs the release archive (checksum checked); :help whale, :checkhealth whale and a CodeCompanion chat with @{whale} work",
    function()
      vim.fn.mkdir(home, 'p')
      make_remote()
      make_release()
      ws = work .. '/ws'
      vim.fn.mkdir(ws .. '/.git', 'p')
      vim.fn.writefile({ 'whale installed by lazy', 'second line' }, ws .. '/notes.txt')
      vim.fn.writefile({ 'other' }, ws .. '/other.txt')
      model = scripted.start(
        { { tool = 'whale_read_file', arguments = { file_path = 'notes.txt' } } },
        'The file says hello.'
      )
      local seen = child('install', { WHALE_RELEASE_DIR = release })
      H.eq(seen.name, 'whale-ls', 'the name in :Lazy')
      H.eq(seen.dir, lazy_root .. '/whale-ls', 'where lazy put it')
      H.eq(
        seen.main,
        'whale_ls',
        "lazy's main module (opts = {} calls require('whale_ls').setup, which is whale's)"
      )
      H.ok(seen.did_setup, "require('whale').setup() ran")
      H.contains(
        seen.build_log,
        'installed whale-ls_'
          .. version
          .. '_linux_amd64.tar.gz from '
          .. release
          .. ' (SHA-256 checked)',
        'the build says what it did'
      )
      H.ok(seen.bin, 'bin/whale-ls installed')
      H.eq(seen.git_status, '', 'the clone has no new or changed files (doc/tags ships)')
      H.contains(seen.help_file, '/whale-ls/doc/whale.txt', ':help whale')
      H.contains(seen.help_line, '*whale*', ':help whale lands on the introduction')
      H.ok(seen.attached, 'whale-ls attached to notes.txt')
      H.contains(
        seen.health,
        'found ' .. lazy_root .. '/whale-ls/bin/whale-ls',
        'health: the program'
      )
      H.contains(seen.health, '(running): root ' .. ws, 'health: the running client')
      H.contains(seen.health, 'CodeCompanion: ', 'health: CodeCompanion')
      H.contains(
        seen.health,
        'whale tools registered in the group @{whale}',
        'health: CodeCompanion'
      )
      H.ok(
        not seen.health:find('ERROR', 1, true),
        'no error in the health report:\n' .. seen.health
      )
      H.eq(whale_notes(seen.notes), {}, 'no whale message at startup')
      check_turn(seen, 'chat')
    end,
  },
  {
    'a missing whale-ls: one message naming :checkhealth whale; :WhaleStart and :WhaleChanges say the same; after the build, :WhaleStart gives a chat opened before it the tools, without a restart',
    function()
      H.ok(model, 'the first case ran')
      model.play(
        { { tool = 'whale_read_file', arguments = { file_path = 'notes.txt' } } },
        'The file says hello.'
      )
      local seen = child('missing', { WHALE_TEST_RELEASE_DIR = release })
      H.ok(seen.missing_before, 'the program was removed')
      local start = whale_notes(seen.notes_at_start)
      H.eq(
        #start,
        1,
        'one whale message at startup (two files opened, CodeCompanion set up): '
          .. vim.inspect(start)
      )
      H.contains(start[1], 'cannot find whale-ls', 'the message')
      H.contains(start[1], ':checkhealth whale', 'the message names :checkhealth whale')
      H.eq(seen.clients_at_start, 0, 'no client started')
      H.eq(seen.registered_at_start, 0, 'no CodeCompanion tools yet')
      H.contains(seen.health_missing, 'cannot find whale-ls', 'health')
      H.contains(seen.health_missing, ':Lazy build whale-ls', 'health: how to install')
      H.contains(
        seen.health_missing,
        'CodeCompanion: whale tools not registered',
        'health: CodeCompanion'
      )
      local ws_notes = whale_notes(seen.notes_whalestart)
      H.eq(#ws_notes, 1, ':WhaleStart says one thing: ' .. vim.inspect(ws_notes))
      H.contains(ws_notes[1], 'cannot find whale-ls', ':WhaleStart')
      H.ok(not ws_notes[1]:find('nil', 1, true), ':WhaleStart never says nil: ' .. ws_notes[1])
      local wc = table.concat(whale_notes(seen.notes_whalechanges), '\n')
      H.contains(wc, 'cannot find whale-ls', ':WhaleChanges')
      H.ok(
        not wc:find('Spawning') and not wc:find('ENOENT'),
        ':WhaleChanges shows no raw spawn error: ' .. wc
      )
      H.contains(seen.build_log, 'installed whale-ls_' .. version, 'the build ran again')
      H.ok(seen.bin, 'bin/whale-ls is back')
      H.contains(
        table.concat(whale_notes(seen.notes_recovered), '\n'),
        'whale-ls started for ' .. ws,
        ':WhaleStart'
      )
      H.ok(
        seen.attached,
        'whale-ls attached after :WhaleStart; messages: '
          .. vim.inspect(seen.notes_recovered)
          .. '\nbuild: '
          .. tostring(seen.build_log)
      )
      H.ok(seen.registered, 'the CodeCompanion tools registered without a restart')
      H.ok(seen.registered_count >= 20, 'registered ' .. seen.registered_count)
      H.ok(
        not seen.health:find('ERROR', 1, true),
        'no error in the health report:\n' .. seen.health
      )
      check_turn(seen, 'the chat opened before whale-ls was installed')
      model.stop()
    end,
  },
}
