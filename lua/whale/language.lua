-- whale/diagnostics and whale/languageFeature: whale-ls asks for what the
-- user's other language servers know (problems, definitions, references,
-- symbols, hover, rename edits), and this module answers from Neovim.
--
--   * whale/diagnostics {uris} -> {items = [{uri, range, severity, message,
--     source?, code?}], published = {uri = count}}: vim.diagnostic.get() of
--     each URI's buffer and how often its diagnostics were set (every
--     loaded file buffer when uris is empty). A file that is not loaded is
--     loaded without being shown, so that its filetype is set and the
--     user's language clients attach and diagnose it. Files nothing
--     diagnoses (no other client attached, no diagnostics) are answered
--     with an error, so that an edit of them does not wait for problems.
--   * whale/languageFeature {kind, uri?, position?, query?, newName?} -> the
--     LSP result of that kind, asked of the buffer's other attached clients
--     (never whale itself): the first non-empty answer, or for references
--     and workspace symbols all answers merged.
--
-- Positions are converted both ways between whale's position encoding (the
-- whale client's offset_encoding) and each other client's. A rename's
-- WorkspaceEdit is only computed here: whale-ls applies it itself.
--
-- Neovim answers a server's request from a synchronous handler (0.7.2 has
-- no other way), so a feature request waits for the other clients with
-- vim.wait, bounded by language.timeout_ms. vim.wait keeps Neovim's loop
-- running: the other clients' answers, their own requests to Neovim and
-- further whale requests are all handled meanwhile.
local compat = require('whale.compat')
local config = require('whale.config')
local loaded_buffer = require('whale.edits').loaded_buffer

local M = {}

-- The LSP request for each kind.
local methods = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  documentSymbols = 'textDocument/documentSymbol',
  workspaceSymbols = 'workspace/symbol',
  rename = 'textDocument/rename',
}

-- Kinds whose answers from several servers are merged.
local merged = { references = true, workspaceSymbols = true }

local function option(name, default)
  local o = config.options.language or {}
  local v = o[name]
  if type(v) == 'number' then
    return v
  end
  return default
end

local function is_nil(v)
  return v == nil or v == vim.NIL
end

local function display(bufnr, uri)
  local name = bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr) or ''
  if name == '' and uri then
    name = vim.uri_to_fname(uri)
  end
  return vim.fn.fnamemodify(name, ':~:.')
end

local function request_error(msg)
  local codes = vim.lsp.protocol.ErrorCodes
  return vim.lsp.rpc.rpc_response_error(codes.RequestFailed or codes.InternalError, msg)
end

--------------------------------------------------------------------------
-- Position encodings. A character index counts UTF-8 bytes, UTF-16 code
-- units or code points; Neovim's own columns are bytes.

local function char_len(byte)
  if byte < 0x80 or (byte >= 0x80 and byte < 0xC0) then
    return 1 -- ASCII, or a stray continuation byte counted alone
  elseif byte < 0xE0 then
    return 2
  elseif byte < 0xF0 then
    return 3
  end
  return 4
end

