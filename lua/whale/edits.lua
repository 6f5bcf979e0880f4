-- Strict workspace/applyEdit and whale/saveDocuments for the whale client.
--
-- Neovim's own applyEdit handler checks only the first document of an edit,
-- only when the buffer is newer, never for version 0/null, and answers
-- applied=true even when it skipped. whale-ls pins every edit to the version
-- of the buffer it was computed against, so this handler:
--   * checks every TextDocumentEdit against the version this client last
--     sent to whale-ls for that buffer, and that no change is still waiting
--     to be sent;
--   * applies all documents or none (buffers already changed are restored
--     when a later one fails);
--   * answers applied=false with a failureReason that names the buffer.
--
-- The version whale-ls knows is recorded by watching the notifications this
-- client sends (didOpen/didChange/didClose), not Neovim's shared
-- util.buf_versions, which another client's didOpen resets to 0.
local compat = require('whale.compat')

local M = {}

-- synced[client_id][uri] = { bufnr, version, mark }: the version whale-ls
-- was last sent for uri, and the buffer's changedtick it corresponds to.
local synced = {}
-- line_tick[bufnr]: changedtick of the buffer's last text change.
local line_tick = {}
local watching = {}
-- client ids whose notifications we see.
local intercepting = {}

local function display(bufnr, uri)
  local name = bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr) or ''
  if name == '' then
    name = vim.uri_to_fname(uri)
  end
  return vim.fn.fnamemodify(name, ':~:.')
end

local function watch_lines(bufnr)
  if watching[bufnr] or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  watching[bufnr] = true
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function(_, b, tick)
      if not watching[b] then
        return true
      end
      line_tick[b] = tick
    end,
    on_reload = function(_, b)
      line_tick[b] = vim.api.nvim_buf_get_changedtick(b)
    end,
    on_detach = function(_, b)
      watching[b] = nil
      line_tick[b] = nil
    end,
  })
end

--- Record a text-document notification the client sends to whale-ls.
local function record(client_id, method, params)
  local td = type(params) == 'table' and params.textDocument
  if type(td) ~= 'table' or type(td.uri) ~= 'string' then
    return
  end
  local docs = synced[client_id]
  if not docs then
    docs = {}
    synced[client_id] = docs
  end
  if method == 'textDocument/didClose' then
    docs[td.uri] = nil
    return
  end
  local bufnr = docs[td.uri] and docs[td.uri].bufnr
  if not (bufnr and vim.api.nvim_buf_is_valid(bufnr)) then
    bufnr = vim.uri_to_bufnr(td.uri)
  end
  if method == 'textDocument/didOpen' then
    docs[td.uri] =
      { bufnr = bufnr, version = td.version, mark = vim.api.nvim_buf_get_changedtick(bufnr) }
    watch_lines(bufnr)
  elseif method == 'textDocument/didChange' then
    -- Neovim sends the changedtick of the last change as the version.
    docs[td.uri] = { bufnr = bufnr, version = td.version, mark = td.version }
  end
end

--- Watch what the client sends, from on_init on. Wrapping rpc.notify covers
--- every path that sends notifications on 0.7 to 0.11 (client.notify and
--- client:notify both end in rpc.notify).
function M.track_client(client)
  local rpc = client.rpc
  if type(rpc) ~= 'table' or type(rpc.notify) ~= 'function' or rpc.__whale_wrapped then
    return
  end
  local notify = rpc.notify
  local id = client.id
  rpc.notify = function(method, params, ...)
    if type(method) == 'string' and method:sub(1, 13) == 'textDocument/' then
      intercepting[id] = true
      local ok, err = pcall(record, id, method, params)
      if not ok then
        vim.schedule(function()
          compat.notify_user('version tracking failed: ' .. tostring(err), vim.log.levels.WARN)
        end)
      end
    end
    return notify(method, params, ...)
  end
  rpc.__whale_wrapped = true
end

