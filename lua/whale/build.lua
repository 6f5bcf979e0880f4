-- whale.build: gets the whale-ls program for the plugin (build.lua at the
-- plugin's root runs it; lazy.nvim runs that file after an install or
-- update). Into <plugin>/bin/whale-ls (whale-ls.exe on Windows), where the
-- plugin looks after PATH. Two ways:
--
-- - a release archive: whale-ls_<version>_<os>_<arch>.tar.gz (.zip on
--   Windows) and SHA256SUMS, downloaded from the project's GitHub release
--   v<version> with curl (or wget), or taken from the folder
--   $WHALE_RELEASE_DIR (offline installs, tests). The archive's SHA-256 must
--   match its line in SHA256SUMS; nothing is installed otherwise.
-- - `go build -o bin/whale-ls ./cmd/whale-ls` in the plugin's folder (a
--   clone of the whole repository), when the go command is there.
--
-- Which one: $WHALE_BUILD = 'release' or 'go' decides. Otherwise a release
-- when $WHALE_RELEASE_DIR is set or the plugin is checked out at a release
-- tag (v<version>; lazy.nvim's `version = '*'`), else go when it is
-- installed (the program then matches the plugin's source), else the
-- release of the newest tag before the checkout.
--
-- Loaded with dofile by build.lua (not require: under lazy.nvim a require
-- would load, and set up, the plugin before its program exists). Works on
-- Neovim 0.7.2 and newer; no other plugin needed.
local M = {}

M.release_url = 'https://github.com/whale-ls/whale-ls/releases/download'

local uv = vim.loop

--------------------------------------------------------------------------
-- SHA-256 (FIPS 180-4) in Lua with the bit library Neovim has (LuaJIT's,
-- or the one Neovim bundles for PUC Lua): Neovim's sha256() refuses bytes
-- that are not text, and no checksum program is common to every platform.

local band, bor, bxor, bnot = bit.band, bit.bor, bit.bxor, bit.bnot
local rshift, lshift, ror, tobit = bit.rshift, bit.lshift, bit.ror, bit.tobit

local K = {
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
}

local function compress(H, s, at, W)
  for i = 0, 15 do
    local a, b, c, d = s:byte(at + i * 4, at + i * 4 + 3)
    W[i] = bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), d)
  end
  for i = 16, 63 do
    local w15, w2 = W[i - 15], W[i - 2]
    local s0 = bxor(ror(w15, 7), ror(w15, 18), rshift(w15, 3))
    local s1 = bxor(ror(w2, 17), ror(w2, 19), rshift(w2, 10))
    W[i] = tobit(W[i - 16] + s0 + W[i - 7] + s1)
  end
  local a, b, c, d, e, f, g, h = H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]
  for i = 0, 63 do
    local S1 = bxor(ror(e, 6), ror(e, 11), ror(e, 25))
    local ch = bxor(band(e, f), band(bnot(e), g))
    local t1 = tobit(h + S1 + ch + K[i + 1] + W[i])
    local S0 = bxor(ror(a, 2), ror(a, 13), ror(a, 22))
    local maj = bxor(band(a, b), band(a, c), band(b, c))
    local t2 = tobit(S0 + maj)
    h, g, f, e, d, c, b, a = g, f, e, tobit(d + t1), c, b, a, tobit(t1 + t2)
  end
  H[1], H[2], H[3], H[4] = tobit(H[1] + a), tobit(H[2] + b), tobit(H[3] + c), tobit(H[4] + d)
  H[5], H[6], H[7], H[8] = tobit(H[5] + e), tobit(H[6] + f), tobit(H[7] + g), tobit(H[8] + h)
end

--- The SHA-256 of the bytes s, as 64 lower-case hex digits.
---@param s string
---@return string
function M.sha256(s)
  local H = {
    0x6a09e667,
    0xbb67ae85,
    0x3c6ef372,
    0xa54ff53a,
    0x510e527f,
    0x9b05688c,
    0x1f83d9ab,
    0x5be0cd19,
  }
  local n = #s
  -- Padding: 0x80, zeros, the length in bits as 64 bits big-endian (the
  -- high bits of an 8-byte length are zero below 512 MiB).
  local pad = 64 - ((n + 9) % 64)
  if pad == 64 then
    pad = 0
  end
  local bits = n * 8
  local tail = s:sub(n - (n % 64) + 1)
    .. '\128'
    .. string.rep('\0', pad)
    .. string.char(
      0,
      0,
      0,
      math.floor(bits / 2 ^ 32) % 256,
      math.floor(bits / 2 ^ 24) % 256,
      math.floor(bits / 2 ^ 16) % 256,
      math.floor(bits / 2 ^ 8) % 256,
      bits % 256
    )
  local W = {}
  for at = 1, n - (n % 64), 64 do
    compress(H, s, at, W)
  end
  for at = 1, #tail, 64 do
    compress(H, tail, at, W)
  end
  local out = {}
  for i = 1, 8 do
    out[i] = bit.tohex(H[i], 8)
  end
  return table.concat(out)
