-- The plugin's options: defaults, and the merged options of setup().
local M = {}

---@class whale.Options
M.defaults = {
  -- How to start the server: an argv list (or a string naming the program).
  cmd = { 'whale-ls' },
  -- Extra environment for the server process.
  cmd_env = nil,
  -- Settings sent as initializationOptions, e.g. { shell = { yieldTimeMs = 15000 } }.
  settings = {},
  -- Files or folders that mark a workspace root; the nearest one above a
  -- buffer wins, else the current working folder is the root.
  root_markers = { '.git' },
  -- Start the server and attach it to every normal buffer in the workspace.
  autostart = true,
  -- function(bufnr) -> boolean: attach only where this returns true.
  filter = nil,
  -- Milliseconds Neovim waits before sending buffer changes. 0 keeps
  -- whale-ls in step with every keystroke, which keeps edits from being
  -- refused as stale.
  debounce_text_changes = 0,
  -- function(client, bufnr), called when whale-ls attaches to a buffer.
  on_attach = nil,
  -- What the plugin tells the server it can do.
  -- languageFeatures: answer whale's questions for the other language
  -- servers (problems after an edit, definition, references, rename, ...).
  capabilities = { terminals = true, prompts = true, saveDocuments = true, languageFeatures = true },
  language = {
    -- How long a definition, references, rename ... request waits for the
    -- other language servers.
    timeout_ms = 10000,
    -- How long to wait for a language server to attach to a file loaded
    -- for the request (one that attached and is starting is waited for up
    -- to timeout_ms).
    attach_wait_ms = 1000,
  },
  terminal = {
    -- 'split' | 'vsplit' | 'tab' | 'none' | function(bufnr, task) -> winid|nil
    open = 'split',
    -- Size of the split: rows for 'split', columns for 'vsplit'.
    size = 12,
    -- Move the cursor into the new terminal window.
    focus = false,
    -- When a running task waits for input (a prompt, a password), move the
    -- cursor into its terminal in Terminal mode, unless you are typing
    -- (Insert or Command-line mode): then a message says so instead.
    focus_on_input = true,
    -- Show a new task in the window of the previous whale terminal when that
    -- window is still open.
    reuse_window = true,
  },
  prompts = {
    -- How whale's questions with options (approvals) are shown: 'auto'
    -- (a floating window that takes the focus while vim.ui.select is
    -- Neovim's own, else vim.ui.select), 'float' or 'select'.
    ui = 'auto',
  },
  plan = {
    -- Open the :WhalePlan window by itself when the assistant sends a plan.
    auto_open = false,
  },
  changes = {
    -- How many journal entries :WhaleChanges lists (newest first).
    limit = 200,
  },
  review = {
    -- Open a change to review (setting edits.review) in diff tabs as soon
    -- as it arrives; false: only say so, :WhaleReview opens it.
    auto_open = true,
    -- Keys in the review's diff buffers.
    keys = {
      accept = 'a', -- accept the hunk under the cursor
      reject = 'r', -- reject the hunk under the cursor
      accept_all = 'A', -- accept the whole change (sent at once)
      reject_all = 'R', -- reject the whole change, with a reason (sent at once)
      done = 'D', -- send: the accepted hunks are applied, the others not
      close = 'q', -- hide the review (:WhaleReview shows it again)
      help = 'g?',
    },
  },
}

M.options = vim.deepcopy(M.defaults)
M.did_setup = false

--- Merge user options over the defaults.
---@param opts? table
---@return table
function M.set(opts)
  opts = opts or {}
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- Lists are replaced, not merged.
  if opts.cmd ~= nil then
    merged.cmd = opts.cmd
  end
  if type(merged.cmd) == 'string' then
    merged.cmd = { merged.cmd }
  end
  if opts.root_markers ~= nil then
    merged.root_markers = opts.root_markers
  end
  if opts.settings ~= nil then
    merged.settings = opts.settings
  end
  M.options = merged
  M.did_setup = true
  return merged
end

return M
