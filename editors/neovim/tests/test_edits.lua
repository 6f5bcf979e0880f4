-- Strict edits of open buffers: whale's edit goes through the buffer at its
-- version (unsaved changes included), then whale/saveDocuments writes it;
-- stale or partly stale edits are refused whole, with a reason.
local H = require('harness')

local ws
local function lines(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n')
end

local function client_and_buf(name)
  vim.cmd('edit ' .. name)
  local buf = vim.api.nvim_get_current_buf()
  return H.client_for(buf), buf
end

return {
  {
    'edit changes an open, modified buffer at its version, then saves it',
    function()
      ws = H.workspace({
        ['a.go'] = 'package a\n\nfunc A() int {\n\treturn 1\n}\n',
        ['b.txt'] = 'one\ntwo\nthree\n',
        ['c.txt'] = 'red\ngreen\n',
      })
      H.setup()
      local client, buf = client_and_buf('a.go')
      -- An unsaved change the file on disk does not have.
      vim.api.nvim_buf_set_lines(buf, 0, 1, true, { '// unsaved comment', 'package a' })
      H.ok(vim.api.nvim_buf_get_option(buf, 'modified'), 'buffer is modified')
      local version = require('whale.edits').synced_version(client.id, vim.uri_from_bufnr(buf))
      H.eq(
        version,
        vim.api.nvim_buf_get_changedtick(buf),
        'whale-ls has the buffer at its changedtick'
      )
      local env =
        H.call('edit', { file_path = 'a.go', search = '\treturn 1', replace = '\treturn 42' })
      H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
      H.contains(lines(buf), '// unsaved comment\npackage a', 'the unsaved change is kept')
      H.contains(lines(buf), '\treturn 42', 'the edit is in the buffer')
      -- saveDocuments wrote the buffer: the file on disk has both changes.
      H.wait(function()
        return not vim.api.nvim_buf_get_option(buf, 'modified')
      end, 'the buffer to be saved')
      local disk = H.read(ws .. '/a.go')
      H.contains(disk, '// unsaved comment', 'disk')
      H.contains(disk, 'return 42', 'disk')
      H.contains(env.text, 'saved', 'the result says the change was saved')
    end,
  },
  {
    'the edit is a minimal change: marks and undo survive',
    function()
      local _, buf = client_and_buf('b.txt')
      vim.api.nvim_buf_set_mark(buf, 'a', 3, 2, {})
      local env = H.call('edit', { file_path = 'b.txt', search = 'two', replace = 'TWO' })
      H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
      H.eq(lines(buf), 'one\nTWO\nthree', 'buffer')
      H.eq(vim.api.nvim_buf_get_mark(buf, 'a'), { 3, 2 }, 'mark on the untouched line')
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('silent undo')
      end)
      H.eq(lines(buf), 'one\ntwo\nthree', 'undo restores the line')
    end,
  },
  {
    'a stale version is refused with applied=false and a reason naming the buffer',
    function()
      local client, buf = client_and_buf('c.txt')
      local uri = vim.uri_from_bufnr(buf)
      local version = require('whale.edits').synced_version(client.id, uri)
      local handler = client.handlers['workspace/applyEdit']
        or vim.lsp.handlers['workspace/applyEdit']
      H.eq(handler, require('whale.edits').apply_edit_handler, 'the client uses the strict handler')
      local function edit_of(v, text)
        return {
          textDocument = { uri = uri, version = v },
          edits = {
            {
              range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 3 } },
              newText = text,
            },
          },
        }
      end
      local res = handler(
        nil,
        { edit = { documentChanges = { edit_of(version - 1, 'RED') } } },
        { client_id = client.id, method = 'workspace/applyEdit' }
      )
      H.eq(res.applied, false, 'applied')
      H.contains(res.failureReason, 'c.txt', 'reason')
      H.contains(res.failureReason, 'stale', 'reason')
      H.eq(lines(buf), 'red\ngreen', 'buffer untouched')
      -- Version 0 and null are checked too (Neovim's own handler skips them).
      res = handler(
        nil,
        { edit = { documentChanges = { edit_of(vim.NIL, 'RED') } } },
        { client_id = client.id }
      )
      H.eq(res.applied, false, 'applied for a null version')
      H.eq(lines(buf), 'red\ngreen', 'buffer untouched')
      -- The right version applies.
      res = handler(
        nil,
        { edit = { documentChanges = { edit_of(version, 'RED') } } },
        { client_id = client.id }
      )
      H.eq(res.applied, true, 'applied at the right version')
      H.eq(lines(buf), 'RED\ngreen', 'buffer')
    end,
  },
  {
    'all or none: one stale document refuses the whole edit',
    function()
      local client, bbuf = client_and_buf('b.txt')
      local _, cbuf = client_and_buf('c.txt')
      local edits = require('whale.edits')
      local buri, curi = vim.uri_from_bufnr(bbuf), vim.uri_from_bufnr(cbuf)
      local bv = edits.synced_version(client.id, buri)
      local cv = edits.synced_version(client.id, curi)
      local before_b, before_c = lines(bbuf), lines(cbuf)
      local function doc(uri, v)
        return {
          textDocument = { uri = uri, version = v },
          edits = {
            {
              range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
              newText = 'X',
            },
          },
        }
      end
      -- First document current, second stale: Neovim's handler would apply the first.
      local res = edits.apply_edit_handler(
        nil,
        { edit = { documentChanges = { doc(buri, bv), doc(curi, cv + 7) } } },
        { client_id = client.id }
      )
      H.eq(res.applied, false, 'applied')
      H.contains(res.failureReason, 'c.txt', 'reason names the stale buffer')
      H.eq(lines(bbuf), before_b, 'first buffer untouched')
      H.eq(lines(cbuf), before_c, 'second buffer untouched')
      res = edits.apply_edit_handler(
        nil,
        { edit = { documentChanges = { doc(buri, bv), doc(curi, cv) } } },
        { client_id = client.id }
      )
      H.eq(res.applied, true, 'both current: applied')
      H.eq(lines(bbuf):sub(1, 1), 'X', 'first buffer')
      H.eq(lines(cbuf):sub(1, 1), 'X', 'second buffer')
      -- Resource operations are refused.
      res = edits.apply_edit_handler(nil, {
        edit = {
          documentChanges = { { kind = 'create', uri = vim.uri_from_fname(ws .. '/b.txt') } },
        },
      }, { client_id = client.id })
      H.eq(res.applied, false, 'create refused')
    end,
  },
  {
    'saveDocuments writes the named buffers and answers which were saved',
    function()
      local client, buf = client_and_buf('b.txt')
      vim.api.nvim_buf_set_lines(buf, -1, -1, true, { 'four' })
      local res = require('whale.edits').save_documents_handler(
        nil,
        { uris = { vim.uri_from_bufnr(buf), 'file:///nonexistent/x.txt' } },
        { client_id = client.id }
      )
      H.eq(res.saved, { vim.uri_from_bufnr(buf) }, 'saved')
      H.contains(H.read(ws .. '/b.txt'), 'four', 'disk')
      H.eq(vim.api.nvim_buf_get_option(buf, 'modified'), false, 'modified')
    end,
  },
  {
    'write of a text without a final newline to an open buffer: applied, no false conflict',
    function()
      vim.fn.writefile({ 'a', 'b' }, ws .. '/nofinal.txt')
      local _, buf = client_and_buf('nofinal.txt')
      -- The buffer keeps 'eol': its text always ends with a newline, and the
      -- saved file has one.
      local env = H.call('write', { file_path = 'nofinal.txt', content = 'a\nB' })
      H.eq(env.code, 'ok', 'write code (' .. tostring(env.text) .. ')')
      H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, true), { 'a', 'B' }, 'the buffer')
    end,
  },
}
