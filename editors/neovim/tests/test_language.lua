-- The language tools with a real gopls attached next to whale: the problems
-- an edit introduced, definition, references and a rename across two files
-- (one not loaded), answered through whale/diagnostics and
-- whale/languageFeature.
--
-- gopls (v0.23) speaks UTF-16 positions only; whale negotiates UTF-8 with
-- Neovim 0.11 (which offers it) and UTF-16 with 0.7.2. The call of Greet in
-- b.go follows CJK text, so on 0.11 every position is converted both ways
-- and a position left unconverted lands beside the name.
--
-- Needs gopls in WHALE_GOPLS (.ci/run installs it).
local H = require('harness')

local gopls = vim.env.WHALE_GOPLS
if not gopls or gopls == '' or vim.fn.executable(gopls) == 0 then
  local why =
    'gopls (go install golang.org/x/tools/gopls@v0.23.0, then set WHALE_GOPLS to its path)'
  if vim.env.CI == 'true' then
    return {
      {
        'gopls is installed',
        function()
          H.fail('CI needs ' .. why)
        end,
      },
    }
  end
  H.log('SKIP test_language: the language tools test needs ' .. why)
  return {}
end

local language_tools =
  { 'problems', 'symbols', 'document_symbols', 'definition', 'references', 'hover', 'rename' }

local a_go =
  'package greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn "hello " + name\n}\n'
local b_go = 'package greet\n\nfunc Welcome() string {\n\treturn "世界世界" + Greet("x")\n}\n'

local ws, gopls_id, a_buf

local function lines(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
end

-- The loaded buffer of a workspace file, if any.
local function loaded(rel)
  local b = vim.fn.bufnr(ws .. '/' .. rel)
  if b ~= -1 and vim.api.nvim_buf_is_loaded(b) then
    return b
  end
end

local function gopls_client()
  return vim.lsp.get_client_by_id(gopls_id)
end

local function start_gopls()
  local cfg = {
    name = 'gopls',
    cmd = { gopls },
    root_dir = ws,
    workspace_folders = { { uri = vim.uri_from_fname(ws), name = ws } },
    capabilities = vim.lsp.protocol.make_client_capabilities(),
  }
  if vim.fn.has('nvim-0.11') == 1 then
    gopls_id = vim.lsp.start(cfg, { attach = false })
  else
    gopls_id = vim.lsp.start_client(cfg)
  end
  H.ok(gopls_id, 'gopls started')
  -- What lspconfig does: attach to every Go buffer, also those whale loads
  -- in the background.
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'go',
    callback = function(args)
      vim.lsp.buf_attach_client(args.buf, gopls_id)
    end,
  })
end

-- whale.<tool> through the real whale client, with the main loop running.
local function call(name, input)
  local env = H.call_loop(name, input, { timeout = 60000 })
  H.ok(type(env) == 'table', 'whale.' .. name .. ' answered')
  return env
end

