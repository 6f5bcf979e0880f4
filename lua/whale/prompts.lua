-- whale/prompt: questions from whale-ls (approvals, choices, free text).
--
-- The server sends a notification and waits for the request
-- whale/prompt/answer, so nothing here blocks Neovim's loop while the user
-- thinks: the question is shown with vim.ui.select / vim.ui.input (whatever
-- UI the user installed) from a scheduled callback, one at a time, and the
-- answer goes back whenever the callback runs. Reviews of proposed changes
-- (kind "review") are shown by whale.review, in a queue of their own.
local compat = require('whale.compat')
local protocol = require('whale.protocol')

local M = {}

local queue = {}
local showing = nil

-- Fields an approval may carry (top level or under params.approval), shown
-- in this order.
local approval_fields = { 'command', 'program', 'argv', 'cwd', 'rule' }

local function as_text(v)
  if type(v) == 'table' then
    local parts = {}
    for _, x in ipairs(v) do
      x = tostring(x)
      if x == '' or x:find('[^%w%-_./=:,+@%%]') then
        x = vim.fn.shellescape(x)
      end
      table.insert(parts, x)
    end
    if #parts > 0 then
      return table.concat(parts, ' ')
    end
    return vim.inspect(v)
  end
  return tostring(v)
end

--- The text shown above the options.
---@return string
function M.describe(p)
  local lines = { 'whale: ' .. (p.title ~= vim.NIL and p.title or 'question') }
  if p.kind == 'approval' then
    local src = type(p.approval) == 'table' and p.approval or p
    for _, field in ipairs(approval_fields) do
      local v = src[field]
      if v ~= nil and v ~= vim.NIL and v ~= '' then
        table.insert(lines, string.format('  %-8s %s', field .. ':', as_text(v)))
      end
    end
  end
  if type(p.detail) == 'string' and p.detail ~= '' then
    for _, l in ipairs(compat.lines(p.detail)) do
      table.insert(lines, '  ' .. l)
    end
  end
  return table.concat(lines, '\n')
end

--- Send the answer params to the server for item {client_id, params}.
function M.answer(item, params)
  local client = vim.lsp.get_client_by_id(item.client_id)
  if not client or compat.is_stopped(client) then
    return
  end
  params.promptId = item.params.promptId
  compat.request(client, protocol.prompt_answer, params, function(err)
    if err then
      -- Most often: the question timed out on the server meanwhile.
      vim.schedule(function()
        compat.notify_user(
          'answer not taken: ' .. (err.message or vim.inspect(err)),
          vim.log.levels.WARN
        )
      end)
    end
  end)
end

local show_next

local function finish(item, params)
  if item.done then
    return
  end
  item.done = true
  M.answer(item, params)
  showing = nil
  vim.schedule(show_next)
end

local function show(item)
  local p = item.params
  local prompt = M.describe(p)
  if p.kind == 'text' then
    local label = prompt
    if type(p.placeholder) == 'string' and p.placeholder ~= '' then
      label = label .. ' (' .. p.placeholder .. ')'
    end
    vim.ui.input({ prompt = label .. ': ' }, function(text)
      if text == nil then
        finish(item, { cancelled = true })
      else
        finish(item, { text = text })
      end
    end)
    return
  end
  local options = type(p.options) == 'table' and p.options or {}
  if #options == 0 then
    finish(item, { cancelled = true })
    return
  end
  vim.ui.select(options, {
    prompt = prompt,
    kind = 'whale.' .. tostring(p.kind),
    format_item = function(o)
      return o.label or o.id
    end,
  }, function(choice)
    if choice == nil then
      finish(item, { cancelled = true })
    else
      finish(item, { optionId = choice.id })
    end
  end)
end

show_next = function()
  if showing or #queue == 0 then
    return
  end
  showing = table.remove(queue, 1)
  local ok, err = pcall(show, showing)
  if not ok then
    local item = showing
    compat.notify_user('could not show the question: ' .. tostring(err), vim.log.levels.ERROR)
    finish(item, { cancelled = true })
  end
end

--- whale/prompt notification handler.
function M.on_prompt(_, params, ctx)
  if type(params) ~= 'table' or not params.promptId then
    return
  end
  if params.kind == 'review' then
    require('whale.review').on_prompt(params, ctx.client_id)
    return
  end
  table.insert(queue, { client_id = ctx.client_id, params = params })
  vim.schedule(show_next)
end

--- Questions waiting to be shown (the one on screen excluded).
function M.pending()
  return #queue + (showing and 1 or 0)
end

return M
