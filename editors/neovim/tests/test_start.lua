-- The server starts, attaches to normal buffers of the workspace, and runs
-- a tool through require('whale').call.
local H = require('harness')

return {
  {
    'starts and attaches to a workspace buffer',
    function()
      local ws = H.workspace({ ['a.txt'] = 'alpha\nbeta\n' })
      H.setup()
      vim.cmd('edit a.txt')
      local buf = vim.api.nvim_get_current_buf()
      local client = H.client_for(buf)
      H.eq(client.name, 'whale_ls', 'client name')
      H.eq(client.config.root_dir, ws, 'root')
      local caps = client.server_capabilities
      H.ok(caps.executeCommandProvider, 'executeCommandProvider advertised')
      local commands = table.concat(caps.executeCommandProvider.commands, ' ')
      H.contains(commands, 'whale.read_file', 'commands')
      -- A scratch buffer is not attached.
      local scratch = vim.api.nvim_create_buf(true, true)
      H.ok(require('whale').buffer_root(scratch) == nil, 'scratch buffers are not attached')
    end,
  },
  {
    'call read_file returns the Envelope',
    function()
      local env = H.call('read_file', { file_path = 'a.txt' })
      H.eq(env.ok, true, 'ok')
      H.eq(env.code, 'ok', 'code')
      H.contains(env.text, 'beta', 'text')
    end,
  },
  {
    'a call made from a non-file buffer goes to the workspace of the current folder',
    function()
      vim.cmd('WhaleTools')
      H.contains(vim.api.nvim_buf_get_name(0), 'whale://tools', 'the tools list is shown')
      H.contains(
        table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'),
        'read_file',
        'tools list'
      )
      local env = H.call('read_file', { file_path = 'a.txt' })
      H.eq(env.code, 'ok', 'code (' .. tostring(env.text) .. ')')
      H.eq(
        #require('whale.compat').get_clients({ name = 'whale_ls' }),
        1,
        'no second server was started'
      )
      vim.cmd('close')
    end,
  },
  {
    'unknown tool is an Envelope, not an error',
    function()
      local env = H.call('no_such_tool', {})
      H.eq(env.ok, false, 'ok')
      H.eq(env.code, 'unknown_tool', 'code')
    end,
  },
  {
    'tools() lists the catalog from the server and from the binary',
    function()
      local tools = assert(require('whale').tools())
      local names = {}
      for _, t in ipairs(tools) do
        names[t.name] = t
      end
      H.ok(
        names.read_file and names.edit and names.shell_run,
        'catalog has read_file, edit, shell_run'
      )
      H.eq(names.read_file.readOnly, true, 'read_file readOnly')
      local async_tools
      require('whale').tools(function(err, t)
        async_tools = t or err
      end)
      H.wait(function()
        return async_tools ~= nil
      end, 'async tools()')
      H.eq(#async_tools, #tools, 'async catalog size')
      require('whale').stop()
      H.wait(function()
        return #require('whale.compat').get_clients({ name = 'whale_ls' }) == 0
      end, 'clients to stop')
      -- whale-ls tools --json has no editor, so no language tools; the
      -- running server lists those because this client declares
      -- languageFeatures.
      local offline = assert(require('whale').tools())
      local language = {
        problems = true,
        symbols = true,
        document_symbols = true,
        definition = true,
        references = true,
        hover = true,
        rename = true,
      }
      local served = 0
      for _, t in ipairs(tools) do
        if not language[t.name] then
          served = served + 1
        end
      end
      H.eq(#tools - served, vim.tbl_count(language), 'language tools in the running catalog')
      H.eq(#offline, served, 'catalog from whale-ls tools --json')
    end,
  },
}
