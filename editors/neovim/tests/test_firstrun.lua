-- The first run, on every Neovim: a missing or broken whale-ls is told once
-- (naming :checkhealth whale), :WhaleStart says why it cannot start, and once
-- the program is there :WhaleStart starts it and attaches it without a
-- restart (the chat-plugin side is shown with the stand-in CodeCompanion
-- here; test_install.lua proves it with the real one under lazy.nvim).
-- And build.lua's two ways, run as the plugin's build step runs them: a
-- release folder (a damaged archive refused) and go build.
local H = require('harness')

local tests = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local repo = vim.fn.fnamemodify(tests, ':h:h:h')
vim.opt.runtimepath:append(tests .. '/standins')

local notes = {}
local real_notify = vim.notify
local function record()
  notes = {}
  vim.notify = function(msg, level)
    table.insert(notes, { msg = tostring(msg), level = level })
  end
end
local function whale_notes()
  local out = {}
  for _, n in ipairs(notes) do
    if n.msg:match('^whale') then
      table.insert(out, n.msg)
    end
  end
  return out
end

local bin = vim.fn.tempname()
vim.fn.mkdir(bin, 'p')
local program = bin .. '/whale-ls'

local function attached(buf)
  for _, c in ipairs(require('whale.compat').get_clients({ name = 'whale_ls' })) do
    if c.initialized and c.attached_buffers and c.attached_buffers[buf] then
      return true
    end
  end
end

