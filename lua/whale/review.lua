-- Review before apply (setting edits.review): a whale/prompt of kind
-- "review" carries a proposed change, file by file, with the whole text
-- before and after and the server's hunks ({id, header, diff}).
--
-- Each file opens in a tab of its own: the current text on the left, the
-- proposal on the right (read-only scratch buffers, :diffthis). Keys in
-- those buffers accept or reject the hunk under the cursor, accept or
-- reject everything, or send the decisions ("done": undecided hunks count
-- as rejected). Hunks are found by their "@@ -a,b +c,d @@" headers, so the
-- ids sent back are the server's. Extmarks (a sign and end-of-line text)
-- and the windows' statusline show each hunk's state.
--
-- One review is shown at a time; later ones queue. A review whose
-- timeoutMs passes is dropped (the server has rejected it by then). `q`
-- only hides the tabs: :WhaleReview brings them back.
local compat = require('whale.compat')
local config = require('whale.config')

local M = {}

local ns = vim.api.nvim_create_namespace('whale_review')

local queue = {}
local current = nil
-- Review buffers: buf -> {item, index (of the file), side ('before'|'after')}.
local by_buf = {}

vim.cmd([[
  highlight default link WhaleReviewAccepted DiffAdd
  highlight default link WhaleReviewRejected DiffDelete
  highlight default link WhaleReviewUndecided Comment
]])

local str = compat.str

local function keys()
  local defaults = config.defaults.review.keys
  local opts = config.options.review and config.options.review.keys or {}
  return vim.tbl_extend('force', defaults, opts)
end

--------------------------------------------------------------------------
-- Hunks.

--- Parse a hunk header "@@ -a,n +c,m @@" (counts default to 1); nil for a
--- header without line numbers (a created, deleted, moved or rewritten
--- file: one hunk covering it all).
---@return table|nil {a, n, c, m}
function M.parse_header(header)
  local a, n, c, m = str(header):match('^@@ %-(%d+),?(%d*) %+(%d+),?(%d*) @@')
  if not a then
    return nil
  end
  return { a = tonumber(a), n = tonumber(n) or 1, c = tonumber(c), m = tonumber(m) or 1 }
end

-- The lines a hunk covers on side: first, count (count 0: it sits between
-- lines first-1 and first).
local function span(h, side)
  if side == 'before' then
    return h.a, h.n
  end
  return h.c, h.m
end

--- The hunk of file at line (1-based) of side ('before' = the current
--- text, 'after' = the proposal), or nil. A hunk that adds (or removes)
--- lines only, and so covers no line on one side, is found from the lines
--- next to where it sits.
function M.hunk_at(file, side, line)
  local near
  for _, h in ipairs(file.hunks) do
    if h.whole then
      return h
    end
    local first, count = span(h, side)
    if count > 0 and line >= first and line < first + count then
      return h
    end
    if count == 0 and not near and (line == first - 1 or line == first) then
      near = h
    end
  end
  return near
end

-- The line a hunk's mark goes on, on side, within nlines.
local function mark_line(h, side, nlines)
  if h.whole then
    return 1
  end
  local first, count = span(h, side)
  if count == 0 then
    first = first - 1
  end
  return math.max(1, math.min(first, math.max(nlines, 1)))
end

local text_lines = compat.text_lines

-- The review item made from prompt params.
local function item_of(params, client_id)
  local files = {}
  for _, f in ipairs(type(params.files) == 'table' and params.files or {}) do
    local path = str(f.path)
    local file = {
      path = path,
      uri = str(f.uri),
      name = vim.fn.fnamemodify(path, ':~:.'),
      before = str(f.before),
      after = str(f.after),
      hunks = {},
    }
    for _, h in ipairs(type(f.hunks) == 'table' and f.hunks or {}) do
      local hunk = { id = str(h.id), header = str(h.header), diff = str(h.diff) }
      local pos = M.parse_header(hunk.header)
      if pos then
        hunk.a, hunk.n, hunk.c, hunk.m = pos.a, pos.n, pos.c, pos.m
      else
        hunk.whole = true
      end
      table.insert(file.hunks, hunk)
    end
    table.insert(files, file)
  end
  return { client_id = client_id, params = params, files = files, state = {}, tabs = {}, bufs = {} }
end

--- The accepted hunk ids of a review, in order, and the number of hunks.
function M.accepted_ids(item)
  local ids, total = {}, 0
  for _, f in ipairs(item.files) do
    for _, h in ipairs(f.hunks) do
      total = total + 1
      if item.state[h.id] == 'accepted' then
        table.insert(ids, h.id)
      end
    end
  end
  return ids, total
end

--------------------------------------------------------------------------
-- Showing the state.

