-- Review before apply (edits.review = "ask"): a change arrives as a
-- whale/prompt of kind review and opens as diff tabs (current | proposal);
-- the keys accept or reject hunks, and the answer carries the server's
-- hunk ids, so exactly the accepted hunks land in the file. Rejecting asks
-- a reason, which the tool result passes on as denied.
local H = require('harness')

local ws
local real_input = vim.ui.input

local function review()
  return require('whale.review')
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
end

-- Start tool name with input; returns a function that waits for its Envelope.
local function start_call(name, input)
  local env, err, done
  require('whale').call(name, input, function(e, r)
    err, env, done = e, r, true
  end)
  return function()
    H.wait(function()
      return done
    end, 'whale.' .. name)
    H.ok(not err, tostring(err))
    return env
  end
end

-- The review on screen, once its n tabs are open.
local function shown(ntabs)
  local item
  H.wait(function()
    item = review().current()
    return item and #item.tabs == ntabs and #item.bufs == 2 * ntabs
  end, string.format('a review in %d tab(s)', ntabs))
  return item
end

-- Go to the proposal window of the current tab.
local function proposal_window()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    local ok, info = pcall(vim.api.nvim_buf_get_var, buf, 'whale_review')
    if ok and info.side == 'after' then
      vim.api.nvim_set_current_win(win)
      return win, buf
    end
  end
  H.fail('no proposal window in this tab')
end

local function marks(buf)
  local ns = vim.api.nvim_create_namespace('whale_review')
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local vt = m[4].virt_text
    table.insert(out, vt and vt[1][1] or '')
  end
  return table.concat(out, '|')
end

local patch = table.concat({
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1,3 +1,3 @@',
  ' a1',
  '-a2',
  '+A2',
  ' a3',
  '@@ -5,3 +5,3 @@',
  ' a5',
  '-a6',
  '+A6',
  ' a7',
  '',
}, '\n')

