-- :checkhealth whale
local H = require('harness')

local function health_text()
  vim.cmd('silent checkhealth whale')
  return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
end

return {
  {
    ':checkhealth whale reports the server and its tools',
    function()
      H.workspace({ ['a.txt'] = 'x\n' })
      H.setup()
      vim.cmd('edit a.txt')
      H.client_for(vim.api.nvim_get_current_buf())
      local text = health_text()
      H.contains(text, 'whale', 'report')
      H.contains(text, 'OK', 'report')
      H.contains(text, 'read_file', 'the tools are listed')
      H.contains(text, 'client ', 'the running client is listed')
      H.ok(not text:find('ERROR', 1, true), 'no error in:\n' .. text)
      vim.cmd('tabclose')
    end,
  },
  {
    ':checkhealth whale explains a missing whale-ls',
    function()
      require('whale').stop()
      H.setup({ cmd = { 'whale-ls-that-does-not-exist' } })
      local text = health_text()
      H.contains(text, 'ERROR', 'report')
      H.contains(text, 'cannot find whale-ls-that-does-not-exist', 'report')
      H.contains(text, ':Lazy build whale-ls', 'the ways to install it')
      vim.cmd('tabclose')
    end,
  },
  {
    'the help file is well formed and indexes the API',
    function()
      local doc = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
        .. '/doc/whale.txt'
      local dir = vim.fn.tempname()
      vim.fn.mkdir(dir, 'p')
      vim.fn.writefile(vim.fn.readfile(doc), dir .. '/whale.txt')
      vim.cmd('helptags ' .. vim.fn.fnameescape(dir))
      local tags = table.concat(vim.fn.readfile(dir .. '/tags'), '\n')
      for _, tag in ipairs({
        'whale.txt',
        'whale-options',
        'whale.call()',
        'whale.tools()',
        ':WhaleTerminals',
        'whale-codecompanion',
        'whale-avante',
        'whale-build',
        'whale-first-run',
      }) do
        H.contains(tags, tag .. '\t', 'tags')
      end
      -- :help whale opens the introduction.
      H.contains(tags, 'whale\twhale.txt\t/*whale*', 'the whale tag')
      local intro = table.concat(vim.fn.readfile(doc), '\n')
      H.ok(
        intro:find('1%. Introduction%s+%*whale%* %*whale%-intro%*'),
        'the whale tag is at the introduction'
      )
      -- The shipped doc/tags is what :helptags makes of doc/whale.txt
      -- (plugin managers run :helptags too; an unchanged file leaves the
      -- clone clean). After editing the help: nvim --headless -c 'helptags doc' -c q
      local shipped = vim.fn.fnamemodify(doc, ':h') .. '/tags'
      H.eq(vim.fn.readfile(shipped), vim.fn.readfile(dir .. '/tags'), 'doc/tags is up to date')
    end,
  },
}