local labels = { accepted = 'accepted', rejected = 'rejected' }
local signs = { accepted = 'A', rejected = 'R' }
local groups = { accepted = 'WhaleReviewAccepted', rejected = 'WhaleReviewRejected' }

--- Milliseconds until the review's deadline (nil without one).
function M.time_left(item)
  if not item.deadline then
    return nil
  end
  return math.max(0, item.deadline - vim.loop.now())
end

--- "m:ss" for ms.
function M.clock(ms)
  local s = math.floor(ms / 1000 + 0.5)
  return string.format('%d:%02d', math.floor(s / 60), s % 60)
end

-- What each pane shows, in words, first on its status line (a narrow
-- window cuts the end, not this).
local side_labels = { before = 'CURRENT', after = 'PROPOSED' }

local function statusline(item, index, side)
  local f = item.files[index]
  local counts = { accepted = 0, rejected = 0, undecided = 0 }
  for _, h in ipairs(f.hunks) do
    local s = item.state[h.id] or 'undecided'
    counts[s] = counts[s] + 1
  end
  local k = keys()
  local left = M.time_left(item)
  local head = string.format(
    '%s%s | %d accepted, %d rejected, %d undecided | %s (file %d/%d)',
    side_labels[side] or '',
    left and (' | ' .. M.clock(left) .. ' left') or '',
    counts.accepted,
    counts.rejected,
    counts.undecided,
    f.name,
    index,
    #item.files
  )
  local tail = string.format(
    ' | %s accept %s reject %s all %s none %s done %s hide %s keys',
    k.accept,
    k.reject,
    k.accept_all,
    k.reject_all,
    k.done,
    k.close,
    k.help
  )
  -- %< : a narrow window cuts the keys, never the label and the counts.
  return head:gsub('%%', '%%%%') .. '%<' .. tail:gsub('%%', '%%%%')
end