return {
  {
    'a missing whale-ls: one message naming :checkhealth whale for setup, two files and the chat extension; :WhaleStart and :WhaleChanges say the same',
    function()
      H.workspace({ ['a.txt'] = 'a\n', ['b.txt'] = 'b\n' })
      record()
      require('whale').setup({ cmd = { program } })
      require('codecompanion').setup({ extensions = { whale = { opts = {} } } })
      vim.cmd('edit a.txt')
      vim.cmd('edit b.txt')
      vim.wait(300)
      local got = whale_notes()
      H.eq(#got, 1, 'one message: ' .. vim.inspect(got))
      H.contains(got[1], 'cannot find ' .. program, 'the message')
      H.contains(got[1], ':checkhealth whale', 'the message')
      H.eq(#require('whale.compat').get_clients({ name = 'whale_ls' }), 0, 'no client')
      H.eq(#require('whale.codecompanion').registered, 0, 'no tools registered')
      record()
      vim.cmd('WhaleStart')
      got = whale_notes()
      H.eq(#got, 1, ':WhaleStart: ' .. vim.inspect(got))
      H.contains(got[1], 'cannot find ' .. program, ':WhaleStart')
      H.ok(not got[1]:find('nil', 1, true), ':WhaleStart never says nil: ' .. got[1])
      record()
      vim.cmd('WhaleChanges')
      H.wait(function()
        return #whale_notes() > 0
      end, 'the :WhaleChanges message')
      H.contains(whale_notes()[1], 'cannot find ' .. program, ':WhaleChanges')
      pcall(vim.cmd, 'close')
    end,
  },
  {
    'once whale-ls is installed, :WhaleStart starts it, attaches it to the open files and the chat extension registers the tools, without a restart',
    function()
      vim.fn.writefile(vim.fn.readfile(vim.env.WHALE_LS, 'b'), program, 'b')
      vim.fn.setfperm(program, 'rwxr-xr-x')
      record()
      vim.cmd('buffer a.txt')
      vim.cmd('WhaleStart')
      H.contains(table.concat(whale_notes(), '\n'), 'whale-ls started for ', ':WhaleStart')
      local a, b = vim.fn.bufnr('a.txt'), vim.fn.bufnr('b.txt')
      H.wait(function()
        return attached(a) and attached(b)
      end, 'whale-ls attached to both files')
      H.wait(function()
        return #require('whale.codecompanion').registered > 0
      end, 'the CodeCompanion tools')
      local tools = require('codecompanion.config').interactions.chat.tools
      H.ok(
        tools.groups.whale and #tools.groups.whale.tools >= 20,
        'the whale group holds the tools'
      )
      -- The @ menu lists the group only (menu = 'group'); tools work typed.
      H.eq(tools.whale_read_file.visible, false, 'whale_read_file not in the @ menu')
      local status
      require('codecompanion').run_tool(
        'whale_read_file',
        { file_path = 'a.txt' },
        19,
        nil,
        function(st)
          status = st
        end
      )
      H.wait(function()
        return status
      end, 'the tool to run')
      H.eq(status, 'success', 'a tool runs')
      require('whale').stop()
      H.wait(function()
        return #require('whale.compat').get_clients({ name = 'whale_ls' }) == 0
      end, 'the client to stop')
    end,
  },
  {
    'a whale-ls that does not run is told with its exit and output, once',
    function()
      vim.fn.writefile(
        { '#!/bin/sh', 'echo "cannot execute: wrong architecture" >&2', 'exit 126' },
        program
      )
      vim.fn.setfperm(program, 'rwxr-xr-x')
      record()
      require('whale').setup({ cmd = { program } })
      vim.cmd('edit! a.txt')
      vim.wait(300)
      local got = whale_notes()
      H.eq(#got, 1, 'one message: ' .. vim.inspect(got))
      H.contains(
        got[1],
        program
          .. ' does not run (`whale-ls version`: exit code 126: cannot execute: wrong architecture)',
        'the message'
      )
      H.contains(got[1], ':checkhealth whale', 'the message')
      vim.notify = real_notify
    end,
  },
  {
    'build.lua: a release folder installs the archive for this machine after checking its SHA-256, and refuses a damaged one',
    function()
      local build = dofile(repo .. '/lua/whale/build.lua')
      local goos, goarch = build.target()
      if goos ~= 'linux' then
        H.log('  (skipped: this case builds a linux archive)')
        return
      end
      local root = vim.fn.tempname()
      local rel = vim.fn.tempname()
      vim.fn.mkdir(root, 'p')
      local name = build.archive_name('v1.2.3', goos, goarch)
      H.eq(name, 'whale-ls_1.2.3_linux_' .. goarch .. '.tar.gz', 'archive name')
      local folder = name:gsub('%.tar%.gz$', '')
      vim.fn.mkdir(rel .. '/' .. folder, 'p')
      vim.fn.writefile(
        vim.fn.readfile(vim.env.WHALE_LS, 'b'),
        rel .. '/' .. folder .. '/whale-ls',
        'b'
      )
      vim.fn.setfperm(rel .. '/' .. folder .. '/whale-ls', 'rwxr-xr-x')
      vim.fn.system({ 'tar', '-C', rel, '-czf', rel .. '/' .. name, folder })
      H.eq(vim.v.shell_error, 0, 'tar')
      -- The sum as sha256sum writes it (the plugin's own SHA-256 where that
      -- program is missing).
      local sum
      if vim.fn.executable('sha256sum') == 1 then
        sum = vim.fn.system({ 'sha256sum', rel .. '/' .. name }):match('^%x+')
      else
        local fh = assert(io.open(rel .. '/' .. name, 'rb'))
        sum = build.sha256(fh:read('*a'))
        fh:close()
      end
      H.ok(sum and #sum == 64, 'sha256')
      vim.fn.writefile({ sum .. '  ' .. name }, rel .. '/SHA256SUMS')
      vim.env.WHALE_RELEASE_DIR = rel
      local ok, msg = build.run({ root = root })
      H.ok(ok, 'build: ' .. tostring(msg))
      H.contains(
        msg,
        'installed ' .. name .. ' from ' .. rel .. ' (SHA-256 checked)',
        'says what it did'
      )
      H.eq(vim.fn.executable(root .. '/bin/whale-ls'), 1, 'bin/whale-ls')
      -- The archive named with the tag's v (as `make release` names it at
      -- tag v1.2.3) is found for version 1.2.3 too.
      local tagged = name:gsub('^whale%-ls_', 'whale-ls_v')
      H.eq(
        build.listed_archive(sum .. '  ' .. tagged, '1.2.3', goos, goarch),
        tagged,
        'the v-named archive'
      )
      H.eq(
        build.listed_archive(sum .. '  ' .. name, 'v1.2.3', goos, goarch),
        name,
        'the plain-named archive'
      )
      H.eq(build.listed_archive(sum .. '  ' .. name, '1.2.4', goos, goarch), nil, 'another version')
      vim.fn.rename(rel .. '/' .. name, rel .. '/' .. tagged)
      vim.fn.writefile({ sum .. '  ' .. tagged }, rel .. '/SHA256SUMS')
      os.remove(root .. '/bin/whale-ls')
      vim.env.WHALE_VERSION = '1.2.3'
      ok, msg = build.run({ root = root })
      vim.env.WHALE_VERSION = nil
      H.ok(ok, 'build of the v-named archive: ' .. tostring(msg))
      H.contains(msg, 'installed ' .. tagged, 'says what it did')
      vim.fn.rename(rel .. '/' .. tagged, rel .. '/' .. name)
      -- A damaged archive: nothing installed, and the message says why.
      os.remove(root .. '/bin/whale-ls')
      vim.fn.writefile({ string.rep('0', 64) .. '  ' .. name }, rel .. '/SHA256SUMS')
      ok, msg = build.run({ root = root })
      vim.env.WHALE_RELEASE_DIR = nil
      H.eq(ok, false, 'refused')
      H.contains(msg, 'is damaged or not the released file', 'the reason')
      H.contains(msg, 'nothing was installed', 'the reason')
      H.eq(vim.loop.fs_stat(root .. '/bin/whale-ls'), nil, 'nothing installed')
    end,
  },
  {
    'build.lua: off a release tag, with go installed, it builds from the source and says so',
    function()
      if vim.fn.executable('go') == 0 then
        H.log('  (skipped: go is not installed)')
        return
      end
      -- A copy of this working tree that is not at a release tag.
      local root = vim.fn.tempname()
      vim.fn.mkdir(root, 'p')
      vim.fn.system({
        'sh',
        '-c',
        'git -C "$1" ls-files -z --cached --others --exclude-standard | (cd "$1" && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$2"',
        'sh',
        repo,
        root,
      })
      H.eq(vim.v.shell_error, 0, 'copy of the working tree')
      local ok, msg = dofile(repo .. '/lua/whale/build.lua').run({ root = root })
      H.ok(ok, 'build: ' .. tostring(msg))
      H.contains(msg, "with go from the plugin's source", 'says what it did')
      H.eq(vim.fn.executable(root .. '/bin/whale-ls'), 1, 'bin/whale-ls')
    end,
  },
  {
    'build.lua: a release that cannot be downloaded says why and the three ways on, and installs nothing',
    function()
      if vim.fn.executable('curl') == 0 and vim.fn.executable('wget') == 0 then
        H.log('  (skipped: neither curl nor wget is installed)')
        return
      end
      local build = dofile(repo .. '/lua/whale/build.lua')
      -- A port nothing listens on: the download fails at once, offline.
      local probe = vim.loop.new_tcp()
      probe:bind('127.0.0.1', 0)
      local port = probe:getsockname().port
      probe:close()
      build.release_url = 'http://127.0.0.1:' .. port .. '/releases/download'
      local root = vim.fn.tempname()
      vim.fn.mkdir(root, 'p')
      vim.env.WHALE_BUILD, vim.env.WHALE_VERSION = 'release', '1.2.3'
      local ok, msg = build.run({ root = root })
      vim.env.WHALE_BUILD, vim.env.WHALE_VERSION = nil, nil
      H.eq(ok, false, 'failed')
      H.contains(msg, 'cannot download the v1.2.3 release (', 'what failed')
      H.contains(msg, 'WHALE_BUILD=go', 'the way with Go')
      H.contains(msg, 'WHALE_RELEASE_DIR=<folder>', 'the way offline')
      H.ok(not msg:find('\n', 1, true), 'one line: ' .. msg)
      H.eq(vim.fn.glob(root .. '/bin/*', true, true), {}, 'nothing installed')
    end,
  },
}