--- Called when the client attaches to a buffer (after its didOpen): a
--- fallback record for clients whose notifications could not be watched.
function M.on_attach(client, bufnr)
  watch_lines(bufnr)
  local uri = vim.uri_from_bufnr(bufnr)
  local docs = synced[client.id] or {}
  synced[client.id] = docs
  if not docs[uri] and not intercepting[client.id] then
    local version = vim.lsp.util.buf_versions and vim.lsp.util.buf_versions[bufnr] or 0
    docs[uri] = { bufnr = bufnr, version = version, mark = vim.api.nvim_buf_get_changedtick(bufnr) }
  end
end

function M.forget_client(client_id)
  synced[client_id] = nil
  intercepting[client_id] = nil
end

-- The record for uri: under that exact URI, else under a URI of the same
-- file spelled differently (on Windows: c: or C:, %3A or :, another case).
local function doc_for(client_id, uri)
  local docs = synced[client_id]
  if not docs then
    return nil
  end
  if docs[uri] then
    return docs[uri]
  end
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  for u, doc in pairs(docs) do
    local okd, other = pcall(vim.uri_to_fname, u)
    if okd and compat.same_path(other, fname) then
      return doc
    end
  end
end

--- The loaded buffer of uri (under that URI, or of the same real file).
---@return integer|nil
function M.loaded_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  fname = compat.realpath(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      local name = vim.api.nvim_buf_get_name(b)
      if
        name ~= ''
        and (vim.uri_from_bufnr(b) == uri or compat.same_path(compat.realpath(name), fname))
      then
        return b
      end
    end
  end
end

--- The buffer whale-ls knows under uri, if it is still open.
---@return integer|nil
function M.buffer_for(client_id, uri)
  local doc = doc_for(client_id, uri)
  if doc and vim.api.nvim_buf_is_valid(doc.bufnr) then
    return doc.bufnr
  end
  return M.loaded_buffer(uri)
end

--- The version of the buffer whale-ls was last sent, and whether changes
--- are waiting to be sent.
---@return integer|nil version, boolean pending
function M.synced_version(client_id, uri)
  local doc = doc_for(client_id, uri)
  if not doc then
    return nil, false
  end
  local pending = (line_tick[doc.bufnr] or 0) > (doc.mark or 0)
  return doc.version, pending
end

local function refuse(reason)
  return { applied = false, failureReason = reason }
end

--- Check every document edit; returns a list of {bufnr, edits} or nil, reason.
local function plan(client, edit)
  if type(edit) ~= 'table' then
    return nil, 'the workspace edit is empty'
  end
  local changes = edit.documentChanges
  if (changes == nil or changes == vim.NIL) and edit.changes ~= nil and edit.changes ~= vim.NIL then
    return nil,
      'the edit has no document versions (WorkspaceEdit.changes); whale edits must be versioned documentChanges'
  end
  if type(changes) ~= 'table' then
    return nil, 'the workspace edit has no documentChanges'
  end
  local steps, seen = {}, {}
  for _, change in ipairs(changes) do
    if change.kind ~= nil then
      return nil,
        string.format(
          'resource operation %q is not applied by the whale client; whale-ls writes files that are not open itself',
          tostring(change.kind)
        )
    end
    local td = change.textDocument
    if type(td) ~= 'table' or type(td.uri) ~= 'string' then
      return nil, 'a document edit has no textDocument.uri'
    end
    local uri = td.uri
    local bufnr = M.buffer_for(client.id, uri)
    if not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then
      return nil, string.format('%s is not open in Neovim (nothing was changed)', display(nil, uri))
    end
    local name = display(bufnr, uri)
    if td.version == nil or td.version == vim.NIL then
      return nil,
        string.format(
          'the edit of %s has no version; refusing an unversioned edit (nothing was changed)',
          name
        )
    end
    local version, pending = M.synced_version(client.id, uri)
    if version == nil then
      return nil,
        string.format(
          '%s was never synced with whale-ls by this client (nothing was changed)',
          name
        )
    end
    if version ~= td.version then
      return nil,
        string.format(
          '%s is stale: the buffer is at version %d, the edit was computed for version %d (nothing was changed)',
          name,
          version,
          td.version
        )
    end
    if pending then
      return nil,
        string.format(
          '%s is stale: it has changes that were not yet sent to whale-ls (nothing was changed)',
          name
        )
    end
    if seen[bufnr] then
      return nil, string.format('%s appears twice in one edit (nothing was changed)', name)
    end
    if not vim.api.nvim_buf_get_option(bufnr, 'modifiable') then
      return nil, string.format('%s is not modifiable (nothing was changed)', name)
    end
    local line_count = vim.api.nvim_buf_line_count(bufnr)
    for _, e in ipairs(change.edits or {}) do
      local r = e.range
      if type(r) ~= 'table' or type(r.start) ~= 'table' or type(r['end']) ~= 'table' then
        return nil, string.format('an edit of %s has no range (nothing was changed)', name)
      end
      -- One past the last line is the end of the buffer; anything further
      -- means the edit was computed for other text.
      if r.start.line > line_count or r['end'].line > line_count then
        return nil,
          string.format(
            'an edit of %s reaches line %d but the buffer has %d lines (nothing was changed)',
            name,
            r['end'].line + 1,
            line_count
          )
      end
    end
    seen[bufnr] = true
    table.insert(steps, { bufnr = bufnr, edits = change.edits or {}, name = name })
  end
  return steps
end

--- The strict workspace/applyEdit handler.
function M.apply_edit_handler(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return refuse('the whale client is gone')
  end
  params = params or {}
  local steps, reason = plan(client, params.edit)
  if not steps then
    return refuse(reason)
  end
  local encoding = client.offset_encoding or 'utf-16'
  local done = {}
  for _, step in ipairs(steps) do
    local before = vim.api.nvim_buf_get_lines(step.bufnr, 0, -1, true)
    local was_modified = vim.api.nvim_buf_get_option(step.bufnr, 'modified')
    local ok, err = pcall(vim.lsp.util.apply_text_edits, step.edits, step.bufnr, encoding)
    table.insert(done, { bufnr = step.bufnr, lines = before, modified = was_modified })
    if not ok then
      -- Put back every buffer already changed, this one included.
      for i = #done, 1, -1 do
        local d = done[i]
        pcall(vim.api.nvim_buf_set_lines, d.bufnr, 0, -1, true, d.lines)
        if not d.modified then
          pcall(vim.api.nvim_buf_set_option, d.bufnr, 'modified', false)
        end
      end
      return refuse(
        string.format(
          'applying the edit to %s failed: %s (no buffer was left changed)',
          step.name,
          tostring(err)
        )
      )
    end
  end
  return { applied = true }
end

--- Write one buffer with :write semantics and no prompt. Returns true when
--- the buffer is now saved.
---@return boolean ok, string|nil reason
function M.save_buffer(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return false, 'not loaded'
  end
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return false, 'not a file buffer'
  end
  if vim.api.nvim_buf_get_option(bufnr, 'readonly') then
    return false, 'read-only'
  end
  if not vim.api.nvim_buf_get_option(bufnr, 'modified') then
    return true
  end
  -- write! skips the "file changed since reading it" question, which would
  -- block; a read-only buffer was refused above.
  local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent keepalt write!')
  end)
  if not ok then
    return false, tostring(err)
  end
  return not vim.api.nvim_buf_get_option(bufnr, 'modified')
end

--- whale/saveDocuments {uris} -> {saved = [uri]}
function M.save_documents_handler(_, params, ctx)
  local saved = {}
  params = params or {}
  for _, uri in ipairs(params.uris or {}) do
    local bufnr = M.buffer_for(ctx.client_id, uri)
    if bufnr then
      local ok, why = M.save_buffer(bufnr)
      if ok then
        table.insert(saved, uri)
      elseif why then
        vim.schedule(function()
          compat.notify_user(
            string.format('could not save %s: %s', display(bufnr, uri), why),
            vim.log.levels.WARN
          )
        end)
      end
    end
  end
  return { saved = saved }
end

return M