local function paint(item)
  for buf, pos in pairs(by_buf) do
    if pos.item == item and vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
      local f = item.files[pos.index]
      local nlines = vim.api.nvim_buf_line_count(buf)
      for i, h in ipairs(f.hunks) do
        local s = item.state[h.id]
        local text = string.format(' %s (%d/%d): %s ', h.id, i, #f.hunks, labels[s] or 'undecided')
        pcall(vim.api.nvim_buf_set_extmark, buf, ns, mark_line(h, pos.side, nlines) - 1, 0, {
          sign_text = signs[s] or '?',
          sign_hl_group = groups[s] or 'WhaleReviewUndecided',
          virt_text = { { text, groups[s] or 'WhaleReviewUndecided' } },
          virt_text_pos = 'eol',
        })
      end
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        vim.api.nvim_win_set_option(win, 'statusline', statusline(item, pos.index, pos.side))
      end
    end
  end
end

--------------------------------------------------------------------------
-- Answering and closing.

local show_next

-- Delete the review's buffers (which closes their windows and tabs) and go
-- back to the tab that was current before.
local function close_ui(item)
  for _, buf in ipairs(item.bufs) do
    by_buf[buf] = nil
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  item.bufs, item.tabs = {}, {}
  if item.prev_tab and vim.api.nvim_tabpage_is_valid(item.prev_tab) then
    pcall(vim.api.nvim_set_current_tabpage, item.prev_tab)
  end
end

local function stop_timer(item)
  local t = item.timer
  item.timer = nil
  if t and not t:is_closing() then
    t:stop()
    t:close()
  end
  t = item.ticker
  item.ticker = nil
  if t and not t:is_closing() then
    t:stop()
    t:close()
  end
end

-- fn(event, item) for 'waiting' (a review arrived) and 'settled' (it was
-- answered or ended): chat adapters show the wait in their chat.
M.listeners = {}

local function emit(event, item)
  for _, fn in ipairs(M.listeners) do
    pcall(fn, event, item)
  end
end

local function settle(item)
  item.done = true
  emit('settled', item)
  stop_timer(item)
  for i, q in ipairs(queue) do
    if q == item then
      table.remove(queue, i)
      break
    end
  end
  close_ui(item)
  if current == item then
    current = nil
  end
  vim.schedule(show_next)
end

--- Send the answer {optionId, hunks?, text?} | {cancelled = true} and drop
--- the review.
function M.finish(item, params)
  if item.done then
    return
  end
  require('whale.prompts').answer(item, params)
  settle(item)
end

local function expire(item)
  if item.done then
    return
  end
  settle(item)
  compat.notify_user(
    'the review timed out, so the change was not applied: ' .. str(item.params.title),
    vim.log.levels.WARN
  )
end

--------------------------------------------------------------------------
-- Keys.

local function here()
  local buf = vim.api.nvim_get_current_buf()
  local pos = by_buf[buf]
  if not pos or pos.item.done then
    return nil
  end
  return pos, buf
end

--- Mark the hunk under the cursor 'accepted' or 'rejected', then move to
--- the next hunk of the file.
function M.decide(verdict)
  local pos = here()
  if not pos then
    return
  end
  local f = pos.item.files[pos.index]
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local h = M.hunk_at(f, pos.side, line)
  if not h then
    compat.notify_user(
      'no hunk under the cursor (]c and [c move between changes)',
      vim.log.levels.WARN
    )
    return
  end
  pos.item.state[h.id] = verdict
  paint(pos.item)
  for i, x in ipairs(f.hunks) do
    if x == h and f.hunks[i + 1] then
      local nlines = vim.api.nvim_buf_line_count(0)
      pcall(vim.api.nvim_win_set_cursor, 0, { mark_line(f.hunks[i + 1], pos.side, nlines), 0 })
      break
    end
  end
end

--- Accept the whole change.
function M.accept_all()
  local pos = here()
  if pos then
    M.finish(pos.item, { optionId = 'accept' })
  end
end

--- Reject the whole change, with the reason asked with vim.ui.input
--- (empty: none; dismissed: nothing is sent).
function M.reject_all()
  local pos = here()
  if not pos then
    return
  end
  local item = pos.item
  vim.ui.input({ prompt = 'Reason for rejecting the change (optional): ' }, function(text)
    if text == nil or item.done then
      return
    end
    local params = { optionId = 'reject' }
    if vim.trim(text) ~= '' then
      params.text = text
    end
    M.finish(item, params)
  end)
end

--- Send the decisions: the accepted hunks are applied, the others (rejected
--- or undecided) are not.
function M.done()
  local pos = here()
  if not pos then
    return
  end
  local ids, total = M.accepted_ids(pos.item)
  if #ids == 0 then
    M.finish(pos.item, { optionId = 'reject' })
  elseif #ids == total then
    M.finish(pos.item, { optionId = 'accept' })
  else
    M.finish(pos.item, { optionId = 'accept', hunks = ids })
  end
end

--- Hide the review's tabs; it stays open (:WhaleReview) until answered or
--- timed out.
function M.hide()
  local pos = here()
  if pos then
    close_ui(pos.item)
    local left = M.time_left(pos.item)
    compat.notify_user(
      'the review is still waiting'
        .. (left and (' (' .. M.clock(left) .. ' left)') or '')
        .. ': :WhaleReview shows it again'
    )
  end
end

-- A hidden review is recalled this long before its deadline.
M.remind_ms = 30000

--- Each second: the time left on the review's status lines; once, shortly
--- before the deadline of a hidden review, a message (never a silent end).
local function tick(item)
  if item.done then
    stop_timer(item)
    return
  end
  local left = M.time_left(item)
  if not left then
    return
  end
  if #item.bufs > 0 then
    paint(item)
  elseif left <= M.remind_ms and not item.reminded then
    item.reminded = true
    compat.notify_user(
      string.format(
        '%s is waiting for your review: %s left, then it is rejected. :WhaleReview shows it',
        str(item.params.title),
        M.clock(left)
      ),
      vim.log.levels.WARN
    )
  end
end

local function help()
  local k = keys()
  compat.notify_user(table.concat({
    'review keys:',
    string.format('  %-6s accept the hunk under the cursor', k.accept),
    string.format('  %-6s reject the hunk under the cursor', k.reject),
    string.format('  %-6s accept the whole change (sent at once)', k.accept_all),
    string.format('  %-6s reject the whole change, with a reason (sent at once)', k.reject_all),
    string.format(
      '  %-6s done: apply the accepted hunks (undecided ones count as rejected)',
      k.done
    ),
    string.format('  %-6s hide the review (:WhaleReview shows it again)', k.close),
    '  ]c [c  next / previous change. See :help whale-review',
  }, '\n'))
end

local function map_keys(buf)
  local k = keys()
  local function map(lhs, fn, desc)
    if lhs and lhs ~= '' then
      vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
    end
  end
  map(k.accept, function()
    M.decide('accepted')
  end, 'whale: accept this hunk')
  map(k.reject, function()
    M.decide('rejected')
  end, 'whale: reject this hunk')
  map(k.accept_all, M.accept_all, 'whale: accept the whole change')
  map(k.reject_all, M.reject_all, 'whale: reject the whole change')
  map(k.done, M.done, 'whale: apply the accepted hunks')
  map(k.close, M.hide, 'whale: hide the review')
  map(k.help, help, 'whale: review keys')
end

--------------------------------------------------------------------------
-- Opening.

local set_name = compat.set_buf_name

local function side_buffer(item, index, side, name)
  local f = item.files[index]
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, text_lines(f[side]))
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  set_name(buf, name)
  if f.path ~= '' then
    pcall(vim.api.nvim_buf_call, buf, function()
      vim.cmd('silent! doautocmd filetypedetect BufRead ' .. vim.fn.fnameescape(f.path))
    end)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  vim.api.nvim_buf_set_var(
    buf,
    'whale_review',
    { promptId = str(item.params.promptId), path = f.path, side = side }
  )
  by_buf[buf] = { item = item, index = index, side = side }
  table.insert(item.bufs, buf)
  map_keys(buf)
  return buf
