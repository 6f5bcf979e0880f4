-- End to end: a change typed after whale-ls planned an edit (and not yet
-- sent to it) makes the strict handler refuse; whale-ls reports a
-- write_conflict with the handler's reason and the buffer keeps the user's text.
local H = require('harness')

return {
  {
    'an edit planned against an older buffer is refused by the strict handler',
    function()
      local ws = H.workspace({ ['s.txt'] = 'keep\nchange me\n' })
      -- Hold buffer changes back so the next one is still unsent when the
      -- server's applyEdit arrives.
      H.setup({ debounce_text_changes = 600000 })
      vim.cmd('edit s.txt')
      local buf = vim.api.nvim_get_current_buf()
      H.client_for(buf)
      local env, err, done
      require('whale').call(
        'edit',
        { file_path = 's.txt', search = 'change me', replace = 'changed' },
        function(e, r)
          err, env, done = e, r, true
        end
      )
      -- The request is on its way; the user types before the edit arrives.
      vim.api.nvim_buf_set_lines(buf, 0, 1, true, { 'typed by the user' })
      H.wait(function()
        return done
      end, 'whale.edit')
      H.eq(err, nil, 'call error')
      H.eq(env.code, 'write_conflict', 'code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 's.txt', 'text')
      H.contains(env.text, 'not yet sent', 'the reason of the strict handler reaches the model')
      H.eq(
        vim.api.nvim_buf_get_lines(buf, 0, -1, true),
        { 'typed by the user', 'change me' },
        'buffer'
      )
      H.eq(H.read(ws .. '/s.txt'), 'keep\nchange me\n', 'disk untouched')
    end,
  },
}
