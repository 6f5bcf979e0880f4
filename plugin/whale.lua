-- whale: user commands only. Nothing starts until require('whale').setup().
if vim.g.loaded_whale then
  return
end
vim.g.loaded_whale = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_echo({ { 'whale needs Neovim 0.7 or newer', 'ErrorMsg' } }, true, {})
  return
end

local function whale()
  return require('whale')
end

vim.api.nvim_create_user_command('WhaleTools', function()
  whale().cmd_tools()
end, { desc = 'List the whale tools' })

vim.api.nvim_create_user_command('WhaleCall', function(args)
  whale().cmd_call(args.args)
end, {
  nargs = '+',
  desc = 'Run a whale tool: :WhaleCall {tool} {json}',
  complete = function(arglead, cmdline)
    return whale().complete_tools(arglead, cmdline)
  end,
})

vim.api.nvim_create_user_command('WhaleTerminals', function()
  whale().cmd_terminals()
end, { desc = 'List whale terminal tasks and open one' })

vim.api.nvim_create_user_command('WhalePlan', function()
  whale().cmd_plan()
end, { desc = "Show the assistant's plan and to-do list" })

vim.api.nvim_create_user_command('WhaleChanges', function()
  whale().cmd_changes()
end, { desc = "List whale's changes (checkpoints): diff and revert them" })

vim.api.nvim_create_user_command('WhaleRevert', function(args)
  whale().cmd_revert(args.args, args.bang)
end, {
  nargs = '?',
  bang = true,
  desc = 'Revert a whale change: :WhaleRevert {id}; :WhaleRevert! {id} reverts it and every later one',
  complete = function(arglead)
    return require('whale.changes').complete_ids(arglead)
  end,
})

vim.api.nvim_create_user_command('WhaleReview', function()
  whale().cmd_review()
end, { desc = 'Show the change waiting for review (setting edits.review)' })

vim.api.nvim_create_user_command('WhaleStart', function()
  whale().cmd_start()
end, { desc = 'Start whale-ls for the current workspace' })

vim.api.nvim_create_user_command('WhaleStop', function()
  whale().stop()
end, { desc = 'Stop every whale-ls client' })