return {
  {
    'setup: whale and gopls attached to a.go, gopls ready',
    function()
      ws = H.workspace({
        ['go.mod'] = 'module example.com/greet\n\ngo 1.21\n',
        ['a.go'] = a_go,
        ['b.go'] = b_go,
        ['notes.txt'] = 'Greet is a Go function.\n',
      })
      -- A generous problems wait for a busy machine: gopls usually reports
      -- within a second, and whale stops waiting once it has.
      H.setup({ settings = { edits = { problemsWaitMs = 10000 } } })
      start_gopls()
      vim.cmd('edit a.go')
      a_buf = vim.api.nvim_get_current_buf()
      local whale = H.client_for(a_buf)
      H.wait(function()
        local c = gopls_client()
        return c and c.initialized and c.attached_buffers and c.attached_buffers[a_buf]
      end, 'gopls to attach to a.go', 60000)
      H.eq(gopls_client().offset_encoding, 'utf-16', "gopls's position encoding")
      H.eq(
        whale.offset_encoding,
        vim.fn.has('nvim-0.11') == 1 and 'utf-8' or 'utf-16',
        "whale's position encoding"
      )
      -- Ready once it answers a document outline with Greet in it.
      H.wait_loop(function()
        local c = gopls_client()
        local res = require('whale.compat').request_sync(
          c,
          'textDocument/documentSymbol',
          { textDocument = { uri = vim.uri_from_bufnr(a_buf) } },
          2000,
          a_buf
        )
        return res and type(res.result) == 'table' and vim.inspect(res.result):find('Greet') ~= nil
      end, 'gopls to answer for a.go', 60000)
      H.ok(not loaded('b.go'), 'b.go is not loaded')
    end,
  },
  {
    'the language tools are listed with the capability, and absent without it',
    function()
      local names = {}
      for _, t in ipairs(assert(require('whale').tools())) do
        names[t.name] = true
      end
      for _, n in ipairs(language_tools) do
        H.ok(names[n], n .. ' is in the catalog of a client with languageFeatures')
      end
      -- Another whale-ls, started by a client that does not declare it.
      local caps = require('whale').capabilities()
      caps.experimental.whale.languageFeatures = nil
      local other = H.workspace({})
      local id = vim.lsp.start_client({
        name = 'whale_plain',
        cmd = { vim.env.WHALE_LS },
        root_dir = other,
        capabilities = caps,
      })
      local client
      H.wait(function()
        client = vim.lsp.get_client_by_id(id)
        return client and client.initialized
      end, 'the second whale-ls to initialize')
      local res =
        require('whale.compat').request_sync(client, 'whale/tools', vim.empty_dict(), 10000)
      require('whale.compat').stop(client)
      vim.cmd('cd ' .. vim.fn.fnameescape(ws))
      H.ok(res and res.result, 'whale/tools answered')
      local plain = {}
      for _, t in ipairs(res.result.tools) do
        plain[t.name] = true
      end
      H.ok(plain.edit and plain.read_file, 'the plain catalog has edit and read_file')
      for _, n in ipairs(language_tools) do
        H.ok(not plain[n], n .. ' is absent without languageFeatures')
      end
    end,
  },
  {
    'an edit that breaks a.go reports the new problem; the fix reports none',
    function()
      local env = call(
        'edit',
        { file_path = 'a.go', search = '\treturn "hello " + name', replace = '\treturn 42' }
      )
      H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
      H.contains(lines(a_buf), '\treturn 42\n', 'the edit is in the buffer')
      H.contains(env.text, 'The change introduced 1 problem:', 'result')
      H.contains(env.text, 'a.go:5: error: ', 'result names the file and line')
      H.contains(env.text, '(compiler', 'result names the source')
      local problems = call('problems', { path = 'a.go' })
      H.eq(problems.code, 'ok', 'problems code (' .. tostring(problems.text) .. ')')
      H.contains(problems.text, 'a.go:5: error: ', 'problems lists it')
      env = call(
        'edit',
        { file_path = 'a.go', search = '\treturn 42', replace = '\treturn "hello " + name' }
      )
      H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'No new problems in the changed files.', 'result')
      H.eq(H.read(ws .. '/a.go'), a_go, 'a.go on disk')
    end,
  },
  {
    'an edit of a file nothing diagnoses does not wait for problems',
    function()
      local t0 = vim.loop.now()
      local env = call(
        'edit',
        { file_path = 'notes.txt', search = 'Go function', replace = 'Go function in a.go' }
      )
      H.eq(env.code, 'ok', 'edit code (' .. tostring(env.text) .. ')')
      H.ok(not env.text:lower():find('problem'), 'no word on problems: ' .. env.text)
      -- The problems wait of this workspace is 10 s; the edit did not sit it out.
      H.ok(vim.loop.now() - t0 < 3000, 'the edit took ' .. (vim.loop.now() - t0) .. ' ms')
      env = call('problems', { path = 'notes.txt' })
      H.eq(env.ok, false, 'problems of notes.txt')
      H.contains(env.text, 'no language server is attached to notes.txt in Neovim', 'problems')
    end,
  },
  {
    'definition of Greet at its call in b.go (not loaded) is in a.go',
    function()
      local env = call('definition', { file_path = 'b.go', line = 4, symbol = 'Greet' })
      H.eq(env.code, 'ok', 'definition code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'a.go:4: func Greet(name string) string', 'result')
      H.eq(#env.data.locations, 1, 'one definition')
      H.eq(env.data.locations[1].line, 4, 'its line')
    end,
  },
  {
    'references of Greet are in both files',
    function()
      local env = call('references', { file_path = 'a.go', line = 4, symbol = 'Greet' })
      H.eq(env.code, 'ok', 'references code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'a.go:4:', 'the declaration')
      H.contains(env.text, 'b.go:4:', 'the call')
      H.eq(#env.data.locations, 2, 'two references')
    end,
  },
  {
    'hover, the outline of b.go and workspace symbols come from gopls',
    function()
      local env = call('hover', { file_path = 'b.go', line = 4, symbol = 'Greet' })
      H.eq(env.code, 'ok', 'hover code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'func Greet(name string) string', 'hover')
      H.contains(env.text, 'Greet says hello.', 'hover shows the doc comment')
      env = call('document_symbols', { file_path = 'b.go' })
      H.eq(env.code, 'ok', 'document_symbols code (' .. tostring(env.text) .. ')')
      H.contains(env.text, '3 function Welcome', 'outline')
      env = call('symbols', { query = 'Welcome' })
      H.eq(env.code, 'ok', 'symbols code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'function Welcome  b.go:3', 'workspace symbols')
    end,
  },
  {
    'two language requests at once both answer (the second handler runs inside the wait of the first)',
    function()
      local results = {}
      for i, input in ipairs({
        { 'definition', { file_path = 'b.go', line = 4, symbol = 'Greet' } },
        { 'references', { file_path = 'b.go', line = 4, symbol = 'Greet' } },
      }) do
        require('whale').call(input[1], input[2], function(err, env)
          results[i] = err or env
        end)
      end
      H.wait_loop(function()
        return results[1] and results[2]
      end, 'both calls')
      H.eq(results[1].code, 'ok', 'definition (' .. vim.inspect(results[1]) .. ')')
      H.contains(results[1].text, 'a.go:4:', 'definition')
      H.eq(results[2].code, 'ok', 'references (' .. vim.inspect(results[2]) .. ')')
      H.eq(#results[2].data.locations, 2, 'references')
    end,
  },
  {
    'a file no language server knows: the result says so',
    function()
      local env = call('definition', { file_path = 'notes.txt', line = 1, symbol = 'Greet' })
      H.eq(env.ok, false, 'ok')
      H.contains(
        env.text,
        'no language server attached to notes.txt in Neovim offers definition',
        'result'
      )
    end,
  },
  {
    'rename across a.go (open) and b.go (not loaded) is applied by whale and saved',
    function()
      local b = loaded('b.go')
      if b then
        vim.cmd('bwipeout! ' .. b)
      end
      H.ok(not loaded('b.go'), 'b.go is not loaded')
      local env =
        call('rename', { file_path = 'a.go', line = 4, symbol = 'Greet', new_name = 'Hello' })
      H.eq(env.code, 'ok', 'rename code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'Renamed Greet to Hello in 2 files.', 'result')
      local want_a = a_go:gsub('Greet', 'Hello')
      local want_b = b_go:gsub('Greet', 'Hello')
      H.eq(lines(a_buf), want_a, 'the a.go buffer')
      H.wait(function()
        return not vim.api.nvim_buf_get_option(a_buf, 'modified')
      end, 'a.go to be saved')
      H.eq(H.read(ws .. '/a.go'), want_a, 'a.go on disk')
      H.eq(H.read(ws .. '/b.go'), want_b, 'b.go on disk')
      -- whale loaded b.go to read its problems; if it is still loaded, it
      -- holds what is on disk and is not modified.
      b = loaded('b.go')
      if b then
        H.eq(lines(b), want_b, 'the b.go buffer')
        H.eq(vim.api.nvim_buf_get_option(b, 'modified'), false, 'b.go modified')
      end
      H.ok(not env.text:find('introduced'), 'the rename introduced no problems: ' .. env.text)
      -- gopls published both files' diagnostics again (counted through
      -- DiagnosticChanged), so whale knew they had settled and did not wait
      -- out the bound.
      H.contains(env.text, 'No new problems in the changed files.\n', 'result')
    end,
  },
  {
    'gopls stops before Neovim exits',
    function()
      -- Else it may still write its cache while the test folders go.
      require('whale.compat').stop(gopls_client())
      H.wait(function()
        return vim.lsp.get_client_by_id(gopls_id) == nil
      end, 'gopls to exit')
    end,
  },
}
