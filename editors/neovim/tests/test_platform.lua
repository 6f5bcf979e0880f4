-- The platform helpers of whale.compat, for Linux, macOS and Windows. The
-- OS and what it answers (exepath, executable, environment) are simulated
-- with compat.set_platform, so the macOS and Windows branches run here on
-- Linux; nothing in this file starts a Windows or macOS program.
local H = require('harness')
local compat = require('whale.compat')

-- A fake system: os, the programs on PATH {name = full path}, the files
-- that are executable {path = true}, the environment.
local function fake(os_name, path, files, env)
  path, files, env = path or {}, files or {}, env or {}
  local function on_path(name)
    if path[name] then
      return path[name]
    end
    -- Windows' exepath and executable() try PATHEXT: whale-ls finds whale-ls.exe.
    if os_name == 'windows' and not name:match('%.%w+$') and path[name .. '.exe'] then
      return path[name .. '.exe']
    end
  end
  local function is_file(p)
    if files[p] then
      return p
    end
    if os_name == 'windows' and not p:match('%.%w+$') and files[p .. '.exe'] then
      return p .. '.exe'
    end
  end
  return {
    os = os_name,
    arch = 'x86_64',
    exepath = function(name)
      return on_path(name) or is_file(name) or ''
    end,
    executable = function(name)
      return (on_path(name) or is_file(name)) ~= nil
    end,
    getenv = function(name)
      return env[name]
    end,
  }
end

-- Run fn with the platform faked, restoring the real one after.
local function as(sys, fn)
  compat.set_platform(sys)
  local ok, err = pcall(fn)
  compat.set_platform(nil)
  if not ok then
    error(err, 0)
  end
end

local function each(rows, fn)
  for i, row in ipairs(rows) do
    as(fake(row[1]), function()
      local ok, err = pcall(fn, row)
      if not ok then
        error(string.format('row %d %s: %s', i, vim.inspect(row), err), 0)
      end
    end)
  end
end

