-- require('whale').mcp_config() describes an MCP server that really works:
-- started as configured, it attaches to this Neovim's whale-ls.
local H = require('harness')

return {
  {
    'mcp_config() starts an MCP server attached to the running whale-ls',
    function()
      local ws = H.workspace({ ['a.txt'] = 'alpha\n' })
      H.setup()
      vim.cmd('edit a.txt')
      H.client_for(vim.api.nvim_get_current_buf())
      local entry = require('whale').mcp_config().mcpServers.whale
      H.eq(entry.command, vim.env.WHALE_LS, 'command')
      H.eq(table.concat(entry.args, ' '), 'mcp --root ' .. ws, 'args')
      local out = {}
      local argv = { entry.command }
      vim.list_extend(argv, entry.args)
      local job = vim.fn.jobstart(argv, {
        on_stdout = function(_, lines)
          vim.list_extend(out, lines)
        end,
      })
      H.ok(job > 0, 'the MCP server starts')
      vim.fn.chansend(job, vim.fn.json_encode({
        jsonrpc = '2.0',
        id = 1,
        method = 'initialize',
        params = {
          protocolVersion = '2025-06-18',
          capabilities = vim.empty_dict(),
          clientInfo = { name = 'test', version = '1' },
        },
      }) .. '\n')
      H.wait(function()
        return table.concat(out, '\n'):find('"id":1', 1, true) ~= nil
      end, 'the MCP initialize answer')
      H.contains(table.concat(out, '\n'), 'attached to the language server', 'instructions')
      vim.fn.jobstop(job)
    end,
  },
}
