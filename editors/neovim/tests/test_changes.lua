-- Checkpoints: :WhaleChanges lists whale's edits (refreshing by itself on
-- whale/changes/changed), <CR> opens a before/after diff, :WhaleRevert
-- takes an edit back in the buffer and on disk, :WhaleRevert! takes back an
-- entry and every later one, and a conflicting revert changes nothing and
-- shows the hunks.
local H = require('harness')

local ws
local notes = {}
local notify = vim.notify
vim.notify = function(msg, level)
  table.insert(notes, { msg = tostring(msg), level = level })
  notify(msg, level)
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n')
end

local function noted(needle)
  for _, n in ipairs(notes) do
    if n.msg:find(needle, 1, true) then
      return n
    end
  end
end

local function open(name)
  vim.cmd('edit ' .. name)
  local buf = vim.api.nvim_get_current_buf()
  H.client_for(buf)
  return buf
end

local function changes()
  return require('whale.changes')
end

-- The list buffer's state once it holds at least n entries.
local function listed(buf, n)
  local st
  H.wait(function()
    st = changes().state[buf]
    return st and st.entries and #st.entries >= n and st.rows ~= nil
  end, string.format('%d entries in the list', n))
  return st
end

local function line_of(buf, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, true)) do
    if l:find(needle, 1, true) then
      return i
    end
  end
end

local function edit(file, search, replace)
  local env = H.call('edit', { file_path = file, search = search, replace = replace })
  H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
  return env
end

local function close_others()
  vim.cmd('silent! tabonly!')
  vim.cmd('silent! only!')
end

local list_buf, first_id

