-- Checkpoints: the journal of every change whale made (whale/changes/*).
--
-- :WhaleChanges opens a list buffer per workspace root, newest entry first,
-- each entry followed by its files. <CR> opens the before/after diff of the
-- file (or of every file of the entry, one tab each) in scratch buffers; r
-- reverts the entry, R reverts it and every later one. :WhaleRevert[!] {id}
-- does the same from anywhere. The list refreshes when the server says it
-- journaled a change (whale/changes/changed).
local compat = require('whale.compat')
local config = require('whale.config')
local protocol = require('whale.protocol')

local M = {}

local ns = vim.api.nvim_create_namespace('whale_changes')

-- List buffers by root, and per buffer {root, entries, dropped, rows, busy, again}.
local lists = {}
M.state = {}
-- The last entries listed per root (for :WhaleRevert's completion).
local cache = {}

local function whale()
  return require('whale')
end

local str = compat.str

--- Send method to the whale client of root (started when needed) and call
--- cb(err_string|nil, result) on the main loop.
function M.request(root, method, params, cb)
  whale().with_client(root, function(client, err)
    if not client then
      vim.schedule(function()
        cb(err or 'whale-ls is not running')
      end)
      return
    end
    compat.request(client, method, params, function(rpc_err, result)
      vim.schedule(function()
        if rpc_err then
          cb(rpc_err.message or vim.inspect(rpc_err))
        else
          cb(nil, result)
        end
      end)
    end)
  end)
end

--- The root a command acts on: the list buffer's, else the current buffer's.
local function current_root(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local st = M.state[buf]
  if st then
    return st.root
  end
  return whale().root_for(vim.api.nvim_buf_get_name(buf))
end

--------------------------------------------------------------------------
-- Rendering the list.

-- RFC 3339 -> local "YYYY-MM-DD HH:MM:SS" (the text as given when it does
-- not parse).
function M.format_time(s)
  s = str(s)
  local y, mo, d, h, mi, sec, zone = s:match('^(%d+)-(%d+)-(%d+)[Tt ](%d+):(%d+):(%d+)%.?%d*(.*)$')
  if not y then
    return s
  end
  local offset = 0
  if zone ~= '' and zone ~= 'Z' and zone ~= 'z' then
    local sign, zh, zm = zone:match('^([+-])(%d%d):?(%d%d)$')
    if not sign then
      return s
    end
    offset = (tonumber(zh) * 3600 + tonumber(zm) * 60) * (sign == '-' and -1 or 1)
  end
  local fields = {
    year = tonumber(y),
    month = tonumber(mo),
    day = tonumber(d),
    hour = tonumber(h),
    min = tonumber(mi),
    sec = tonumber(sec),
    isdst = false,
  }
  -- os.time reads fields as local time; shift by the local zone's offset.
  local now = os.time()
  local utc_now = os.date('!*t', now)
  utc_now.isdst = false
  local local_now = os.date('*t', now)
  local_now.isdst = false
  local local_offset = os.time(local_now) - os.time(utc_now)
  local epoch = os.time(fields) + local_offset - offset
  return os.date('%Y-%m-%d %H:%M:%S', epoch)
end

local function file_mark(f)
  if f.created == true then
    return 'A'
  elseif f.deleted == true then
    return 'D'
  end
  return 'M'
end

--- A file as the list shows it: its path relative to the workspace root
--- (folders included), else its full path, else the name the server gave.
local function file_name(f, root)
  local rel_path = str(f.relPath)
  if rel_path ~= '' then
    return rel_path
  end
  local path = str(f.path)
  local rel = path ~= '' and root and compat.relative(path, root)
  if rel and rel ~= '' then
    return rel
  end
  if path ~= '' then
    return path
  end
  return str(f.name)
end
M.file_name = file_name

--- What an entry did, in words: the command of a shell task (the entry's
--- command field), else the title the server writes for a person, else its
--- summary, without the tool's name in front (the tool has a column of its
--- own).
local function entry_text(e)
  local command = str(e.command)
  if command ~= '' then
    return '$ ' .. command:gsub('\n', ' ')
  end
  local summary = (str(e.title) ~= '' and str(e.title) or str(e.summary)):gsub('\n', ' ')
  local tool = str(e.tool)
  if tool ~= '' and summary:sub(1, #tool + 1) == tool .. ' ' then
    summary = summary:sub(#tool + 2)
  end
  return summary
end

--- The lines of a list buffer, and what each line stands for:
--- rows[lnum] = {entry = e, file = f|nil}. hl = {{lnum, col, end_col, group}}.
function M.render(root, entries, dropped)
  local lines = {
    'whale changes in ' .. root,
    '<CR> diff  r revert  R revert to before  <C-l> refresh  q close  g? help',
  }
  local rows, hl = {}, {}
  table.insert(hl, { 1, 0, -1, 'Title' })
  table.insert(hl, { 2, 0, -1, 'Comment' })
  if type(dropped) == 'number' and dropped > 0 then
    table.insert(
      lines,
      string.format(
        '(%d older %s dropped: the journal is bounded by changes.maxBytes)',
        dropped,
        dropped == 1 and 'entry was' or 'entries were'
      )
    )
    table.insert(hl, { #lines, 0, -1, 'WarningMsg' })
  end
  table.insert(lines, '')
  if #entries == 0 then
    table.insert(lines, 'No changes yet: whale has not changed a file in this workspace.')
    return lines, rows, hl
  end
  -- Entries a later revert took back: id -> the revert's id.
  local reverted_by = {}
  for _, e in ipairs(entries) do
    if str(e.revertedBy) ~= '' then
      reverted_by[str(e.id)] = str(e.revertedBy)
    end
    for _, id in ipairs(type(e.revertOf) == 'table' and e.revertOf or {}) do
      reverted_by[str(id)] = reverted_by[str(id)] or str(e.id)
    end
  end
  for _, e in ipairs(entries) do
    local id, time, tool = str(e.id), M.format_time(e.time), str(e.tool)
    local line = string.format('%s  %s  %-12s %s', id, time, tool, entry_text(e))
    local reverts = type(e.revertOf) == 'table' and e.revertOf or {}
    if #reverts > 0 then
      line = line .. '  (reverts ' .. table.concat(reverts, ', ') .. ')'
    end
    if reverted_by[id] then
      line = line .. '  [reverted by ' .. reverted_by[id] .. ']'
    end
    table.insert(lines, line)
    local lnum = #lines
    rows[lnum] = { entry = e }
    table.insert(hl, { lnum, 0, #id, 'Identifier' })
    table.insert(hl, { lnum, #id + 2, #id + 2 + #time, 'Comment' })
    table.insert(hl, { lnum, #id + 4 + #time, #id + 4 + #time + #tool, 'Type' })
    for _, f in ipairs(type(e.files) == 'table' and e.files or {}) do
      local name = file_name(f, root)
      local where = str(f.where)
      local fl = string.format(
        '    %s %s  +%s -%s%s',
        file_mark(f),
        name,
        str(f.added),
        str(f.removed),
        where ~= '' and ('  ' .. where) or ''
      )
      table.insert(lines, fl)
      rows[#lines] = { entry = e, file = f }
      table.insert(hl, { #lines, 4, 5, file_mark(f) == 'D' and 'WarningMsg' or 'Special' })
      table.insert(hl, { #lines, 6, 6 + #name, 'Directory' })
    end
  end
  return lines, rows, hl
end

local function paint(buf, st)
  local lines, rows, hl = M.render(st.root, st.entries or {}, st.dropped)
  -- Keep the cursor on the same entry (or file) across a refresh.
  local keep
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    local old = st.rows and st.rows[vim.api.nvim_win_get_cursor(win)[1]]
    if old then
      keep = { id = old.entry.id, path = old.file and old.file.path }
    end
  end
  st.rows = rows
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, h in ipairs(hl) do
    pcall(vim.api.nvim_buf_add_highlight, buf, ns, h[4], h[1] - 1, h[2], h[3])
  end
  if win ~= -1 then
    local target
    for lnum, r in pairs(rows) do
      if keep and r.entry.id == keep.id and (r.file and r.file.path) == keep.path then
        target = lnum
      end
      if not keep and not r.file and (not target or lnum < target) then
        target = lnum
      end
    end
    if target then
      pcall(vim.api.nvim_win_set_cursor, win, { target, 0 })
    end
  end
end

--- Ask the server for the list of buf's root and show it.
function M.refresh(buf, done)
  local st = M.state[buf]
  if not st or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if st.busy then
    st.again = true
    return
  end
  st.busy = true
  local limit = (config.options.changes or {}).limit or 200
  M.request(st.root, protocol.changes_list, { limit = limit }, function(err, result)
    st.busy = false
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    if err then
      st.error = err
      compat.notify_user('cannot list the changes: ' .. err, vim.log.levels.ERROR)
    else
      st.error = nil
      st.entries = type(result) == 'table' and type(result.entries) == 'table' and result.entries
        or {}
      st.dropped = type(result) == 'table' and result.dropped or 0
      cache[st.root] = st.entries
      paint(buf, st)
    end
    st.loaded = (st.loaded or 0) + 1
    if done then
      done(err)
    end
    if st.again then
      st.again = false
      M.refresh(buf)
    end
  end)
end

--- The entry (and file) on the cursor's line of a list buffer.
function M.row_at_cursor(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local st = M.state[buf]
  if not st or not st.rows then
    return nil
  end
  return st.rows[vim.api.nvim_win_get_cursor(0)[1]]
end

local help = {
  'whale changes: keys in this buffer',
  '',
  '  <CR>   open the diff of the file under the cursor (on an entry: every',
  '         file of it, one tab each); q in a diff tab closes it',
  '  r      revert this entry (:WhaleRevert {id})',
  '  R      revert to before this entry: it and every later one (:WhaleRevert! {id})',
  '  <C-l>  refresh (the list also refreshes when whale changes a file)',
  '  q      close this window',
  '  g?     this help',
  '',
  'A revert is itself an entry, so it can be reverted. See :help whale-changes',
}

local function map_keys(buf)
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
  map('<CR>', function()
    local row = M.row_at_cursor(buf)
    if row then
      M.open_diff(current_root(buf), row.entry, row.file)
    end
  end, 'whale: diff of this change')
  map('r', function()
    local row = M.row_at_cursor(buf)
    if row then
      M.revert(current_root(buf), { id = row.entry.id })
    end
  end, 'whale: revert this change')
  map('R', function()
    local row = M.row_at_cursor(buf)
    if row then
      M.revert(current_root(buf), { to = row.entry.id })
    end
  end, 'whale: revert to before this change')
  map('<C-l>', function()
    M.refresh(buf)
  end, 'whale: refresh the changes')
  map('q', function()
    if #vim.api.nvim_list_wins() > 1 then
      vim.cmd('close')
    else
      vim.cmd('bdelete')
    end
  end, 'whale: close')
  map('g?', function()
    compat.notify_user(table.concat(help, '\n'))
  end, 'whale: help')
end

--- :WhaleChanges: open (or focus) the list of root's changes.
---@param root? string default: the current buffer's root
---@return integer buf
function M.open(root)
  root = root or current_root()
  local buf = lists[root]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    -- whale://changes/home/me/x, whale://changes/C:/Users/me/x
    local shown = root:gsub('\\', '/')
    pcall(
      vim.api.nvim_buf_set_name,
      buf,
      'whale://changes' .. (shown:sub(1, 1) == '/' and '' or '/') .. shown
    )
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    vim.api.nvim_buf_set_option(buf, 'swapfile', false)
    vim.api.nvim_buf_set_option(buf, 'filetype', 'whalechanges')
    lists[root] = buf
    M.state[buf] = { root = root, entries = {}, dropped = 0 }
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'whale changes in ' .. root, '', 'Loading...' })
    vim.api.nvim_buf_set_option(buf, 'modifiable', false)
    map_keys(buf)
    vim.api.nvim_create_autocmd('BufWipeout', {
      buffer = buf,
      callback = function()
        M.state[buf] = nil
        if lists[root] == buf then
          lists[root] = nil
        end
      end,
    })
  end
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd('botright 15split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_win_set_option(0, 'wrap', false)
    vim.api.nvim_win_set_option(0, 'number', false)
    vim.api.nvim_win_set_option(0, 'cursorline', true)
  end
  M.refresh(buf)
  return buf
end

--- The list buffer of root, if open.
function M.list_buffer(root)
  local buf = lists[root]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
end

--- whale/changes/changed {latest}: refresh the list of that client's root.
function M.on_changed(_, params, ctx)
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
  local root = client and client.config and client.config.root_dir
  M.latest = type(params) == 'table' and params.latest or M.latest
  vim.schedule(function()
    for r, buf in pairs(lists) do
      if (root == nil or compat.same_path(r, root)) and vim.api.nvim_buf_is_valid(buf) then
        M.refresh(buf)
      end
    end
  end)
end

--------------------------------------------------------------------------
-- Diffs.

local text_lines = compat.text_lines

local set_name = compat.set_buf_name

local function detect_filetype(buf, path)
  pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent! doautocmd filetypedetect BufRead ' .. vim.fn.fnameescape(path))
  end)
end

local function side_buffer(name, lines, path)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  set_name(buf, name)
  if path then
    detect_filetype(buf, path)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  vim.keymap.set(
    'n',
    'q',
    '<Cmd>tabclose<CR>',
    { buffer = buf, nowait = true, silent = true, desc = 'whale: close the diff' }
  )
  return buf
end

--- The before and after buffers of one file of a diff result.
local function side_lines(f, which)
  if f.binary == true then
    return { '(binary file)' }, false
  end
  if f[which .. 'Exists'] == false then
    return {}, false
  end
  return text_lines(f[which]), true
end

--- Open file f (of diff result d, entry id) as a tab: before | after.
---@return integer before_buf, integer after_buf
function M.show_file_diff(id, f, name)
  local before, bexists = side_lines(f, 'before')
  local after, aexists = side_lines(f, 'after')
  local base = string.format('whale://changes/%s/', id)
  vim.cmd('tabnew')
  local scratch = vim.api.nvim_get_current_buf()
  local bbuf = side_buffer(
    base .. 'before/' .. name .. (bexists and '' or ' (did not exist)'),
    before,
    f.binary ~= true and str(f.path) or nil
  )
  local abuf = side_buffer(
    base .. 'after/' .. name .. (aexists and '' or ' (deleted)'),
    after,
    f.binary ~= true and str(f.path) or nil
  )
  vim.api.nvim_win_set_buf(0, bbuf)
  if scratch ~= bbuf and vim.api.nvim_buf_is_valid(scratch) then
    pcall(vim.api.nvim_buf_delete, scratch, { force = true })
  end
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  vim.api.nvim_win_set_buf(0, abuf)
  vim.cmd('diffthis')
  return bbuf, abuf
end

--- <CR>: fetch the entry's diff and open file (or every file) of it.
---@param root string
---@param entry table a list entry
---@param file? table one of entry.files; nil: all of them
function M.open_diff(root, entry, file, done)
  local id = str(entry.id)
  M.request(root, protocol.changes_diff, { id = id }, function(err, result)
    if err or type(result) ~= 'table' then
      compat.notify_user(
        'cannot get the diff of ' .. id .. ': ' .. tostring(err or 'no result'),
        vim.log.levels.ERROR
      )
      if done then
        done(err or 'no result')
      end
      return
    end
    if result.ok == false then
      compat.notify_user(
        str(result.text) ~= '' and str(result.text) or ('no entry ' .. id),
        vim.log.levels.ERROR
      )
      if done then
        done(str(result.code))
      end
      return
    end
    local names = {}
    for _, f in ipairs(type(entry.files) == 'table' and entry.files or {}) do
      names[str(f.path)] = file_name(f, root)
    end
    local shown = {}
    for _, f in ipairs(type(result.files) == 'table' and result.files or {}) do
      if not file or str(f.path) == str(file.path) then
        local b, a = M.show_file_diff(id, f, names[str(f.path)] or file_name(f, root))
        table.insert(shown, { before = b, after = a, path = str(f.path) })
      end
    end
    if #shown == 0 then
      compat.notify_user('entry ' .. id .. ' has no file to show', vim.log.levels.WARN)
    elseif #shown > 1 then
      vim.cmd('tabprevious ' .. (#shown - 1))
      compat.notify_user(string.format('%d files: one tab each (gt for the next)', #shown))
    end
    if done then
      done(nil, shown)
    end
  end)
end

--------------------------------------------------------------------------
-- Reverting.

--- Show the hunks that kept a revert from being made.
function M.show_conflicts(what, result)
  local lines = { '# whale: ' .. what .. ' was not made', '' }
  vim.list_extend(lines, text_lines(result.text))
  for _, c in ipairs(type(result.conflicts) == 'table' and result.conflicts or {}) do
    table.insert(lines, '')
    table.insert(lines, string.format('## %s: %s', str(c.path), str(c.reason)))
    for _, h in ipairs(type(c.hunks) == 'table' and c.hunks or {}) do
      vim.list_extend(lines, text_lines(h))
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  set_name(buf, 'whale://changes/conflicts/' .. what:gsub('%s', '-'))
  vim.api.nvim_buf_set_option(buf, 'filetype', 'diff')
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.cmd('botright 15split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = buf, nowait = true, silent = true })
  return buf
end

--- Revert {id = ...} (that entry) or {to = ...} (it and every later one)
--- through the server; report the result, show conflicts.
---@param root? string
---@param params table {id} | {to}
---@param done? fun(err: string|nil, result: table|nil)
--- One line for the user about a revert that worked: what was reverted,
--- and each file it wrote with its counts (the text for the model, with
--- its journal ids and diff, is not for a message line).
function M.revert_text(what, result, root)
  -- The server's text for a person, when it writes one.
  if str(result.message) ~= '' then
    return (str(result.message):gsub('\n+$', ''))
  end
  local ids = {}
  for _, id in ipairs(type(result.reverted) == 'table' and result.reverted or {}) do
    ids[str(id)] = true
  end
  -- The files of the reverted entries, as last listed.
  local names, seen = {}, {}
  for _, e in ipairs(cache[root] or {}) do
    if ids[str(e.id)] then
      for _, f in ipairs(type(e.files) == 'table' and e.files or {}) do
        local n = file_name(f, root)
        if not seen[n] then
          seen[n] = true
          table.insert(names, n)
        end
      end
    end
  end
  local count = vim.tbl_count(ids)
  if #names == 0 then
    -- Not listed yet: the first sentence of the server's text.
    local first = (compat.lines(str(result.text))[1] or ''):gsub('%s*%(Journal entry.*$', '')
    return first ~= '' and first or (what .. ' done')
  end
  return string.format(
    'reverted %d %s: %s',
    count,
    count == 1 and 'change' or 'changes',
    table.concat(names, ', ')
  )
end

function M.revert(root, params, done)
  root = root or current_root()
  local what = params.to and ('revert to before ' .. params.to)
    or ('revert of ' .. tostring(params.id))
  M.request(root, protocol.changes_revert, params, function(err, result)
    if err or type(result) ~= 'table' then
      compat.notify_user(what .. ' failed: ' .. tostring(err or 'no result'), vim.log.levels.ERROR)
    elseif result.ok == false then
      local text = str(result.text) ~= '' and str(result.text) or str(result.code)
      compat.notify_user(text, vim.log.levels.ERROR)
      if type(result.conflicts) == 'table' and #result.conflicts > 0 then
        M.show_conflicts(what, result)
      end
    else
      compat.notify_user(M.revert_text(what, result, root))
    end
    local buf = M.list_buffer(root)
    if buf then
      M.refresh(buf)
    end
    if done then
      done(err, result)
    end
  end)
end

--- :WhaleRevert[!] [{id}]: without {id}, the entry under the cursor of a
--- list buffer.
function M.cmd_revert(id, bang)
  id = vim.trim(id or '')
  local root = current_root()
  if id == '' then
    local row = M.row_at_cursor()
    if not row then
      compat.notify_user('usage: :WhaleRevert[!] {id} (ids: :WhaleChanges)', vim.log.levels.ERROR)
      return
    end
    id = str(row.entry.id)
  end
  M.revert(root, bang and { to = id } or { id = id })
end

--- Completion of :WhaleRevert: the ids last listed for this root.
function M.complete_ids(arglead)
  local root = current_root()
  local entries = cache[root]
  if not entries then
    local client = whale().get_client(root)
    if client and client.initialized then
      local res = compat.request_sync(client, protocol.changes_list, { limit = 50 }, 2000)
      if res and res.result and type(res.result.entries) == 'table' then
        entries = res.result.entries
        cache[root] = entries
      end
    end
  end
  local out = {}
  for _, e in ipairs(entries or {}) do
    local id = str(e.id)
    if id:sub(1, #arglead) == arglead then
      table.insert(out, id)
    end
  end
  return out
end

return M
