-- The scripted model (tests/scripted_model.py) seen from a test: start it
-- on 127.0.0.1, give it a script of tool calls and a final answer, and read
-- back every request a host sent it.
--
--   local model = require('scripted').start({ { tool = 'whale_read_file', arguments = {...} } }, 'Done.')
--   model.url            -- http://127.0.0.1:PORT
--   model.play(steps, final)  -- a new script; forgets the requests so far
--   model.requests()     -- the request bodies, oldest first
--   model.stop()
local H = require('harness')

local tests = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')

local M = {}

--- What is missing to run the scripted model, or nil.
function M.missing()
  if vim.fn.executable('python3') == 0 or vim.fn.executable('curl') == 0 then
    return 'python3 and curl'
  end
end

function M.start(steps, final)
  local work = vim.fn.tempname()
  vim.fn.mkdir(work, 'p')
  local script, log_path, port_file =
    work .. '/script.json', work .. '/requests.jsonl', work .. '/port'
  local model = {}

  function model.play(s, f)
    local file = assert(io.open(script, 'w'))
    file:write(vim.json.encode({ steps = s, final = f }))
    file:close()
    os.remove(log_path)
  end

  function model.requests()
    local list = {}
    for _, line in ipairs(vim.split(H.read(log_path) or '', '\n', { trimempty = true })) do
      table.insert(list, vim.json.decode(line).body)
    end
    return list
  end

  model.play(steps, final)
  local job =
    vim.fn.jobstart({ 'python3', tests .. '/scripted_model.py', script, log_path, port_file })
  H.ok(job > 0, 'python3 scripted_model.py started')
  H.wait(function()
    return H.read(port_file)
  end, 'the scripted model to listen')
  model.url = 'http://127.0.0.1:' .. H.read(port_file)

  function model.stop()
    vim.fn.jobstop(job)
  end

  return model
end

--- todo.txt in the current folder ("alpha", "beta", "gamma" on disk), open
--- in a buffer whale-ls is attached to, with an unsaved first line; returns
--- the buffer, the file's path and a script step whose whale_edit
--- capitalizes alpha across the unsaved line.
function M.modified_todo()
  local path = vim.fn.getcwd() .. '/todo.txt'
  local f = assert(io.open(path, 'w'))
  f:write('alpha\nbeta\ngamma\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  H.client_for(buf)
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'unsaved first line' })
  H.ok(vim.bo[buf].modified, 'the buffer is modified')
  local step = {
    tool = 'whale_edit',
    arguments = {
      file_path = 'todo.txt',
      search = 'unsaved first line\nalpha',
      replace = 'unsaved first line\nALPHA',
    },
  }
  return buf, path, step
end

--- The functions offered in a Chat Completions request, by name.
function M.offered(req)
  local names = {}
  for _, t in ipairs(req.tools or {}) do
    names[t['function'] and t['function'].name or '?'] = t['function']
  end
  return names
end

--- The role "tool" messages of a Chat Completions request.
function M.tool_messages(req)
  local out = {}
  for _, m in ipairs(req.messages or {}) do
    if m.role == 'tool' then
      table.insert(out, m)
    end
  end
  return out
end

return M