return {
  {
    ':WhaleChanges lists an edit made through whale, newest first',
    function()
      ws = H.workspace({
        ['a.txt'] = 'alpha\nbeta\ngamma\n',
        ['b.txt'] = 'one\ntwo\nthree\n',
      })
      H.setup()
      local buf = open('a.txt')
      edit('a.txt', 'beta', 'BETA')
      H.wait(function()
        return not vim.api.nvim_buf_get_option(buf, 'modified')
      end, 'the edit to be saved')
      vim.cmd('WhaleChanges')
      list_buf = vim.api.nvim_get_current_buf()
      H.contains(vim.api.nvim_buf_get_name(list_buf), 'whale://changes', 'list buffer name')
      local st = listed(list_buf, 1)
      local e = st.entries[1]
      H.eq(e.tool, 'edit', 'tool')
      H.eq(type(e.files), 'table', 'files')
      H.eq(e.files[1].path, ws .. '/a.txt', 'file path')
      first_id = e.id
      local lnum = line_of(list_buf, e.id)
      H.ok(lnum, 'the entry line shows its id')
      local line = vim.api.nvim_buf_get_lines(list_buf, lnum - 1, lnum, true)[1]
      H.contains(line, 'edit', 'entry line')
      H.contains(
        vim.api.nvim_buf_get_lines(list_buf, lnum, lnum + 1, true)[1],
        'a.txt',
        'the file line below it'
      )
      H.eq(vim.api.nvim_buf_get_option(list_buf, 'modifiable'), false, 'the list is read-only')
    end,
  },
  {
    'the open list refreshes by itself after the next edit (whale/changes/changed)',
    function()
      local before = changes().state[list_buf].loaded
      vim.cmd('wincmd p')
      edit('a.txt', 'gamma', 'GAMMA')
      H.wait(function()
        return changes().state[list_buf].loaded > before and #changes().state[list_buf].entries >= 2
      end, 'the list to refresh with the second entry')
      local st = changes().state[list_buf]
      H.ok(st.entries[1].id ~= first_id, 'the newest entry comes first')
      H.eq(st.entries[2].id, first_id, 'the first edit is second')
      local lnew, lold = line_of(list_buf, st.entries[1].id), line_of(list_buf, first_id)
      H.ok(lnew < lold, 'newest first in the buffer')
    end,
  },
  {
    '<CR> on an entry opens a before/after diff in scratch buffers',
    function()
      close_others()
      vim.cmd('WhaleChanges')
      H.eq(vim.api.nvim_get_current_buf(), list_buf, 'the same list buffer')
      listed(list_buf, 2)
      vim.api.nvim_win_set_cursor(0, { line_of(list_buf, first_id), 0 })
      local tabs = #vim.api.nvim_list_tabpages()
      vim.cmd('exe "normal \\<CR>"')
      H.wait(function()
        return #vim.api.nvim_list_tabpages() == tabs + 1
      end, 'a diff tab')
      local wins = vim.api.nvim_tabpage_list_wins(0)
      H.eq(#wins, 2, 'two windows in the diff tab')
      local bbuf, abuf = vim.api.nvim_win_get_buf(wins[1]), vim.api.nvim_win_get_buf(wins[2])
      H.eq(text(bbuf), 'alpha\nbeta\ngamma', 'before')
      H.eq(text(abuf), 'alpha\nBETA\ngamma', 'after')
      for _, w in ipairs(wins) do
        H.eq(vim.api.nvim_win_get_option(w, 'diff'), true, 'diff is on')
        H.eq(
          vim.api.nvim_buf_get_option(vim.api.nvim_win_get_buf(w), 'buftype'),
          'nofile',
          'scratch'
        )
      end
      H.contains(vim.api.nvim_buf_get_name(bbuf), 'before', 'before buffer name')
      H.contains(vim.api.nvim_buf_get_name(abuf), 'after', 'after buffer name')
      -- q closes the diff tab.
      vim.cmd('normal q')
      H.eq(#vim.api.nvim_list_tabpages(), tabs, 'the diff tab closed')
    end,
  },
  {
    ':WhaleRevert {id} restores the file in the buffer and on disk',
    function()
      close_others()
      local buf = open('a.txt')
      H.eq(text(buf), 'alpha\nBETA\nGAMMA', 'both edits are in the buffer')
      notes = {}
      vim.cmd('WhaleRevert ' .. first_id)
      H.wait(function()
        return text(buf) == 'alpha\nbeta\nGAMMA'
      end, 'the buffer to lose the first edit only')
      H.wait(function()
        return H.read(ws .. '/a.txt') == 'alpha\nbeta\nGAMMA\n'
      end, 'the file on disk to be restored')
      H.wait(function()
        -- One line for the person (the server's message, or the plugin's
        -- own): the file, not the model's text.
        local n = noted('everted')
        return n and n.msg:find('a.txt', 1, true) and not n.msg:find('takes it back', 1, true)
      end, 'the result reported by vim.notify')
      -- The revert is itself an entry, listed first.
      H.wait(function()
        local st = changes().state[list_buf]
        return st
          and #st.entries >= 3
          and type(st.entries[1].revertOf) == 'table'
          and st.entries[1].revertOf[1] == first_id
      end, 'the revert listed as an entry that reverts the first edit')
    end,
  },
  {
    ':WhaleRevert! {id} reverts the entry and every later one',
    function()
      local buf = open('b.txt')
      edit('b.txt', 'one', 'ONE')
      local st = listed(list_buf, 4)
      local id
      H.wait(function()
        st = changes().state[list_buf]
        local e = st.entries[1]
        if e and e.files and e.files[1] and e.files[1].path == ws .. '/b.txt' then
          id = e.id
          return true
        end
      end, 'the b.txt edit listed')
      edit('b.txt', 'three', 'THREE')
      H.eq(text(buf), 'ONE\ntwo\nTHREE', 'both edits')
      vim.cmd('WhaleRevert! ' .. id)
      H.wait(function()
        return text(buf) == 'one\ntwo\nthree'
      end, 'both edits of b.txt reverted')
      H.wait(function()
        return H.read(ws .. '/b.txt') == 'one\ntwo\nthree\n'
      end, 'b.txt restored on disk')
    end,
  },
  {
    'a revert that conflicts with a later change of the same lines changes nothing and shows the hunks',
    function()
      close_others()
      local buf = open('b.txt')
      edit('b.txt', 'two', 'TWO')
      local id
      H.wait(function()
        local e = changes().state[list_buf].entries[1]
        if e and e.tool == 'edit' and e.files[1].path == ws .. '/b.txt' and not e.revertOf then
          id = e.id
          return changes().state[list_buf].entries[1].summary ~= nil
        end
      end, 'the edit listed')
      -- The user changes the same line afterwards.
      vim.api.nvim_buf_set_lines(buf, 1, 2, true, { 'TWO and mine' })
      vim.cmd('silent write')
      notes = {}
      local wins = #vim.api.nvim_list_wins()
      vim.cmd('WhaleRevert ' .. id)
      H.wait(function()
        return #vim.api.nvim_list_wins() > wins
      end, 'the conflicts window')
      local cbuf = vim.api.nvim_get_current_buf()
      H.contains(vim.api.nvim_buf_get_name(cbuf), 'conflicts', 'conflicts buffer name')
      H.eq(vim.api.nvim_buf_get_option(cbuf, 'filetype'), 'diff', 'filetype')
      H.contains(text(cbuf), 'b.txt', 'the conflict names the file')
      local errors = vim.tbl_filter(function(n)
        return n.level == vim.log.levels.ERROR
      end, notes)
      H.ok(#errors > 0, 'reported as an error: ' .. vim.inspect(notes))
      H.eq(text(buf), 'one\nTWO and mine\nthree', 'the buffer is unchanged')
      H.eq(H.read(ws .. '/b.txt'), 'one\nTWO and mine\nthree\n', 'the file is unchanged')
    end,
  },
  {
    'an unknown id is reported, nothing else happens',
    function()
      close_others()
      notes = {}
      vim.cmd('WhaleRevert 20000101T000000.000000Z-0000')
      H.wait(function()
        return #notes > 0
      end, 'a message')
      H.eq(notes[1].level, vim.log.levels.ERROR, 'level')
      H.eq(#vim.api.nvim_list_wins(), 1, 'no conflicts window')
    end,
  },
  {
    ':WhaleChanges shows paths relative to the workspace with their folders, a shell entry by its command (or summary), each tool name once, and which entries a revert took back',
    function()
      close_others()
      vim.fn.mkdir(ws .. '/sub/dir', 'p')
      vim.fn.writefile({ 'deep', 'file' }, ws .. '/sub/dir/c.txt')
      open('sub/dir/c.txt')
      edit('sub/dir/c.txt', 'deep', 'DEEP')
      local env = H.call(
        'shell_run',
        { command = 'mkdir -p build/sub && echo x > build/sub/x.o', mode = 'pipe' }
      )
      H.ok(env.ok, 'shell_run: ' .. tostring(env.text))
      vim.cmd('WhaleChanges')
      local buf = vim.api.nvim_get_current_buf()
      local st
      H.wait(function()
        st = changes().state[buf]
        return st and st.entries and st.entries[1] and st.entries[1].tool == 'shell_run' and st.rows
      end, 'the shell entry listed')
      local shown = text(buf)
      H.contains(shown, '    A build/sub/x.o', 'the created file with its folders:\n' .. shown)
      H.contains(shown, 'sub/dir/c.txt', 'the edited file with its folders')
      local shell = vim.api.nvim_buf_get_lines(
        buf,
        line_of(buf, st.entries[1].id) - 1,
        line_of(buf, st.entries[1].id),
        true
      )[1]
      local _, count = shell:gsub('shell_run', '')
      H.eq(count, 1, 'the tool named once: ' .. shell)
      if st.entries[1].command then
        H.contains(shell, '$ mkdir -p build/sub', 'the command')
      end
      -- A revert marks what it took back.
      local edit_id
      for _, e in ipairs(st.entries) do
        if e.tool == 'edit' and e.files[1] and e.files[1].path == ws .. '/sub/dir/c.txt' then
          edit_id = e.id
        end
      end
      H.ok(edit_id, 'the c.txt edit listed')
      notes = {}
      vim.cmd('WhaleRevert ' .. edit_id)
      -- The entry's own line starts with its id (a revert's line names it too).
      local function entry_line()
        for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, true)) do
          if l:sub(1, #edit_id) == edit_id then
            return l
          end
        end
        return ''
      end
      local ok = pcall(H.wait, function()
        return entry_line():find('[reverted by ', 1, true)
      end, 'the reverted mark on the c.txt edit', 10000)
      H.ok(
        ok,
        'the reverted mark on the c.txt edit; messages: ' .. vim.inspect(notes) .. '\n' .. text(buf)
      )
      H.log('  list: ' .. text(buf):gsub('\n', '\n        '))
    end,
  },
}