end

--------------------------------------------------------------------------
-- Helpers.

local function is_windows()
  return uv.os_uname().sysname:find('Windows', 1, true) ~= nil
end

local function join(...)
  return table.concat({ ... }, is_windows() and '\\' or '/')
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- The release target of this machine: goos, goarch (nil when whale-ls has
--- no release for it).
function M.target()
  local u = uv.os_uname()
  local sys = u.sysname:lower()
  local goos = (sys:find('windows', 1, true) and 'windows')
    or (sys == 'darwin' and 'darwin')
    or (sys == 'linux' and 'linux')
  local machine = u.machine:lower()
  local goarch = ((machine == 'x86_64' or machine == 'amd64') and 'amd64')
    or ((machine == 'aarch64' or machine == 'arm64') and 'arm64')
  return goos, goarch
end

--- The archive name of version (with or without a leading v) for a target.
function M.archive_name(version, goos, goarch)
  version = version:gsub('^v', '')
  return string.format(
    'whale-ls_%s_%s_%s%s',
    version,
    goos,
    goarch,
    goos == 'windows' and '.zip' or '.tar.gz'
  )
end

--- The archive of version for a target that SHA256SUMS text lists: named
--- with the version without its v (archive_name) or with it, as a release
--- built from the tag v<version> may be; nil when neither is listed.
function M.listed_archive(sums, version, goos, goarch)
  local plain = M.archive_name(version, goos, goarch)
  local tagged = plain:gsub('^whale%-ls_', 'whale-ls_v')
  for _, name in ipairs({ plain, tagged }) do
    if M.sum_for(sums, name) then
      return name
    end
  end
end

--- The SHA-256 that SHA256SUMS text gives for name, or nil.
function M.sum_for(sums, name)
  for line in (sums or ''):gmatch('[^\r\n]+') do
    local hex, file = line:match('^(%x+)%s+%*?(.-)%s*$')
    if hex and file == name then
      return hex:lower()
    end
  end
end

--------------------------------------------------------------------------
-- Running programs without blocking Neovim more than it must.

--- A runner: progress(msg) reports; wait(cond) waits for cond() while
--- Neovim's loop runs (yielding to lazy.nvim when inside its build).
function M.runner(opts)
  opts = opts or {}
  local r = {}
  r.progress = opts.progress or function() end
  r.wait = function(cond, timeout_ms)
    if opts.yield then
      local deadline = uv.now() + timeout_ms
      while not cond() and uv.now() < deadline do
        opts.yield()
      end
      return cond()
    end
    return vim.wait(timeout_ms, cond, 50)
  end
  --- Run argv in cwd; returns ok, output (stdout and stderr).
  r.run = function(argv, cwd, timeout_ms)
    local out, code = {}, nil
    -- A job's output arrives in chunks that may end inside a line: the
    -- last item of each chunk continues in the next one.
    local partial = { stdout = '', stderr = '' }
    local function collect(_, data, name)
      if type(data) ~= 'table' or #data == 0 then
        return
      end
      data[1] = partial[name] .. data[1]
      partial[name] = table.remove(data)
      for _, l in ipairs(data) do
        if l ~= '' then
          table.insert(out, l)
        end
      end
    end
    local ok, job = pcall(vim.fn.jobstart, argv, {
      cwd = cwd,
      on_stdout = collect,
      on_stderr = collect,
      on_exit = function(_, c)
        code = c
      end,
    })
    if not ok or job <= 0 then
      return false, argv[1] .. ' could not be started'
    end
    if not r.wait(function()
      return code ~= nil
    end, timeout_ms or 600000) then
      pcall(vim.fn.jobstop, job)
      return false, table.concat(argv, ' ') .. ' did not finish in time'
    end
    for _, rest in pairs(partial) do
      if rest ~= '' then
        table.insert(out, rest)
      end
    end
    return code == 0, table.concat(out, '\n')
  end
  return r
end

--------------------------------------------------------------------------
-- The two ways.

--- The release tag the checkout at root is at (exactly), or nil.
local function exact_tag(r, root)
  local ok, out = r.run({ 'git', 'describe', '--tags', '--exact-match', 'HEAD' }, root, 30000)
  local tag = ok and vim.trim(out) or ''
  return tag:match('^v%d') and tag or nil