return {
  {
    'the OS is detected, and faked for tests',
    function()
      H.eq(compat.os(), 'linux', 'this test machine')
      H.eq(compat.is_windows(), false, 'is_windows')
      each({
        { 'windows', true, false, 'whale-ls.exe', '\\' },
        { 'macos', false, true, 'whale-ls', '/' },
        { 'linux', false, false, 'whale-ls', '/' },
      }, function(r)
        H.eq(compat.os(), r[1], 'os')
        H.eq(compat.is_windows(), r[2], 'is_windows')
        H.eq(compat.is_macos(), r[3], 'is_macos')
        H.eq(compat.server_binary(), r[4], 'server_binary')
        H.eq(compat.sep(), r[5], 'sep')
      end)
      H.eq(compat.os(), 'linux', 'restored')
    end,
  },
  {
    'is_absolute and join per platform',
    function()
      each({
        { 'linux', '/home/me', true },
        { 'linux', 'home/me', false },
        { 'linux', 'C:\\x', false },
        { 'macos', '/Users/me', true },
        { 'macos', '~/x', false },
        { 'windows', 'C:\\Users\\me', true },
        { 'windows', 'c:/Users/me', true },
        { 'windows', '\\\\server\\share\\x', true },
        { 'windows', '\\x', true },
        { 'windows', 'C:x', false },
        { 'windows', 'x\\y', false },
        { 'windows', '', false },
      }, function(r)
        H.eq(compat.is_absolute(r[2]), r[3], 'is_absolute(' .. r[2] .. ')')
      end)
      each({
        { 'linux', '/a', 'b', '/a/b' },
        { 'linux', '/', 'b', '/b' },
        { 'macos', '/Users/me/', '.git', '/Users/me/.git' },
        { 'windows', 'C:\\repo', '.git', 'C:\\repo\\.git' },
        { 'windows', 'C:\\', '.git', 'C:\\.git' },
        { 'windows', 'C:/repo/', 'x', 'C:/repo/x' },
      }, function(r)
        H.eq(compat.join(r[2], r[3]), r[4], 'join')
      end)
    end,
  },
  {
    'same_path: case and separators ignored on Windows only',
    function()
      each({
        { 'windows', 'C:\\Users\\Me\\repo', 'c:/users/me/repo/', true },
        { 'windows', 'C:\\Repo\\A.TXT', 'c:\\repo\\a.txt', true },
        { 'windows', 'C:\\repo\\\\a.txt', 'C:/repo/a.txt', true },
        { 'windows', 'C:\\', 'c:/', true },
        { 'windows', '\\\\Server\\Share\\x', '//server/share/x', true },
        { 'windows', '\\\\server\\share', '\\server\\share', false },
        { 'windows', 'C:\\repo', 'D:\\repo', false },
        { 'windows', 'C:\\repo\\a', 'C:\\repo\\b', false },
        { 'linux', '/home/me/repo', '/home/me/repo/', true },
        { 'linux', '/home/me/Repo', '/home/me/repo', false },
        { 'linux', '/a//b', '/a/b', true },
        { 'macos', '/Users/me/Repo', '/Users/me/Repo', true },
        { 'macos', '/Users/me/Repo', '/Users/me/repo', false },
      }, function(r)
        H.eq(compat.same_path(r[2], r[3]), r[4], 'same_path')
      end)
      H.eq(compat.same_path(nil, '/x'), false, 'nil')
    end,
  },
  {
    'relative and is_inside: a workspace root and the files in it',
    function()
      each({
        { 'windows', 'C:\\Repo\\src\\a.go', 'c:\\repo', 'src\\a.go' },
        { 'windows', 'c:/repo/src/a.go', 'C:\\Repo\\', 'src\\a.go' },
        { 'windows', 'C:\\Repo', 'C:\\repo', '' },
        { 'windows', 'C:\\Repo2\\a.go', 'C:\\Repo', nil },
        { 'windows', 'D:\\Repo\\a.go', 'C:\\Repo', nil },
        { 'windows', 'C:\\x\\y', 'C:\\', 'x\\y' },
        { 'windows', '\\\\srv\\share\\p\\q', '\\\\SRV\\share', 'p\\q' },
        { 'linux', '/home/me/repo/src/a.go', '/home/me/repo', 'src/a.go' },
        { 'linux', '/home/me/repo2/a.go', '/home/me/repo', nil },
        { 'linux', '/home/me/Repo/a.go', '/home/me/repo', nil },
        { 'linux', '/etc/x', '/', 'etc/x' },
        { 'macos', '/Users/me/repo/a.go', '/Users/me/repo/', 'a.go' },
      }, function(r)
        H.eq(compat.relative(r[2], r[3]), r[4], 'relative')
        H.eq(compat.is_inside(r[2], r[3]), r[4] ~= nil, 'is_inside')
      end)
    end,
  },
  {
    'file URIs: Neovim builds and reads them, whale compares the paths',
    function()
      -- vim.uri_from_fname/vim.uri_to_fname know drive letters on every
      -- platform; edits match a URI to a buffer with same_path.
      local uri = vim.uri_from_fname('C:\\Users\\me\\a.txt')
      H.eq(uri, 'file:///C:/Users/me/a.txt', 'uri_from_fname')
      H.eq(vim.uri_to_fname(uri), 'C:\\Users\\me\\a.txt', 'uri_to_fname')
      as(fake('windows'), function()
        H.ok(
          compat.same_path(vim.uri_to_fname('file:///c%3A/users/ME/a.txt'), 'C:\\Users\\me\\a.txt'),
          'c%3A and C: name one file'
        )
        H.ok(
          compat.same_path(vim.uri_to_fname('file:///C:/Users/me/a.txt'), 'c:/users/me/A.TXT'),
          'case'
        )
      end)
      as(fake('linux'), function()
        H.ok(
          not compat.same_path(vim.uri_to_fname('file:///home/me/A.txt'), '/home/me/a.txt'),
          'case matters on Linux'
        )
        H.eq(
          vim.uri_to_fname(vim.uri_from_fname('/home/me/a b#.txt')),
          '/home/me/a b#.txt',
          'round trip'
        )
      end)
    end,
  },
  {
    'find_program: PATH, a configured path, .exe, and where go install puts it',
    function()
      local rows = {
        -- os, PATH, executable files, env, program, want
        {
          'linux',
          { ['whale-ls'] = '/usr/local/bin/whale-ls' },
          {},
          {},
          'whale-ls',
          '/usr/local/bin/whale-ls',
        },
        { 'linux', {}, { ['/opt/w/whale-ls'] = true }, {}, '/opt/w/whale-ls', '/opt/w/whale-ls' },
        {
          'linux',
          {},
          { ['/home/me/go/bin/whale-ls'] = true },
          { HOME = '/home/me' },
          'whale-ls',
          '/home/me/go/bin/whale-ls',
        },
        {
          'linux',
          {},
          { ['/home/me/.local/bin/whale-ls'] = true },
          { HOME = '/home/me' },
          'whale-ls',
          '/home/me/.local/bin/whale-ls',
        },
        {
          'linux',
          {},
          { ['/g/bin/whale-ls'] = true, ['/home/me/go/bin/whale-ls'] = true },
          { HOME = '/home/me', GOBIN = '/g/bin' },
          'whale-ls',
          '/g/bin/whale-ls',
        },
        {
          'linux',
          {},
          { ['/p1/bin/whale-ls'] = true },
          { HOME = '/home/me', GOPATH = '/p1:/p2' },
          'whale-ls',
          '/p1/bin/whale-ls',
        },
        { 'linux', {}, {}, { HOME = '/home/me' }, '/opt/w/whale-ls', nil },
        {
          'linux',
          {},
          { ['/home/me/go/bin/whale-ls'] = true },
          { HOME = '/home/me' },
          '/opt/w/whale-ls',
          nil,
        },
        {
          'macos',
          {},
          { ['/Users/me/go/bin/whale-ls'] = true },
          { HOME = '/Users/me' },
          'whale-ls',
          '/Users/me/go/bin/whale-ls',
        },
        {
          'macos',
          { ['whale-ls'] = '/opt/homebrew/bin/whale-ls' },
          {},
          { HOME = '/Users/me' },
          'whale-ls',
          '/opt/homebrew/bin/whale-ls',
        },
        {
          'windows',
          { ['whale-ls.exe'] = 'C:\\bin\\whale-ls.exe' },
          {},
          {},
          'whale-ls',
          'C:\\bin\\whale-ls.exe',
        },
        {
          'windows',
          {},
          { ['C:\\Users\\me\\go\\bin\\whale-ls.exe'] = true },
          { USERPROFILE = 'C:\\Users\\me' },
          'whale-ls',
          'C:\\Users\\me\\go\\bin\\whale-ls.exe',
        },
        {
          'windows',
          {},
          { ['D:\\go\\bin\\whale-ls.exe'] = true },
          { USERPROFILE = 'C:\\Users\\me', GOPATH = 'D:\\go;E:\\other' },
          'whale-ls',
          'D:\\go\\bin\\whale-ls.exe',
        },
        {
          'windows',
          {},
          { ['C:\\tools\\whale-ls.exe'] = true },
          {},
          'C:\\tools\\whale-ls',
          'C:\\tools\\whale-ls.exe',
        },
        {
          'windows',
          {},
          { ['C:\\tools\\whale-ls.exe'] = true },
          {},
          'C:\\tools\\whale-ls.exe',
          'C:\\tools\\whale-ls.exe',
        },
        {
          'windows',
          {},
          { ['C:\\Users\\me\\.local\\bin\\whale-ls.exe'] = true },
          { USERPROFILE = 'C:\\Users\\me' },
          'whale-ls',
          nil,
        },
        { 'windows', {}, {}, { USERPROFILE = 'C:\\Users\\me' }, 'whale-ls', nil },
      }
      for i, r in ipairs(rows) do
        as(fake(r[1], r[2], r[3], r[4]), function()
          local got, tried = compat.find_program(r[5])
          if got ~= r[6] then
            error(
              string.format(
                'row %d (%s, %s): got %s, want %s; tried %s',
                i,
                r[1],
                r[5],
                tostring(got),
                tostring(r[6]),
                vim.inspect(tried)
              ),
              0
            )
          end
        end)
      end
      -- server_cmd keeps the arguments and keeps cmd when nothing is found.
      as(fake('windows', { ['whale-ls.exe'] = 'C:\\bin\\whale-ls.exe' }), function()
        H.eq(
          compat.server_cmd({ 'whale-ls', 'serve' }),
          { 'C:\\bin\\whale-ls.exe', 'serve' },
          'server_cmd'
        )
        H.eq(compat.server_cmd({ 'nope', 'serve' }), { 'nope', 'serve' }, 'server_cmd not found')
      end)
    end,
  },
  {
    'the server command is resolved for the LSP client and the MCP entry',
    function()
      H.workspace({ ['a.txt'] = 'x\n' })
      -- run.sh puts the built whale-ls on PATH as whale-ls.
      require('whale').setup({ cmd = { 'whale-ls' }, autostart = false })
      local cfg = require('whale').lsp_config(vim.fn.getcwd())
      H.eq(cfg.cmd, { vim.fn.exepath('whale-ls') }, 'lsp cmd')
      H.ok(compat.is_absolute(cfg.cmd[1]), 'absolute')
      local mcp = require('whale').mcp_config(vim.fn.getcwd())
      H.eq(mcp.mcpServers.whale.command, vim.fn.exepath('whale-ls'), 'mcp command')
      H.eq(mcp.mcpServers.whale.args, { 'mcp', '--root', vim.fn.getcwd() }, 'mcp args')
    end,
  },
  {
    'lines: CRLF line ends do not show as ^M',
    function()
      H.eq(compat.lines('a\r\nb\r\n'), { 'a', 'b', '' }, 'CRLF')
      H.eq(compat.lines('a\nb'), { 'a', 'b' }, 'LF')
      H.eq(compat.lines('a\rb\r\n'), { 'a\rb', '' }, 'a lone CR stays')
      H.eq(compat.lines(nil), { '' }, 'nil')
    end,
  },
  {
    ':WhaleChanges names files relative to a Windows root, whatever the case',
    function()
      as(fake('windows'), function()
        local lines = require('whale.changes').render('C:\\Users\\me\\repo', {
          {
            id = 'x1',
            time = '',
            tool = 'edit',
            summary = 's',
            files = { { path = 'c:\\users\\me\\repo\\src\\a.go', added = 1, removed = 0 } },
          },
        }, 0)
        H.contains(table.concat(lines, '\n'), ' src\\a.go ', 'relative name')
      end)
    end,
  },
  {
    ':checkhealth whale reports the platform and the exec boundary there',
    function()
      H.workspace({ ['a.txt'] = 'x\n' })
      H.setup({ autostart = false })
      local function health()
        vim.cmd('silent checkhealth whale')
        local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
        -- 0.11 shows the report in the current window when it is empty.
        if #vim.api.nvim_list_tabpages() > 1 then
          vim.cmd('tabclose')
        else
          vim.cmd('enew')
        end
        return text
      end
      local text = health()
      H.contains(text, 'whale: platform', 'section')
      H.contains(text, 'Linux', 'Linux')
      H.contains(text, 'seccomp gate checks every program', 'Linux boundary')
      H.ok(not text:find('ERROR', 1, true), 'no error in:\n' .. text)
      -- The macOS and Windows texts, with the real binary (its path is
      -- absolute on both).
      as({ os = 'macos' }, function()
        text = health()
      end)
      H.contains(text, 'macOS', 'macOS')
      H.contains(text, 'no seccomp gate here', 'macOS boundary')
      H.contains(text, 'are not checked', 'macOS says what is not checked')
      H.contains(text, 'Seatbelt', 'macOS confinement')
      as({ os = 'windows' }, function()
        text = health()
      end)
      H.contains(text, 'Windows', 'Windows')
      H.contains(text, 'no seccomp gate here', 'Windows boundary')
      H.contains(text, 'ConPTY', 'Windows tasks')
      H.contains(text, 'PowerShell', 'Windows shell')
    end,
  },
}
