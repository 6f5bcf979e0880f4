-- A small test runner for headless Neovim. A test file returns a list of
-- { name, fn } cases; run() runs them in order, prints PASS/FAIL lines,
-- writes "<passed> <failed>" to the results file and exits.
--
-- A case may wait for Neovim's loop: H.wait() (vim.wait with a deadline) for
-- conditions, H.sleep_loop() when typed keys must be processed by the main
-- loop (the case then runs in a coroutine resumed from a timer).
local H = {}

H.timeout = tonumber(vim.env.WHALE_TEST_TIMEOUT or '') or 30000

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end
H.log = out

function H.fail(msg, level)
  error(msg, (level or 1) + 1)
end

function H.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(
      string.format('%s: got %s, want %s', what or 'value', vim.inspect(got), vim.inspect(want)),
      2
    )
  end
end

function H.ok(cond, msg)
  if not cond then
    error(msg or 'assertion failed', 2)
  end
  return cond
end

function H.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    error(
      string.format('%s: %s does not contain %q', what or 'text', vim.inspect(haystack), needle),
      2
    )
  end
end

--- The keys of table t, sorted.
function H.sorted_keys(t)
  local keys = vim.tbl_keys(t or {})
  table.sort(keys)
  return keys
end

--- Wait for cond() up to ms (default H.timeout), failing with msg.
function H.wait(cond, msg, ms)
  local ok = vim.wait(ms or H.timeout, function()
    local good, v = pcall(cond)
    return good and v
  end, 20)
  if not ok then
    error('timed out waiting for ' .. (msg or 'condition'), 2)
  end
end

--- Yield to Neovim's main loop for ms (only inside a case run as a
--- coroutine: typed keys are processed only there).
function H.sleep_loop(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    local ok, err = coroutine.resume(co)
    if not ok then
      out('coroutine error: ' .. tostring(err))
    end
  end, ms or 20)
  coroutine.yield()
end

--- Wait for cond() while giving the main loop control between checks.
function H.wait_loop(cond, msg, ms, explain)
  local deadline = vim.loop.now() + (ms or H.timeout)
  while vim.loop.now() < deadline do
    local good, v = pcall(cond)
    if good and v then
      return
    end
    H.sleep_loop(30)
  end
  error(
    'timed out waiting for ' .. (msg or 'condition') .. (explain and ('\n' .. explain()) or ''),
    2
  )
end

--- A fresh workspace folder (with .git) holding files {relpath = text};
--- the current folder becomes it. Returns its real path.
function H.workspace(files)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/.git', 'p')
  for rel, text in pairs(files or {}) do
    local path = dir .. '/' .. rel
    vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
    local f = assert(io.open(path, 'wb'))
    f:write(text)
    f:close()
  end
  dir = vim.loop.fs_realpath(dir)
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  return dir
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- setup() with the whale-ls binary the test script built.
function H.setup(opts)
  opts = vim.tbl_deep_extend('force', { cmd = { vim.env.WHALE_LS or 'whale-ls' } }, opts or {})
  require('whale').setup(opts)
end

--- The whale client attached to bufnr, once it is initialized.
function H.client_for(bufnr)
  local client
  H.wait(function()
    for _, c in ipairs(require('whale.compat').get_clients({ name = 'whale_ls' })) do
      if c.initialized and c.attached_buffers and c.attached_buffers[bufnr] then
        client = c
        return true
      end
    end
  end, 'whale-ls to attach to buffer ' .. bufnr)
  return client
end

local function call_with(wait, name, input, opts)
  local env, err, done
  require('whale').call(name, input, function(e, r)
    err, env, done = e, r, true
  end, opts)
  wait(function()
    return done
  end, 'whale.' .. name)
  if err then
    error('whale.' .. name .. ': ' .. err, 3)
  end
  return env
end

--- Call a tool and wait for its Envelope.
function H.call(name, input, opts)
  return call_with(H.wait, name, input, opts)
end

--- Like H.call, letting the main loop run (for cases in coroutines).
function H.call_loop(name, input, opts)
  return call_with(H.wait_loop, name, input, opts)
end

function H.run(file, results)
  local passed, failed = 0, 0
  -- A file that does not load is one failure, reported, not a Neovim left
  -- waiting until run.sh's timeout.
  local loaded, cases = pcall(dofile, file)
  if not loaded then
    out(
      'FAIL ' .. vim.fn.fnamemodify(file, ':t:r') .. ': the file does not load: ' .. tostring(cases)
    )
    cases = { n = 0 }
    failed = 1
  end
  local label = vim.fn.fnamemodify(file, ':t:r')
  local i = 0
  local function finish()
    local f = io.open(results, 'w')
    if f then
      f:write(string.format('%d %d\n', passed, failed))
      f:close()
    end
    -- Stop the servers so their task trees end before Neovim does.
    pcall(function()
      require('whale').stop()
    end)
    vim.wait(3000, function()
      return #require('whale.compat').get_clients({ name = 'whale_ls' }) == 0
    end, 20)
    vim.cmd(failed > 0 and 'cquit 1' or 'qall!')
  end
  local next_case
  next_case = function()
    i = i + 1
    local case = cases[i]
    if not case then
      finish()
      return
    end
    local name = label .. ': ' .. case[1]
    local reported = false
    local function report(ok, err)
      if reported then
        return
      end
      reported = true
      if ok then
        passed = passed + 1
        out('PASS ' .. name)
      else
        failed = failed + 1
        out('FAIL ' .. name .. '\n  ' .. tostring(err):gsub('\n', '\n  '))
      end
      vim.schedule(next_case)
    end
    -- Each case runs in a coroutine so that it may yield to the main loop
    -- (H.sleep_loop); it reports its own end.
    local co = coroutine.create(function()
      local ok, err = xpcall(case[2], debug.traceback)
      report(ok, err)
    end)
    vim.defer_fn(function()
      report(false, 'the case did not finish within ' .. (4 * H.timeout) .. ' ms')
    end, 4 * H.timeout)
    local ok, err = coroutine.resume(co)
    if not ok then
      report(false, err)
    end
  end
  vim.schedule(next_case)
end

return H
