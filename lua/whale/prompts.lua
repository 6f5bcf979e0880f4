-- whale/prompt: questions from whale-ls (approvals, choices, free text).
--
-- The server sends a notification and waits for the request
-- whale/prompt/answer, so nothing here blocks Neovim's loop while the user
-- thinks: the question is shown from a scheduled callback, one at a time,
-- and the answer goes back whenever the user gives it. Choices are shown
-- with the vim.ui.select a UI plugin installed, or, while vim.ui.select is
-- Neovim's own (a list at the bottom, easy to miss while typing), in a
-- floating window that takes the focus (prompts.ui). In an approval the
-- options that refuse come first and are the default, so Enter never
-- allows by accident. Text questions use vim.ui.input. Reviews of proposed
-- changes (kind "review") are shown by whale.review, in a queue of their
-- own.
local compat = require('whale.compat')
local protocol = require('whale.protocol')

local config = require('whale.config')

local M = {}

local queue = {}
local showing = nil

-- Fields an approval may carry (top level or under params.approval), shown
-- in this order.
local approval_fields = { 'command', 'program', 'argv', 'cwd', 'rule' }

local function as_text(v)
  if type(v) == 'table' then
    local parts = {}
    for _, x in ipairs(v) do
      x = tostring(x)
      if x == '' or x:find('[^%w%-_./=:,+@%%]') then
        x = vim.fn.shellescape(x)
      end
      table.insert(parts, x)
    end
    if #parts > 0 then
      return table.concat(parts, ' ')
    end
    return vim.inspect(v)
  end
  return tostring(v)
end

--- The text shown above the options.
---@return string
function M.describe(p)
  local lines = { 'whale: ' .. (p.title ~= vim.NIL and p.title or 'question') }
  if p.kind == 'approval' then
    local src = type(p.approval) == 'table' and p.approval or p
    for _, field in ipairs(approval_fields) do
      local v = src[field]
      if v ~= nil and v ~= vim.NIL and v ~= '' then
        table.insert(lines, string.format('  %-8s %s', field .. ':', as_text(v)))
      end
    end
  end
  if type(p.detail) == 'string' and p.detail ~= '' then
    for _, l in ipairs(compat.lines(p.detail)) do
      table.insert(lines, '  ' .. l)
    end
  end
  return table.concat(lines, '\n')
end

--- Send the answer params to the server for item {client_id, params}.
function M.answer(item, params)
  local client = vim.lsp.get_client_by_id(item.client_id)
  if not client or compat.is_stopped(client) then
    return
  end
  params.promptId = item.params.promptId
  compat.request(client, protocol.prompt_answer, params, function(err)
    if err then
      -- Most often: the question timed out on the server meanwhile.
      vim.schedule(function()
        compat.notify_user(
          'answer not taken: ' .. (err.message or vim.inspect(err)),
          vim.log.levels.WARN
        )
      end)
    end
  end)
end

local show_next

local function finish(item, params)
  if item.done then
    return
  end
  item.done = true
  M.answer(item, params)
  showing = nil
  vim.schedule(show_next)
end

--- Whether an option refuses (Deny, Reject, Cancel...).
local function refuses(o)
  local id = tostring(o.id or ''):lower()
  return id:match('^deny') or id:match('^reject') or id:match('^cancel') or id == 'no'
end

--- The options in the order shown: in an approval, those that refuse
--- first (the default), the others in the server's order.
function M.ordered(p)
  local options = type(p.options) == 'table' and p.options or {}
  if p.kind ~= 'approval' then
    return options
  end
  local out = {}
  for _, o in ipairs(options) do
    if refuses(o) then
      table.insert(out, o)
    end
  end
  for _, o in ipairs(options) do
    if not refuses(o) then
      table.insert(out, o)
    end
  end
  return out
end

--- Whether vim.ui.select is still Neovim's own.
local function builtin_select()
  local info = debug.getinfo(vim.ui.select, 'S')
  return info ~= nil
    and type(info.source) == 'string'
    and info.source:match('vim[/\\]ui%.lua$') ~= nil
end