end

--- The newest release tag before the checkout, or nil.
local function newest_tag(r, root)
  local ok, out = r.run({ 'git', 'describe', '--tags', '--abbrev=0', 'HEAD' }, root, 30000)
  local tag = ok and vim.trim(out) or ''
  return tag:match('^v%d') and tag or nil
end

--- Fetch url into dest with curl or wget; ok, err.
local function download(r, url, dest)
  if vim.fn.executable('curl') == 1 then
    local ok, out = r.run({ 'curl', '-fsSL', '--retry', '2', '-o', dest, url }, nil, 600000)
    -- Each try prints its error: the last one says it.
    out = vim.trim(out):match('([^\n]*)$')
    return ok, not ok and (out:match('^curl') and out or ('curl: ' .. out)) or nil
  elseif vim.fn.executable('wget') == 1 then
    local ok, out = r.run({ 'wget', '-q', '-O', dest, url }, nil, 600000)
    return ok, not ok and ('wget: ' .. out) or nil
  end
  return false,
    'neither curl nor wget is installed: install one, or install Go and run the build again'
end

--- Install the release version into root/bin; ok, message.
function M.from_release(r, root, version)
  local goos, goarch = M.target()
  if not goos or not goarch then
    local u = uv.os_uname()
    return false,
      string.format(
        'whale-ls has no release for %s %s: install Go and run the build again (WHALE_BUILD=go)',
        u.sysname,
        u.machine
      )
  end
  local dir = vim.env.WHALE_RELEASE_DIR
  local name
  if dir and dir ~= '' and not version then
    -- A local folder with no version asked for: its archive for this target.
    local sums = read_file(join(dir, 'SHA256SUMS')) or ''
    for line in sums:gmatch('[^\r\n]+') do
      local file = line:match('^%x+%s+%*?(.-)%s*$')
      if
        file
        and file:match('^whale%-ls_.-_' .. goos .. '_' .. goarch .. '%.')
        and not file:match('%.sbom')
      then
        name = file
      end
    end
    if not name then
      return false,
        string.format(
          'no whale-ls archive for %s/%s is listed in %s',
          goos,
          goarch,
          join(dir, 'SHA256SUMS')
        )
    end
  elseif not version then
    return false, 'no release version known'
  end
  local bin = join(root, 'bin')
  local work = join(bin, '.download-' .. tostring(uv.os_getpid()))
  vim.fn.delete(work, 'rf')
  vim.fn.mkdir(work, 'p')
  local function cleanup()
    vim.fn.delete(work, 'rf')
  end
  local archive, sums
  local where
  if dir and dir ~= '' then
    where = dir
    sums = read_file(join(dir, 'SHA256SUMS'))
    if not sums then
      cleanup()
      return false, join(dir, 'SHA256SUMS') .. ' does not exist'
    end
    name = name or M.listed_archive(sums, version, goos, goarch)
    if not name then
      cleanup()
      return false,
        string.format(
          '%s lists no archive of whale-ls %s for %s/%s',
          join(dir, 'SHA256SUMS'),
          version,
          goos,
          goarch
        )
    end
    archive = join(dir, name)
    if not exists(archive) then
      cleanup()
      return false, archive .. ' does not exist'
    end
  else
    local tag = 'v' .. version:gsub('^v', '')
    local base = M.release_url .. '/' .. tag
    where = base
    -- SHA256SUMS first: it names the archive (with or without the v).
    local ok, err = download(r, base .. '/SHA256SUMS', join(work, 'SHA256SUMS'))
    if ok then
      sums = read_file(join(work, 'SHA256SUMS'))
      name = M.listed_archive(sums, version, goos, goarch)
      if not name then
        cleanup()
        return false,
          string.format(
            'the %s release has no archive for %s/%s (its SHA256SUMS lists none): install Go and run the build again with WHALE_BUILD=go',
            tag,
            goos,
            goarch
          )
      end
      r.progress('downloading ' .. base .. '/' .. name)
      archive = join(work, name)
      ok, err = download(r, base .. '/' .. name, archive)
    end
    name = name or M.archive_name(version, goos, goarch)
    if not ok then
      cleanup()
      return false,
        string.format(
          'cannot download the %s release (%s): check the network; or install Go and run the build again with WHALE_BUILD=go; or put %s and SHA256SUMS from %s in a folder and run it with WHALE_RELEASE_DIR=<folder>',
          tag,
          tostring(err),
          name,
          base
        )
    end
  end
  local want = M.sum_for(sums, name)
  if not want then
    cleanup()
    return false, 'SHA256SUMS of ' .. where .. ' has no line for ' .. name
  end
  r.progress('checking the SHA-256 of ' .. name)
  local got = M.sha256(read_file(archive) or '')
  if got ~= want then
    cleanup()
    return false,
      string.format(
        '%s is damaged or not the released file: its SHA-256 is %s, SHA256SUMS says %s; nothing was installed',
        name,
        got,
        want
      )
  end
  local argv
  if name:match('%.zip$') then
    argv = is_windows() and { 'tar', '-xf', archive, '-C', work }
      or { 'unzip', '-q', '-o', archive, '-d', work }
  else
    argv = { 'tar', '-xzf', archive, '-C', work }
  end
  local ok, out = r.run(argv, nil, 300000)
  if not ok then
    cleanup()
    return false, 'cannot unpack ' .. name .. ': ' .. out
  end
  local exe = is_windows() and 'whale-ls.exe' or 'whale-ls'
  local folder = name:gsub('%.tar%.gz$', ''):gsub('%.zip$', '')
  local from = join(work, folder, exe)
  if not exists(from) then
    -- The one folder the archive holds, whatever its name.
    local found = vim.fn.glob(join(work, '*', exe), true, true)
    if #found == 1 then
      from = found[1]
    end
  end
  if not exists(from) then
    cleanup()
    return false, name .. ' holds no ' .. folder .. '/' .. exe
  end
  local to = join(bin, exe)
  -- A running whale-ls.exe cannot be replaced on Windows, but renamed.
  if exists(to) then
    vim.fn.delete(to .. '.old')
    uv.fs_rename(to, to .. '.old')
  end
  local renamed, rerr = uv.fs_rename(from, to)
  cleanup()
  if not renamed then
    return false, 'cannot move whale-ls into ' .. bin .. ': ' .. tostring(rerr)
  end
  if not is_windows() then
    uv.fs_chmod(to, tonumber('755', 8))
  end
  vim.fn.delete(to .. '.old')
  return true, string.format('installed %s from %s (SHA-256 checked)', name, where), to
