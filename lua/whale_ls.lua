-- The module lazy.nvim picks for this plugin (it is named whale-ls, and
-- lazy calls require('whale_ls').setup(opts) for a spec with `opts`):
-- the same module as require('whale').
return require('whale')
