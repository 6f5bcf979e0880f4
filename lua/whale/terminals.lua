-- whale/terminal/*: each shell task of whale-ls shown as a Neovim terminal
-- buffer (nvim_open_term). Output notifications feed it, keys typed in it go
-- back as whale/terminal/input, window size changes as whale/terminal/resize,
-- wiping the buffer cancels a running task, and exit marks it finished.
local compat = require('whale.compat')
local config = require('whale.config')
local protocol = require('whale.protocol')

local M = {}

---@class whale.Task
---@field key string  client id .. ':' .. task id
---@field client_id integer
---@field id string
---@field title string
---@field command string
---@field cwd string
---@field pty boolean
---@field buf integer
---@field chan integer
---@field seq integer
---@field running boolean
---@field exit_code integer|nil
---@field signal string|nil
---@field size table|nil  last {cols, rows} whale-ls applied (answered)
---@field asked_size table|nil  last {cols, rows} sent

---@type table<string, whale.Task>
M.tasks = {}
local order = {}
local last_win = nil
local group = nil

local function key(client_id, task_id)
  return tostring(client_id) .. ':' .. tostring(task_id)
end

local function client_of(task)
  return vim.lsp.get_client_by_id(task.client_id)
end

local function send(task, method, params, on_ok)
  local client = client_of(task)
  if not client or compat.is_stopped(client) then
    return
  end
  compat.request(client, method, params, function(err)
    if not err and on_ok then
      on_ok()
    end
    if err and task.running then
      -- The task may have ended between the key press and the request.
      vim.schedule(function()
        if task.running then
          compat.notify_user(
            string.format('%s %s: %s', method, task.id, err.message or vim.inspect(err)),
            vim.log.levels.DEBUG
          )
        end
      end)
    end
  end)
end

--- Send typed keys in order. whale-ls answers requests concurrently, so
--- two input requests in flight could reach the process swapped: keys typed
--- while one is in flight wait and go together in the next request.
function M.type(task, data)
  task.typed = (task.typed or '') .. data
  if task.typing then
    return
  end
  local client = client_of(task)
  if not client or compat.is_stopped(client) then
    task.typed = ''
    return
  end
  local chunk = task.typed
  task.typed = ''
  task.typing = true
  compat.request(client, protocol.terminal_input, { taskId = task.id, data = chunk }, function(err)
    task.typing = false
    if err and task.running then
      vim.schedule(function()
        compat.notify_user(
          string.format('input to %s not delivered: %s', task.id, err.message or vim.inspect(err)),
          vim.log.levels.DEBUG
        )
      end)
    end
    if task.typed ~= '' and task.running then
      M.type(task, '')
    end
  end)
end

local function buf_name(task)
  local name =
    string.format('whale://%s/%s', task.id, task.title ~= '' and task.title or task.command)
  return (name:gsub('[\r\n]', ' '))
end

local function windows_of(buf)
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == buf then
      table.insert(out, win)
    end
  end
  return out
end

--- Send whale/terminal/resize when the task's window size changed.
local function sync_size(task)
  if not task.running or not task.pty or not vim.api.nvim_buf_is_valid(task.buf) then
    return
  end
  local cols, rows
  for _, win in ipairs(windows_of(task.buf)) do
    local w, h = vim.api.nvim_win_get_width(win), vim.api.nvim_win_get_height(win)
    -- The terminal takes the size of the smallest window that shows it.
    cols = cols and math.min(cols, w) or w
    rows = rows and math.min(rows, h) or h
  end
  if not cols or cols < 2 or rows < 1 then
    return
  end
  local asked = task.asked_size
  if asked and asked.cols == cols and asked.rows == rows then
    return
  end
  local size = { cols = cols, rows = rows }
  task.asked_size = size
  -- task.size changes only once whale-ls has answered: the PTY has the new
  -- size then, so input sent after that sees it.
  send(task, protocol.terminal_resize, { taskId = task.id, cols = cols, rows = rows }, function()
    if task.asked_size == size then
      task.size = size
    end
  end)
end

function M.sync_sizes()
  for _, task in pairs(M.tasks) do
    sync_size(task)
  end
end

local function ensure_autocmds()
  if group then
    return
  end
  group = vim.api.nvim_create_augroup('whale_terminals', { clear = true })
  local events = { 'VimResized', 'WinScrolled', 'WinEnter', 'BufWinEnter' }
  if vim.fn.exists('##WinResized') == 1 then
    table.insert(events, 'WinResized')
  end
  vim.api.nvim_create_autocmd(events, {
    group = group,
    callback = function()
      vim.schedule(M.sync_sizes)
    end,
  })
end

--- Show a task's buffer according to opts.terminal.open, keeping the
--- cursor where it is unless focus is asked for.
---@return integer|nil win
function M.show(task, focus)
  local topts = config.options.terminal or {}
  local how = topts.open
  if focus == nil then
    focus = topts.focus
  end
  local existing = windows_of(task.buf)[1]
  if existing then
    if focus then
      vim.api.nvim_set_current_win(existing)
    end
    return existing
  end
  if type(how) == 'function' then
    local ok, win = pcall(how, task.buf, task)
    if ok and type(win) == 'number' and vim.api.nvim_win_is_valid(win) then
      last_win = win
      return win
    end
    return nil
  end
  if how == 'none' then
    return nil
  end
  if topts.reuse_window ~= false and last_win and vim.api.nvim_win_is_valid(last_win) then
    local shown = vim.api.nvim_win_get_buf(last_win)
    if pcall(vim.api.nvim_buf_get_var, shown, 'whale_task') then
      vim.api.nvim_win_set_buf(last_win, task.buf)
      if focus then
        vim.api.nvim_set_current_win(last_win)
      end
      return last_win
    end
  end
  local size = tonumber(topts.size) or 12
  local win
  if compat.has('nvim-0.10') and how ~= 'tab' then
    local cfg = { split = how == 'vsplit' and 'right' or 'below', win = -1 }
    if how == 'vsplit' then
      cfg.width = size > 0 and size or nil
    else
      cfg.height = size > 0 and size or nil
    end
    win = vim.api.nvim_open_win(task.buf, focus and true or false, cfg)
  else
    local cur = vim.api.nvim_get_current_win()
    local cmd
    if how == 'tab' then
      cmd = 'tab split'
    elseif how == 'vsplit' then
      cmd = string.format('botright %dvsplit', size)
    else
      cmd = string.format('botright %dsplit', size)
    end
    vim.cmd('noautocmd ' .. cmd)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, task.buf)
    if not focus and vim.api.nvim_win_is_valid(cur) then
      vim.cmd(string.format('noautocmd call win_gotoid(%d)', cur))
    end
  end
  vim.api.nvim_win_set_option(win, 'number', false)
  vim.api.nvim_win_set_option(win, 'relativenumber', false)
  vim.api.nvim_win_set_option(win, 'signcolumn', 'no')
  last_win = win
  return win
end

local function create(client_id, params)
  ensure_autocmds()
  local task = {
    key = key(client_id, params.taskId),
    client_id = client_id,
    id = params.taskId,
    title = params.title or '',
    command = params.command or '',
    cwd = params.cwd or '',
    pty = params.pty and true or false,
    seq = 0,
    running = true,
  }
  local buf = vim.api.nvim_create_buf(false, true)
  task.buf = buf
  task.chan = vim.api.nvim_open_term(buf, {
    on_input = function(_, _, _, data)
      if task.running then
        M.type(task, data)
      end
    end,
  })
  pcall(vim.api.nvim_buf_set_name, buf, buf_name(task))
  vim.api.nvim_buf_set_var(buf, 'whale_task', task.id)
  vim.api.nvim_buf_set_var(buf, 'whale_client', client_id)
  vim.api.nvim_create_autocmd({ 'BufWipeout', 'BufDelete' }, {
    buffer = buf,
    once = true,
    callback = function()
      if task.running then
        task.running = false
        send(task, protocol.terminal_cancel, { taskId = task.id })
      end
      M.tasks[task.key] = nil
    end,
  })
  M.tasks[task.key] = task
  table.insert(order, task.key)
  return task
end

--- Keep windows that show the task (other than the current one, where the
--- user may be reading back) at the end of the output.
local function follow(task)
  if task.following then
    return
  end
  task.following = true
  vim.defer_fn(function()
    task.following = false
    if not vim.api.nvim_buf_is_valid(task.buf) then
      return
    end
    local last = vim.api.nvim_buf_line_count(task.buf)
    local current = vim.api.nvim_get_current_win()
    for _, win in ipairs(windows_of(task.buf)) do
      if win ~= current then
        pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
      end
    end
  end, 30)
end

local function write(task, data)
  if not vim.api.nvim_buf_is_valid(task.buf) then
    return
  end
  if not task.pty then
    -- Pipe output has bare newlines; a terminal needs CR LF.
    data = data:gsub('\r?\n', '\r\n')
  end
  pcall(vim.api.nvim_chan_send, task.chan, data)
  follow(task)
end

--- whale/terminal/open
function M.on_open(_, params, ctx)
  if type(params) ~= 'table' or not params.taskId then
    return
  end
  local existing = M.tasks[key(ctx.client_id, params.taskId)]
  if existing and vim.api.nvim_buf_is_valid(existing.buf) then
    return
  end
  local task = create(ctx.client_id, params)
  local header = string.format('[whale %s] %s', task.id, task.command)
  if task.cwd ~= '' then
    header = header .. '  (in ' .. vim.fn.fnamemodify(task.cwd, ':~') .. ')'
  end
  pcall(vim.api.nvim_chan_send, task.chan, header .. '\r\n')
  M.show(task)
  sync_size(task)
end

--- whale/terminal/output
function M.on_output(_, params, ctx)
  if type(params) ~= 'table' or not params.taskId then
    return
  end
  local task = M.tasks[key(ctx.client_id, params.taskId)]
  if not task then
    task = create(ctx.client_id, { taskId = params.taskId, title = params.taskId, pty = true })
  end
  local seq = tonumber(params.seq) or (task.seq + 1)
  if seq <= task.seq then
    return -- already shown
  end
  task.seq = seq
  if type(params.data) == 'string' and params.data ~= '' then
    write(task, params.data)
  end
end

--- whale/terminal/exit
function M.on_exit(_, params, ctx)
  if type(params) ~= 'table' or not params.taskId then
    return
  end
  local task = M.tasks[key(ctx.client_id, params.taskId)]
  if not task then
    return
  end
  task.running = false
  task.exit_code = params.exitCode
  task.signal = params.signal ~= vim.NIL and params.signal ~= '' and params.signal or nil
  local how = task.signal and ('was stopped by ' .. task.signal)
    or ('exited with code ' .. tostring(task.exit_code))
  write(task, string.format('\r\n[whale %s %s]\r\n', task.id, how))
  if vim.api.nvim_buf_is_valid(task.buf) then
    vim.api.nvim_buf_set_var(task.buf, 'whale_exit_code', task.exit_code or -1)
    pcall(
      vim.api.nvim_buf_set_name,
      task.buf,
      buf_name(task)
        .. (task.signal and ' [stopped]' or string.format(' [exit %s]', tostring(task.exit_code)))
    )
  end
end

--- whale/terminal/waiting: a running task waits for input. Its terminal is
--- shown and takes the cursor in Terminal mode, unless the user is typing
--- elsewhere; then a message names the task.
function M.on_waiting(_, params, ctx)
  if type(params) ~= 'table' or not params.taskId then
    return
  end
  local task = M.tasks[key(ctx.client_id, params.taskId)]
  if not task or not task.running or not vim.api.nvim_buf_is_valid(task.buf) then
    return
  end
  local what = params.secret == true and 'asks for a password' or 'waits for input'
  local prompt = type(params.prompt) == 'string' and params.prompt ~= '' and (': ' .. params.prompt)
    or ''
  local mode = vim.api.nvim_get_mode().mode
  local typing = mode:find('^[icR]') ~= nil and vim.api.nvim_get_current_buf() ~= task.buf
  if (config.options.terminal or {}).focus_on_input == false or typing then
    M.show(task, false)
    vim.notify(
      string.format('whale: %s %s%s (:WhaleTerminals opens it)', task.command, what, prompt),
      vim.log.levels.WARN
    )
    return
  end
  local win = M.show(task, true)
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
    vim.cmd('startinsert')
  end
end

--- When a client stops, its running tasks are gone with it.
function M.client_exited(client_id)
  for _, task in pairs(M.tasks) do
    if task.client_id == client_id and task.running then
      task.running = false
      write(task, '\r\n[whale-ls stopped; the task ended with it]\r\n')
    end
  end
end

--- Tasks known to this Neovim, oldest first.
---@return whale.Task[]
function M.list()
  local out = {}
  for _, k in ipairs(order) do
    if M.tasks[k] then
      table.insert(out, M.tasks[k])
    end
  end
  return out
end

--- Find a task by id (and client, when given).
function M.get(task_id, client_id)
  for _, task in pairs(M.tasks) do
    if task.id == task_id and (client_id == nil or task.client_id == client_id) then
      return task
    end
  end
end

return M