--- The byte column of character index `index` (in `enc`) in line.
function M.byte_col(line, index, enc)
  if enc == 'utf-8' then
    return math.min(index, #line)
  end
  local units, i = 0, 1
  while i <= #line and units < index do
    local len = char_len(line:byte(i))
    units = units + ((enc == 'utf-16' and len == 4) and 2 or 1)
    i = i + len
  end
  return math.min(i - 1, #line)
end

--- The character index (in `enc`) of byte column col in line.
function M.char_index(line, col, enc)
  col = math.min(col, #line)
  if enc == 'utf-8' then
    return col
  end
  local units, i = 0, 1
  while i <= col do
    local len = char_len(line:byte(i))
    units = units + ((enc == 'utf-16' and len == 4) and 2 or 1)
    i = i + len
  end
  return units
end

--- A reader of lines by (uri, 0-based row): the loaded buffer's text, else
--- the file's on disk; each file is read once per reader.
local function line_reader()
  local cache = {}
  return function(uri, row)
    local c = cache[uri]
    if not c then
      local b = loaded_buffer(uri)
      if b then
        c = { buf = b }
      else
        c = { lines = {} }
        local ok, fname = pcall(vim.uri_to_fname, uri)
        local f = ok and io.open(fname, 'rb')
        if f then
          c.lines = compat.lines(f:read('*a'))
          f:close()
        end
      end
      cache[uri] = c
    end
    if c.buf then
      return vim.api.nvim_buf_get_lines(c.buf, row, row + 1, false)[1] or ''
    end
    return c.lines[row + 1] or ''
  end
end

-- A converter of positions in uri from encoding `from` to `to`; it changes
-- the tables it is given.
local function converter(from, to)
  if from == to then
    return nil
  end
  local read = line_reader()
  local conv = {}
  function conv.pos(uri, p)
    if type(p) == 'table' and type(p.line) == 'number' and type(p.character) == 'number' then
      local line = read(uri, p.line)
      p.character = M.char_index(line, M.byte_col(line, p.character, from), to)
    end
  end
  function conv.range(uri, r)
    if type(r) == 'table' then
      conv.pos(uri, r.start)
      conv.pos(uri, r['end'])
    end
  end
  return conv
end

-- Converts the ranges of one kind's result in place.
local function convert_result(kind, result, uri, conv)
  if is_nil(result) then
    return result
  end
  if not conv then
    conv = { pos = function() end, range = function() end }
  end
  local function location(l)
    if type(l) ~= 'table' then
      return
    end
    if l.targetUri then -- a LocationLink
      conv.range(l.targetUri, l.targetRange)
      conv.range(l.targetUri, l.targetSelectionRange)
      conv.range(uri, l.originSelectionRange)
    elseif l.uri then
      conv.range(l.uri, l.range)
    end
  end
  local function symbols(list)
    for _, s in ipairs(list or {}) do
      if type(s.location) == 'table' then -- SymbolInformation / WorkspaceSymbol
        location(s.location)
      else -- DocumentSymbol
        conv.range(uri, s.range)
        conv.range(uri, s.selectionRange)
        symbols(s.children)
      end
    end
  end
  if kind == 'definition' or kind == 'references' then
    if result.uri or result.targetUri then
      location(result)
    else
      for _, l in ipairs(result) do
        location(l)
      end
    end
  elseif kind == 'hover' then
    conv.range(uri, result.range)
  elseif kind == 'documentSymbols' or kind == 'workspaceSymbols' then
    symbols(result)
  elseif kind == 'rename' then
    if type(result.changes) == 'table' and next(result.changes) == nil then
      -- An empty map decodes to {}, which would go back as an array.
      result.changes = nil
    end
    for u, edits in pairs(is_nil(result.changes) and {} or result.changes) do
      for _, e in ipairs(edits) do
        conv.range(u, e.range)
      end
    end
    for _, dc in ipairs(is_nil(result.documentChanges) and {} or result.documentChanges) do
      if type(dc.textDocument) == 'table' then
        for _, e in ipairs(dc.edits or {}) do
          conv.range(dc.textDocument.uri, e.range)
        end
      end
    end
  end
  return result
end

local function is_empty(kind, result)
  if is_nil(result) or type(result) ~= 'table' then
    return true
  end
  if kind == 'hover' then
    local c = result.contents
    return is_nil(c) or c == '' or (type(c) == 'table' and vim.tbl_isempty(c))
  elseif kind == 'rename' then
    local changes = not is_nil(result.changes) and not vim.tbl_isempty(result.changes)
    local doc = not is_nil(result.documentChanges) and #result.documentChanges > 0
    return not (changes or doc)
  end
  return next(result) == nil
end

--------------------------------------------------------------------------
-- Buffers.

--- The buffer of uri, loaded (without being shown) when it is not, with
--- its filetype set so that the user's language clients attach, and with
--- whale attached so that whale-ls knows the buffer before it plans an
--- edit of the file. nil when the file does not exist.
---@return integer|nil bufnr, boolean loaded_now
function M.load(uri)
  local b = loaded_buffer(uri)
  if b then
    return b, false
  end
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok or not vim.loop.fs_stat(fname) then
    return nil, false
  end
  b = vim.uri_to_bufnr(uri)
  vim.fn.bufload(b)
  if not vim.api.nvim_buf_is_loaded(b) then
    return nil, false
  end
  if vim.api.nvim_buf_get_option(b, 'filetype') == '' then
    -- bufload runs the BufRead autocommands that detect the filetype; when
    -- that did not happen, detect it here (FileType runs too).
    pcall(vim.api.nvim_buf_call, b, function()
      vim.cmd('silent! filetype detect')
    end)
  end
  pcall(function()
    require('whale').attach(b)
  end)
  return b, true
end

--------------------------------------------------------------------------
-- whale/diagnostics

-- published[bufnr]: how many times the buffer's diagnostics were set (a
-- language server's publication or pull answer, a linter's run), counted
-- from DiagnosticChanged. whale-ls compares the counts before and after an
-- edit: a count that moved means a server answered for the new text, even
-- when it found nothing, so the edit need not wait out problemsWaitMs.
local published = {}
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  group = vim.api.nvim_create_augroup('whale_language', { clear = true }),
  callback = function(args)
    if args.buf and args.buf > 0 then
      published[args.buf] = (published[args.buf] or 0) + 1
    end
  end,
})

local function whale_encoding(ctx)
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  return client and client.offset_encoding or 'utf-16'
end

