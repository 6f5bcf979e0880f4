-- Gets the whale-ls program for this plugin into bin/ (see lua/whale/build.lua:
-- a release archive with its checksum checked, or `go build`), and says which
-- it did. lazy.nvim runs this file after installing or updating the plugin;
-- without a plugin manager run `nvim -l build.lua` (Neovim 0.9+) or
-- `:luafile build.lua` in the plugin's folder.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local build = dofile(root .. '/lua/whale/build.lua')

-- Inside lazy.nvim's build (a coroutine it resumes every tick) progress is
-- yielded to its task log; elsewhere it is printed.
local ok_async, async = pcall(require, 'lazy.async')
local in_lazy = ok_async and type(async.running) == 'function' and async.running() ~= nil
local opts = { root = root }
if in_lazy then
  opts.yield = function()
    coroutine.yield()
  end
  opts.progress = function(msg)
    coroutine.yield({ msg = 'whale: ' .. msg, level = vim.log.levels.INFO })
  end
else
  opts.progress = function(msg)
    print('whale: ' .. msg)
  end
end

local ok, msg = build.run(opts)
if not ok then
  error('whale: ' .. msg, 0)
end
if in_lazy then
  coroutine.yield({ msg = 'whale: ' .. msg, level = vim.log.levels.INFO })
else
  print('whale: ' .. msg)
end