return {
  {
    'a change of two hunks opens as a diff tab; accepting one of them applies exactly that',
    function()
      ws = H.workspace({
        ['a.txt'] = 'a1\na2\na3\na4\na5\na6\na7\n',
        ['b.txt'] = 'b1\nb2\nb3\nb4\nb5\nb6\nb7\n',
        ['c.txt'] = 'c\n',
      })
      H.setup({ settings = { edits = { review = 'ask' } } })
      vim.cmd('edit a.txt')
      local abuf = vim.api.nvim_get_current_buf()
      H.client_for(abuf)
      local tab = vim.api.nvim_get_current_tabpage()
      local wait = start_call('apply_patch', { patch = patch })
      local item = shown(1)
      H.eq(#item.files, 1, 'files')
      H.eq(#item.files[1].hunks, 2, 'hunks')
      local win, buf = proposal_window()
      H.ok(vim.api.nvim_win_get_option(win, 'diff'), 'the proposal window is in diff mode')
      H.eq(vim.api.nvim_buf_get_option(buf, 'modifiable'), false, 'the proposal is read-only')
      H.eq(
        vim.api.nvim_buf_get_lines(buf, 0, -1, true),
        { 'a1', 'A2', 'a3', 'a4', 'a5', 'A6', 'a7' },
        'the proposal'
      )
      H.contains(
        vim.api.nvim_win_get_option(win, 'statusline'),
        '0 accepted, 0 rejected, 2 undecided',
        'statusline'
      )
      -- The panes say in words which is which, first on their status lines.
      H.eq(
        vim.api.nvim_win_get_option(win, 'statusline'):sub(1, 8),
        'PROPOSED',
        'the proposal pane is labelled'
      )
      -- The cursor starts on the first hunk; a accepts it and moves on.
      vim.api.nvim_win_set_cursor(win, { 2, 0 })
      vim.cmd('normal a')
      H.eq(vim.api.nvim_win_get_cursor(win)[1], 6, 'the cursor moved to the next hunk')
      vim.cmd('normal r')
      H.contains(marks(buf), 'accepted', 'marks')
      H.contains(marks(buf), 'rejected', 'marks')
      H.contains(
        vim.api.nvim_win_get_option(win, 'statusline'),
        '1 accepted, 1 rejected, 0 undecided',
        'statusline'
      )
      vim.cmd('normal D')
      local env = wait()
      H.eq(env.code, 'ok', 'code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'applied hunk 1 of 2 in a.txt', 'result')
      H.eq(text(abuf), 'a1\nA2\na3\na4\na5\na6\na7\n', 'the buffer holds only the accepted hunk')
      H.wait(function()
        return H.read(ws .. '/a.txt') == 'a1\nA2\na3\na4\na5\na6\na7\n'
      end, 'a.txt on disk to hold only the accepted hunk')
      H.ok(not vim.api.nvim_buf_is_valid(buf), 'the review buffers are gone')
      H.eq(vim.api.nvim_get_current_tabpage(), tab, 'back in the tab of before')
      H.eq(review().pending(), 0, 'nothing waits')
    end,
  },
  {
    'rejecting all asks a reason; the file is unchanged and the result says denied',
    function()
      local before = H.read(ws .. '/b.txt')
      local asked
      vim.ui.input = function(opts, on_confirm)
        asked = opts.prompt
        on_confirm('keep the old names')
      end
      local wait = start_call('multi_edit', {
        file_path = 'b.txt',
        edits = { { search = 'b2', replace = 'B2' }, { search = 'b6', replace = 'B6' } },
      })
      local item = shown(1)
      H.eq(#item.files[1].hunks, 2, 'hunks')
      proposal_window()
      vim.cmd('normal R')
      vim.ui.input = real_input
      local env = wait()
      H.ok(asked, 'a reason was asked')
      H.eq(env.code, 'denied', 'code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'keep the old names', 'the reason')
      H.contains(env.text, 'do not retry', 'result')
      H.eq(H.read(ws .. '/b.txt'), before, 'b.txt unchanged')
    end,
  },
  {
    'several files open one tab each; undecided hunks count as rejected; A accepts all',
    function()
      local two = patch
        .. table.concat({ '--- a/c.txt', '+++ b/c.txt', '@@ -1 +1 @@', '-c', '+C', '' }, '\n')
      -- a.txt now starts with A2: a fresh patch of it.
      two = two:gsub('\n%-a2\n%+A2\n', '\n-A2\n+a2\n')
      local wait = start_call('apply_patch', { patch = two })
      shown(2)
      -- Only the second file's hunk is accepted; a.txt's stay undecided.
      vim.cmd('tabnext')
      local _, cbuf = proposal_window()
      H.eq(
        vim.api.nvim_buf_get_var(cbuf, 'whale_review').path,
        ws .. '/c.txt',
        'the second tab is c.txt'
      )
      vim.cmd('normal a')
      vim.cmd('normal D')
      local env = wait()
      H.eq(env.code, 'ok', 'code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'left a.txt untouched', 'result')
      H.eq(H.read(ws .. '/c.txt'), 'C\n', 'c.txt')
      H.eq(H.read(ws .. '/a.txt'), 'a1\nA2\na3\na4\na5\na6\na7\n', 'a.txt untouched')
      -- Accept all.
      wait = start_call('edit', { file_path = 'c.txt', search = 'C', replace = 'see' })
      shown(1)
      proposal_window()
      vim.cmd('normal A')
      env = wait()
      H.eq(env.code, 'ok', 'code (' .. tostring(env.text) .. ')')
      H.eq(H.read(ws .. '/c.txt'), 'see\n', 'c.txt')
    end,
  },
  {
    'reviews queue, and one whose timeout passes is dropped',
    function()
      local client = require('whale').get_client()
      local notify = vim.notify
      local notes = {}
      vim.notify = function(msg)
        table.insert(notes, tostring(msg))
      end
      local function prompt(id, ms)
        return {
          promptId = id,
          kind = 'review',
          title = 'Review ' .. id,
          timeoutMs = ms,
          options = { { id = 'accept' }, { id = 'reject' } },
          files = {
            {
              path = ws .. '/x.txt',
              uri = vim.uri_from_fname(ws .. '/x.txt'),
              before = '',
              after = 'x\n',
              hunks = { { id = 'h1', header = '@@ create x.txt @@', diff = '+x\n' } },
            },
          },
        }
      end
      local prompts = require('whale.prompts')
      prompts.on_prompt(nil, prompt('p-first', 300), { client_id = client.id })
      prompts.on_prompt(nil, prompt('p-second', 60000), { client_id = client.id })
      local first = shown(1)
      H.eq(first.params.promptId, 'p-first', 'the first review is shown')
      H.eq(review().pending(), 2, 'the second waits')
      H.wait(function()
        local c = review().current()
        return c and c.params.promptId == 'p-second' and #c.tabs == 1
      end, 'the first to time out and the second to be shown')
      H.ok(vim.tbl_isempty(first.bufs), 'the timed-out review is closed')
      local seen = table.concat(notes, '\n')
      H.contains(seen, 'timed out', 'the timeout is reported')
      -- q hides the review; :WhaleReview shows it again.
      proposal_window()
      vim.cmd('normal q')
      H.eq(#review().current().bufs, 0, 'hidden')
      vim.cmd('WhaleReview')
      shown(1)
      -- A whole-file hunk is found from any line.
      local f = review().current().files[1]
      H.eq(review().hunk_at(f, 'after', 1).id, 'h1', 'whole-file hunk')
      vim.cmd('normal A')
      H.wait(function()
        return review().pending() == 0
      end, 'the second review to be answered')
      -- The server no longer knows these prompt ids: it refuses the answer.
      H.wait(function()
        return table.concat(notes, '\n'):find('answer not taken', 1, true) ~= nil
      end, "the server's refusal")
      vim.notify = notify
    end,
  },
  {
    'hunk headers map lines of either side to hunks',
    function()
      local f = {
        hunks = {
          { id = 'h1', a = 2, n = 1, c = 2, m = 1 },
          { id = 'h2', a = 5, n = 0, c = 5, m = 2 }, -- two lines added after line 4
          { id = 'h3', a = 9, n = 2, c = 11, m = 0 }, -- lines 9-10 removed
        },
      }
      local r = review()
      H.eq(r.parse_header('@@ -9,2 +11,0 @@'), { a = 9, n = 2, c = 11, m = 0 }, 'header')
      H.eq(r.parse_header('@@ -3 +3 @@'), { a = 3, n = 1, c = 3, m = 1 }, 'header without counts')
      H.eq(r.parse_header('@@ create x.txt @@'), nil, 'whole-file header')
      H.eq(r.hunk_at(f, 'after', 2).id, 'h1', 'after 2')
      H.eq(r.hunk_at(f, 'after', 3), nil, 'after 3')
      H.eq(r.hunk_at(f, 'after', 6).id, 'h2', 'after 6')
      H.eq(r.hunk_at(f, 'before', 4).id, 'h2', 'before 4: next to the added lines')
      H.eq(r.hunk_at(f, 'before', 10).id, 'h3', 'before 10')
      H.eq(r.hunk_at(f, 'after', 10).id, 'h3', 'after 10: next to the removed lines')
      H.eq(r.hunk_at(f, 'after', 12), nil, 'after 12')
    end,
  },
  {
    'a review with a deadline shows the time left; hidden, it is recalled before it ends, never dropped silently',
    function()
      local client = require('whale').get_client()
      local notify = vim.notify
      local notes = {}
      vim.notify = function(msg)
        table.insert(notes, tostring(msg))
      end
      review().remind_ms = 4000
      require('whale.prompts').on_prompt(nil, {
        promptId = 'p-deadline',
        kind = 'review',
        title = 'Review the change to y.txt',
        timeoutMs = 6000,
        options = { { id = 'accept' }, { id = 'reject' } },
        files = {
          {
            path = ws .. '/y.txt',
            uri = vim.uri_from_fname(ws .. '/y.txt'),
            before = '',
            after = 'y\n',
            hunks = { { id = 'h1', header = '@@ create y.txt @@', diff = '+y\n' } },
          },
        },
      }, { client_id = client.id })
      local item = shown(1)
      H.eq(item.params.promptId, 'p-deadline', 'shown')
      local win = proposal_window()
      H.wait(function()
        return vim.api.nvim_win_get_option(win, 'statusline'):match('0:0[0-5] left')
      end, 'the time left on the status line')
      vim.cmd('normal q')
      H.contains(
        table.concat(notes, '\n'),
        'the review is still waiting (0:0',
        'hiding says how long it waits'
      )
      H.wait(function()
        return table.concat(notes, '\n'):find('is waiting for your review', 1, true)
      end, 'the reminder of the hidden review', 8000)
      H.contains(
        table.concat(notes, '\n'),
        ':WhaleReview shows it',
        'the reminder says how to show it'
      )
      H.wait(function()
        return table.concat(notes, '\n'):find('timed out', 1, true)
      end, 'the end is said too', 8000)
      review().remind_ms = 30000
      vim.notify = notify
    end,
  },
}