end

local function open_ui(item)
  close_ui(item)
  -- The keys are Normal mode ones; a review may arrive while you type.
  if vim.api.nvim_get_mode().mode:sub(1, 1) == 'i' then
    vim.cmd('stopinsert')
  end
  local prev = vim.api.nvim_get_current_tabpage()
  local first_tab, first_win
  for index, f in ipairs(item.files) do
    vim.cmd('tabnew')
    local scratch = vim.api.nvim_get_current_buf()
    -- Named for the tab line: the file, then which side (a scheme such as
    -- whale:// would be shortened to w//r/p/...).
    local bbuf = side_buffer(item, index, 'before', f.name .. ' [current]')
    local abuf = side_buffer(item, index, 'after', f.name .. ' [proposed]')
    vim.api.nvim_win_set_buf(0, bbuf)
    if scratch ~= bbuf and vim.api.nvim_buf_is_valid(scratch) then
      pcall(vim.api.nvim_buf_delete, scratch, { force = true })
    end
    vim.cmd('diffthis')
    vim.cmd('rightbelow vsplit')
    vim.api.nvim_win_set_buf(0, abuf)
    vim.cmd('diffthis')
    if f.hunks[1] then
      pcall(
        vim.api.nvim_win_set_cursor,
        0,
        { mark_line(f.hunks[1], 'after', vim.api.nvim_buf_line_count(abuf)), 0 }
      )
    end
    local tab = vim.api.nvim_get_current_tabpage()
    table.insert(item.tabs, tab)
    if not first_tab then
      first_tab, first_win = tab, vim.api.nvim_get_current_win()
    end
  end
  item.prev_tab = item.prev_tab or prev
  paint(item)
  if first_tab then
    vim.api.nvim_set_current_tabpage(first_tab)
    vim.api.nvim_set_current_win(first_win)
  end
end

--- Show the review on screen (again).
function M.show(item)
  item = item or current
  if not item or item.done then
    return false
  end
  local tab = item.tabs[1]
  if
    tab
    and vim.api.nvim_tabpage_is_valid(tab)
    and #item.bufs > 0
    and vim.api.nvim_buf_is_valid(item.bufs[1])
  then
    vim.api.nvim_set_current_tabpage(tab)
    return true
  end
  open_ui(item)
  return true
end

show_next = function()
  if current or #queue == 0 then
    return
  end
  current = table.remove(queue, 1)
  if #current.files == 0 then
    M.finish(current, { cancelled = true })
    return
  end
  local auto = not (config.options.review and config.options.review.auto_open == false)
  if not auto then
    compat.notify_user(str(current.params.title) .. ': :WhaleReview shows it')
    return
  end
  local ok, err = pcall(M.show, current)
  if ok then
    compat.notify_user(
      str(current.params.title) .. '. ' .. str(current.params.detail) .. ' (g? lists the keys)'
    )
  else
    local item = current
    compat.notify_user('could not show the review: ' .. tostring(err), vim.log.levels.ERROR)
    M.finish(item, { cancelled = true })
  end
end

--- A whale/prompt of kind "review" (from prompts.on_prompt).
function M.on_prompt(params, client_id)
  local item = item_of(params, client_id)
  local ms = tonumber(params.timeoutMs)
  if ms and ms > 0 then
    item.deadline = vim.loop.now() + ms
    item.timer = vim.defer_fn(function()
      item.timer = nil
      expire(item)
    end, ms)
    item.ticker = vim.loop.new_timer()
    item.ticker:start(
      1000,
      1000,
      vim.schedule_wrap(function()
        tick(item)
      end)
    )
  end
  table.insert(queue, item)
  emit('waiting', item)
  vim.schedule(show_next)
end

--- :WhaleReview: show the waiting review.
function M.cmd_review()
  if not M.show() then
    compat.notify_user('no change is waiting for review')
  end
end

--- The review on screen (or hidden), or nil.
function M.current()
  return current
end

--- Reviews waiting, the current one included.
function M.pending()
  return #queue + (current and 1 or 0)
end

--- Drop the reviews of a client that exited.
function M.client_exited(client_id)
  local items = vim.list_extend({ current }, queue)
  for _, item in ipairs(items) do
    if item and item.client_id == client_id and not item.done then
      settle(item)
    end
  end
end

return M