local function file_buffer(b)
  return vim.api.nvim_buf_is_loaded(b)
    and vim.api.nvim_buf_get_option(b, 'buftype') == ''
    and vim.api.nvim_buf_get_name(b) ~= ''
end

local function diagnostic_item(d, uri, bufnr, enc)
  local function line(row)
    return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  end
  local lnum, col = d.lnum or 0, d.col or 0
  local end_lnum, end_col = d.end_lnum or lnum, d.end_col or col
  local item = {
    uri = uri,
    range = {
      start = { line = lnum, character = M.char_index(line(lnum), col, enc) },
      ['end'] = { line = end_lnum, character = M.char_index(line(end_lnum), end_col, enc) },
    },
    severity = d.severity or 1,
    message = d.message or '',
  }
  if not is_nil(d.source) then
    item.source = tostring(d.source)
  end
  local code = d.code
  if is_nil(code) then
    code = vim.tbl_get(d, 'user_data', 'lsp', 'code')
  end
  if not is_nil(code) then
    item.code = code
  end
  return item
end

-- Whether something diagnoses bufnr: a client other than whale is attached
-- to it, or it has diagnostics (from any namespace, e.g. a linter).
local function diagnosed(bufnr)
  if #vim.diagnostic.get(bufnr) > 0 then
    return true
  end
  for _, c in ipairs(compat.get_clients({ bufnr = bufnr })) do
    if c.name ~= require('whale').name then
      return true
    end
  end
  return false
end

--- whale/diagnostics {uris} -> {items}. When none of the named files has
--- a language client attached or any diagnostics, the answer is an error
--- saying so: whale-ls then does not wait for problems that cannot come.
function M.diagnostics_handler(_, params, ctx)
  local enc = whale_encoding(ctx)
  local uris = type(params) == 'table' and type(params.uris) == 'table' and params.uris or {}
  local buffers = {}
  if #uris == 0 then
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if file_buffer(b) then
        table.insert(buffers, { bufnr = b, uri = vim.uri_from_bufnr(b) })
      end
    end
  else
    local any, names = false, {}
    for _, uri in ipairs(uris) do
      local b = M.load(uri)
      if b then
        table.insert(buffers, { bufnr = b, uri = uri })
        any = any or diagnosed(b)
        table.insert(names, display(b, uri))
      end
    end
    if not any and #names > 0 then
      return nil,
        request_error(
          string.format(
            'no language server is attached to %s in Neovim and there are no diagnostics for it',
            table.concat(names, ', ')
          )
        )
    end
  end
  local items, counts = {}, {}
  for _, buf in ipairs(buffers) do
    for _, d in ipairs(vim.diagnostic.get(buf.bufnr)) do
      table.insert(items, diagnostic_item(d, buf.uri, buf.bufnr, enc))
    end
    counts[buf.uri] = published[buf.bufnr] or 0
  end
  -- An empty table would go out as [], not as a map.
  return { items = items, published = next(counts) and counts or nil }
end

--------------------------------------------------------------------------
-- whale/languageFeature

-- The clients other than whale that can answer method for bufnr (every
-- buffer when bufnr is nil), the names of every other client attached, and
-- whether one of those is still starting.
local function other_clients(method, bufnr, whale_id)
  local out, names, starting = {}, {}, false
  for _, c in ipairs(compat.get_clients(bufnr and { bufnr = bufnr } or nil)) do
    if c.id ~= whale_id and c.name ~= require('whale').name and not compat.is_stopped(c) then
      table.insert(names, c.name)
      if not c.initialized then
        starting = true
      elseif compat.supports_method(c, method, bufnr) then
        table.insert(out, c)
      end
    end
  end
  return out, names, starting
end

local function with_position(params, uri, position, conv)
  if position then
    local p = vim.deepcopy(position)
    if conv then
      conv.pos(uri, p)
    end
    params.position = p
  end
  return params
end

-- Asks each client for method, all at once, and waits for every answer up
-- to timeout_ms. Returns {client, err?, result?, timed_out?} per client.
local function ask_all(clients, method, params_for, bufnr, timeout_ms)
  local answers, pending = {}, 0
  for i, c in ipairs(clients) do
    answers[i] = { client = c }
    local ok, sent, id = pcall(compat.request, c, method, params_for(c), function(err, result)
      if not answers[i].done then
        answers[i].err, answers[i].result, answers[i].done = err, result, true
        pending = pending - 1
      end
    end, bufnr)
    if ok and sent then
      answers[i].id = id
      pending = pending + 1
    else
      answers[i].err, answers[i].done =
        { message = ok and 'the request was not sent' or tostring(sent) }, true
    end
  end
  if pending > 0 then
    vim.wait(timeout_ms, function()
      return pending <= 0
    end, 10)
  end
  for _, a in ipairs(answers) do
    if not a.done then
      a.done, a.timed_out = true, true
      if a.id then
        pcall(compat.cancel_request, a.client, a.id)
      end
    end
  end
  return answers