end

--- Build whale-ls with go in root; ok, message, path.
function M.with_go(r, root)
  local exe = is_windows() and 'whale-ls.exe' or 'whale-ls'
  local to = join(root, 'bin', exe)
  r.progress('building whale-ls with go (the first build downloads its modules)')
  local ok, out = r.run({ 'go', 'build', '-o', to, './cmd/whale-ls' }, root, 1800000)
  if not ok then
    return false, 'go build failed: ' .. out
  end
  return true, 'built ' .. to .. " with go from the plugin's source", to
end

--- Get the program; returns ok, message (which way, and what to do when it
--- failed), path.
---@param opts {root: string, progress?: fun(msg: string), yield?: fun()}
function M.run(opts)
  local root = opts.root
  local r = M.runner(opts)
  local how = vim.env.WHALE_BUILD
  local has_go = vim.fn.executable('go') == 1
  local has_source = exists(join(root, 'cmd', 'whale-ls'))
  local ok, msg, path
  if how == 'go' then
    if not has_go then
      return false, 'WHALE_BUILD=go, but the go command is not installed'
    end
    ok, msg, path = M.with_go(r, root)
  elseif how == 'release' or (vim.env.WHALE_RELEASE_DIR or '') ~= '' then
    local version = vim.env.WHALE_VERSION or exact_tag(r, root)
    if not version and (vim.env.WHALE_RELEASE_DIR or '') == '' then
      version = newest_tag(r, root)
    end
    -- No version with a release folder: the folder's archive for this machine.
    ok, msg, path = M.from_release(r, root, version)
  else
    local tag = vim.env.WHALE_VERSION or exact_tag(r, root)
    if tag then
      ok, msg, path = M.from_release(r, root, tag)
    elseif has_go and has_source then
      ok, msg, path = M.with_go(r, root)
    else
      tag = newest_tag(r, root)
      if not tag then
        return false,
          'the plugin is not at a release and go is not installed: install Go (then run the build again), or pin the plugin to a release (lazy.nvim: version = "*")'
      end
      ok, msg, path = M.from_release(r, root, tag)
      if ok then
        msg = msg
          .. ' (the newest release before this checkout; with go installed the build matches the checkout)'
      end
    end
  end
  if not ok then
    return false, msg
  end
  local vok, vout = r.run({ path, 'version' }, nil, 30000)
  if not vok then
    return false, msg .. ', but `whale-ls version` failed: ' .. vout
  end
  return true, msg .. ': ' .. vim.trim(vout), path
end

return M
