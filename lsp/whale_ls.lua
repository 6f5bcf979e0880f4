-- The whale_ls configuration for Neovim 0.11's vim.lsp.config/vim.lsp.enable:
--   vim.lsp.enable('whale_ls')
-- works without require('whale').setup(); setup() uses this same table with
-- its options applied.
return require('whale').lsp_config()