end

-- A key identifying a location or symbol, so that merged answers from two
-- servers do not list one place twice.
local function place_key(item)
  local l = item.location or item
  local uri = l.uri or l.targetUri or ''
  local r = l.range or l.targetSelectionRange or {}
  local s, e = r.start or {}, r['end'] or {}
  return table.concat({
    item.name or '',
    uri,
    tostring(s.line),
    tostring(s.character),
    tostring(e.line),
    tostring(e.character),
  }, '\0')
end

local function as_list(result)
  if result.uri or result.targetUri then
    return { result }
  end
  return result
end

--- whale/languageFeature {kind, uri?, position?, query?, newName?} -> result
function M.feature_handler(_, params, ctx)
  params = type(params) == 'table' and params or {}
  local kind = params.kind
  local method = methods[kind]
  if not method then
    return nil,
      vim.lsp.rpc.rpc_response_error(
        vim.lsp.protocol.ErrorCodes.InvalidParams,
        string.format(
          'unknown language feature kind %q; kinds are definition, references, hover, documentSymbols, workspaceSymbols and rename',
          tostring(kind)
        )
      )
  end
  local whale_enc = whale_encoding(ctx)
  local timeout = option('timeout_ms', 10000)
  local bufnr, loaded_now, where
  if kind ~= 'workspaceSymbols' then
    if type(params.uri) ~= 'string' then
      return nil,
        vim.lsp.rpc.rpc_response_error(
          vim.lsp.protocol.ErrorCodes.InvalidParams,
          kind .. ' needs a uri'
        )
    end
    bufnr, loaded_now = M.load(params.uri)
    if not bufnr then
      return nil,
        request_error(
          string.format('%s does not exist or cannot be loaded in Neovim', display(nil, params.uri))
        )
    end
    where = display(bufnr, params.uri)
  end
  local clients, names, starting = other_clients(method, bufnr, ctx and ctx.client_id)
  if #clients == 0 and (loaded_now or starting) then
    -- A client still starting: wait for it (up to the request's timeout).
    -- A buffer loaded just now: give the user's language clients a moment
    -- to attach.
    vim.wait(starting and timeout or option('attach_wait_ms', 1000), function()
      clients, names, starting = other_clients(method, bufnr, ctx and ctx.client_id)
      return #clients > 0 or (#names > 0 and not starting)
    end, 20)
  end
  if #clients == 0 then
    local attached = #names > 0 and table.concat(names, ', ') or 'none'
    if where then
      return nil,
        request_error(
          string.format(
            'no language server attached to %s in Neovim offers %s (other clients attached: %s)',
            where,
            kind,
            attached
          )
        )
    end
    return nil, request_error(string.format('no language server running in Neovim offers %s', kind))
  end
  local uri = bufnr and vim.uri_from_bufnr(bufnr)
  local convs = {}
  local function conv_for(from, to)
    local key = from .. '>' .. to
    convs[key] = convs[key] or { converter(from, to) }
    return convs[key][1]
  end
  local answers = ask_all(clients, method, function(c)
    local enc = c.offset_encoding or 'utf-16'
    local p
    if kind == 'workspaceSymbols' then
      p = { query = params.query or '' }
    elseif kind == 'documentSymbols' then
      p = { textDocument = { uri = uri } }
    else
      p = with_position(
        { textDocument = { uri = uri } },
        uri,
        params.position,
        conv_for(whale_enc, enc)
      )
      if kind == 'references' then
        p.context = { includeDeclaration = true }
      elseif kind == 'rename' then
        p.newName = params.newName
      end
    end
    return p
  end, bufnr, timeout)
  local out, seen, failures = nil, {}, {}
  for _, a in ipairs(answers) do
    if a.timed_out then
      table.insert(
        failures,
        string.format('%s did not answer %s within %d ms', a.client.name, method, timeout)
      )
    elseif a.err and not is_nil(a.err) then
      table.insert(
        failures,
        string.format(
          '%s could not answer %s: %s',
          a.client.name,
          method,
          tostring(a.err.message or vim.inspect(a.err))
        )
      )
    elseif not is_empty(kind, a.result) then
      local enc = a.client.offset_encoding or 'utf-16'
      local result = convert_result(kind, a.result, uri, conv_for(enc, whale_enc))
      if not merged[kind] then
        return result
      end
      out = out or {}
      for _, item in ipairs(as_list(result)) do
        local k = place_key(item)
        if not seen[k] then
          seen[k] = true
          table.insert(out, item)
        end
      end
    end
  end
  if out then
    return out
  end
  if #failures > 0 and #failures == #answers then
    return nil, request_error(table.concat(failures, '; '))
  end
  return vim.NIL
end

return M
