-- whale/plan and whale/todos: the assistant's plan and to-do list, shown by
-- :WhalePlan in a scratch window that refreshes on every update.
local config = require('whale.config')

local M = {}

M.plan = nil -- { explanation, steps = {{step, status}} }
M.todos = nil -- { items = {...} }
local buf = nil

local marks = {
  completed = '[x]',
  done = '[x]',
  in_progress = '[~]',
  ['in-progress'] = '[~]',
  pending = '[ ]',
  cancelled = '[-]',
  canceled = '[-]',
}

local function text_of(v)
  if v == nil or v == vim.NIL then
    return ''
  end
  return tostring(v)
end

--- The lines :WhalePlan shows.
---@return string[]
function M.render()
  local lines = {}
  if not M.plan and not M.todos then
    return { 'No plan yet: the assistant has not sent one.' }
  end
  if M.plan then
    table.insert(lines, '# Plan')
    local explanation = text_of(M.plan.explanation)
    if explanation ~= '' then
      table.insert(lines, '')
      vim.list_extend(lines, vim.split(explanation, '\n', { plain = true }))
    end
    table.insert(lines, '')
    for i, s in ipairs(type(M.plan.steps) == 'table' and M.plan.steps or {}) do
      local status = text_of(type(s) == 'table' and s.status or '')
      local step = type(s) == 'table' and text_of(s.step or s.title or s.content) or text_of(s)
      table.insert(
        lines,
        string.format('%s %d. %s', marks[status] or '[ ]', i, step:gsub('\n', ' '))
      )
    end
  end
  if M.todos then
    if #lines > 0 then
      table.insert(lines, '')
    end
    table.insert(lines, '# To do')
    table.insert(lines, '')
    for _, item in ipairs(type(M.todos.items) == 'table' and M.todos.items or {}) do
      if type(item) == 'table' then
        local label = text_of(item.content or item.text or item.title or item.step)
        if label == '' then
          label = vim.inspect(item)
        end
        table.insert(
          lines,
          string.format('%s %s', marks[text_of(item.status)] or '[ ]', label:gsub('\n', ' '))
        )
      else
        table.insert(lines, '[ ] ' .. text_of(item))
      end
    end
  end
  return lines
end

local function refresh()
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    return
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.render())
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
end

--- Open (or focus) the plan window.
function M.open()
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    pcall(vim.api.nvim_buf_set_name, buf, 'whale://plan')
    vim.api.nvim_buf_set_option(buf, 'filetype', 'markdown')
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  end
  refresh()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_set_current_win(win)
      return buf
    end
  end
  vim.cmd('botright 12split')
  vim.api.nvim_win_set_buf(0, buf)
  return buf
end

function M.buffer()
  return buf
end

local function updated()
  refresh()
  local visible = buf and vim.api.nvim_buf_is_valid(buf) and vim.fn.bufwinid(buf) ~= -1
  if not visible and config.options.plan and config.options.plan.auto_open then
    local cur = vim.api.nvim_get_current_win()
    M.open()
    vim.api.nvim_set_current_win(cur)
  end
end

function M.on_plan(_, params)
  if type(params) == 'table' then
    M.plan = params
    updated()
  end
end

function M.on_todos(_, params)
  if type(params) == 'table' then
    M.todos = params
    updated()
  end
end

return M