--- The UI for a choice: 'float' or 'select' (option prompts.ui: 'auto',
--- the default, picks the float while vim.ui.select is Neovim's own).
function M.ui()
  local ui = (config.options.prompts or {}).ui or 'auto'
  if ui == 'auto' then
    return builtin_select() and 'float' or 'select'
  end
  return ui
end

--- Ask in a floating window that takes the focus: the question, then the
--- options, the cursor on the first (the default). <CR> or the option's
--- number answers, q or <Esc> dismisses; on_choice(option|nil).
function M.float(prompt, options, format_item, on_choice)
  local lines = compat.lines(prompt)
  table.insert(lines, '')
  local first = #lines + 1
  for i, o in ipairs(options) do
    table.insert(lines, string.format(' %d. %s', i, format_item(o)))
  end
  table.insert(lines, '')
  table.insert(lines, ' <CR> choose   1-' .. #options .. ' choose   q dismiss')
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l) + 2)
  end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, vim.o.lines - 4))
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'filetype', 'whale_prompt')
  if vim.fn.mode() ~= 'n' then
    vim.cmd('stopinsert')
  end
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    style = 'minimal',
    border = 'rounded',
    zindex = 200,
  })
  vim.api.nvim_win_set_option(win, 'cursorline', true)
  vim.api.nvim_win_set_option(win, 'wrap', true)
  local ns = vim.api.nvim_create_namespace('whale_prompt')
  vim.api.nvim_buf_add_highlight(buf, ns, 'Title', 0, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Comment', #lines - 1, 0, -1)
  for i, o in ipairs(options) do
    if refuses(o) then
      vim.api.nvim_buf_add_highlight(buf, ns, 'WarningMsg', first + i - 2, 0, -1)
    end
  end
  vim.api.nvim_win_set_cursor(win, { first, 1 })
  local done = false
  local function close(choice)
    if done then
      return
    end
    done = true
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    on_choice(choice)
  end
  local function map(lhs, fn)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true })
  end
  map('<CR>', function()
    local i = vim.api.nvim_win_get_cursor(win)[1] - first + 1
    if options[i] then
      close(options[i])
    end
  end)
  for i = 1, math.min(#options, 9) do
    map(tostring(i), function()
      close(options[i])
    end)
  end
  map('q', function()
    close(nil)
  end)
  map('<Esc>', function()
    close(nil)
  end)
  -- Keep the cursor on an option.
  vim.api.nvim_create_autocmd('CursorMoved', {
    buffer = buf,
    callback = function()
      if not vim.api.nvim_win_is_valid(win) then
        return
      end
      local l = vim.api.nvim_win_get_cursor(win)[1]
      local clamped = math.min(math.max(l, first), first + #options - 1)
      if clamped ~= l then
        vim.api.nvim_win_set_cursor(win, { clamped, 1 })
      end
    end,
  })
  -- Closed some other way (:close, :only): dismissed.
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    callback = function()
      vim.schedule(function()
        close(nil)
      end)
    end,
  })
  return win
end

local function show(item)
  local p = item.params
  local prompt = M.describe(p)
  if p.kind == 'text' then
    local label = prompt
    if type(p.placeholder) == 'string' and p.placeholder ~= '' then
      label = label .. ' (' .. p.placeholder .. ')'
    end
    vim.ui.input({ prompt = label .. ': ' }, function(text)
      if text == nil then
        finish(item, { cancelled = true })
      else
        finish(item, { text = text })
      end
    end)
    return
  end
  local options = M.ordered(p)
  if #options == 0 then
    finish(item, { cancelled = true })
    return
  end
  local function format_item(o)
    return o.label or o.id
  end
  local function on_choice(choice)
    if choice == nil then
      finish(item, { cancelled = true })
    else
      finish(item, { optionId = choice.id })
    end
  end
  if M.ui() == 'float' then
    M.float(prompt, options, format_item, on_choice)
    return
  end
  vim.ui.select(options, {
    prompt = prompt,
    kind = 'whale.' .. tostring(p.kind),
    format_item = format_item,
  }, on_choice)
end

show_next = function()
  if showing or #queue == 0 then
    return
  end
  showing = table.remove(queue, 1)
  local ok, err = pcall(show, showing)
  if not ok then
    local item = showing
    compat.notify_user('could not show the question: ' .. tostring(err), vim.log.levels.ERROR)
    finish(item, { cancelled = true })
  end
end

--- whale/prompt notification handler.
function M.on_prompt(_, params, ctx)
  if type(params) ~= 'table' or not params.promptId then
    return
  end
  if params.kind == 'review' then
    require('whale.review').on_prompt(params, ctx.client_id)
    return
  end
  table.insert(queue, { client_id = ctx.client_id, params = params })
  vim.schedule(show_next)
end

--- Questions waiting to be shown (the one on screen excluded).
function M.pending()
  return #queue + (showing and 1 or 0)
end

return M
