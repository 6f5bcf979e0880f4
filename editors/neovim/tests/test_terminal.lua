-- whale/terminal/*: shell_run shows its task in a terminal buffer (in a
-- split that keeps the cursor where it was), keys typed in that buffer reach
-- the process, resizing the window resizes the PTY, wiping the buffer
-- cancels the task, and exit marks it finished.
local H = require('harness')

local function task_buffer(id)
  local task
  H.wait(function()
    task = require('whale.terminals').get(id)
    return task ~= nil
  end, 'the terminal of task ' .. id)
  return task
end

local function screen(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function task_id(env)
  local id = type(env.data) == 'table' and env.data.task_id
  H.ok(type(id) == 'string' and id ~= '', 'shell_run data has a task_id: ' .. vim.inspect(env.data))
  return id
end

return {
  {
    'shell_run output appears in a terminal buffer that does not take the focus',
    function()
      H.workspace({ ['a.txt'] = 'x\n' })
      H.setup()
      vim.cmd('edit a.txt')
      local buf = vim.api.nvim_get_current_buf()
      H.client_for(buf)
      local win = vim.api.nvim_get_current_win()
      local env =
        H.call('shell_run', { command = 'echo hello-from-whale; echo second line', mode = 'pipe' })
      H.eq(env.code, 'ok', 'shell_run code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'hello-from-whale', 'result text')
      local task = task_buffer(task_id(env))
      H.eq(vim.api.nvim_buf_get_option(task.buf, 'buftype'), 'terminal', 'buftype')
      H.wait(function()
        return screen(task.buf):find('second line', 1, true)
      end, 'the output in the terminal buffer')
      H.contains(screen(task.buf), 'hello-from-whale', 'terminal')
      H.wait(function()
        return not task.running
      end, 'the exit notification')
      H.eq(task.exit_code, 0, 'exit code')
      H.eq(vim.api.nvim_buf_get_var(task.buf, 'whale_exit_code'), 0, 'b:whale_exit_code')
      H.ok(vim.fn.bufwinid(task.buf) ~= -1, 'the terminal is shown in a window')
      H.eq(vim.api.nvim_get_current_win(), win, 'the cursor stayed in its window')
      H.eq(vim.api.nvim_get_current_buf(), buf, 'the current buffer is unchanged')
    end,
  },
  {
    'keys typed in the terminal buffer reach a read prompt',
    function()
      local env = H.call_loop(
        'shell_run',
        { command = 'read -r -p "name? " line; echo "got:$line"', mode = 'pty', background = true }
      )
      H.eq(env.code, 'ok', 'shell_run code (' .. tostring(env.text) .. ')')
      local id = task_id(env)
      local task = task_buffer(id)
      H.wait_loop(function()
        return screen(task.buf):find('name?', 1, true)
      end, 'the prompt in the terminal')
      local win = vim.fn.bufwinid(task.buf)
      H.ok(win ~= -1, 'terminal window')
      local back = vim.api.nvim_get_current_win()
      vim.api.nvim_set_current_win(win)
      -- Type like a user: enter Terminal mode and type the answer.
      vim.api.nvim_input('i')
      H.sleep_loop(50)
      vim.api.nvim_input('hello<CR>')
      H.wait_loop(
        function()
          return screen(task.buf):find('got:hello', 1, true)
        end,
        'the typed line echoed by the process',
        nil,
        function()
          return string.format(
            'mode %s, window buffer %d (task %d), screen:\n%s',
            vim.api.nvim_get_mode().mode,
            vim.api.nvim_get_current_buf(),
            task.buf,
            screen(task.buf)
          )
        end
      )
      vim.api.nvim_input('<C-\\><C-n>')
      H.sleep_loop(50)
      vim.api.nvim_set_current_win(back)
      local waited = H.call_loop('shell_wait', { task_id = id, timeout_ms = 20000 })
      H.contains(waited.text, 'got:hello', 'shell_wait text')
      H.wait_loop(function()
        return not task.running
      end, 'exit')
    end,
  },
  {
    'a task that waits for input takes the cursor into its terminal, in Terminal mode',
    function()
      local back = vim.api.nvim_get_current_win()
      local env = H.call_loop('shell_run', {
        command = 'read -r -p "name? " line; echo "got:$line"',
        mode = 'pty',
        yield_time_ms = 1500,
      })
      H.eq(env.code, 'ok', 'shell_run code (' .. tostring(env.text) .. ')')
      H.eq(
        env.data.diagnosis.reason,
        'waiting_for_input',
        'the result says the task waits for input'
      )
      local task = task_buffer(task_id(env))
      H.wait_loop(
        function()
          return vim.api.nvim_get_current_buf() == task.buf and vim.api.nvim_get_mode().mode == 't'
        end,
        'the cursor in the waiting task’s terminal, in Terminal mode',
        nil,
        function()
          return string.format(
            'mode %s, buffer %d (task %d)',
            vim.api.nvim_get_mode().mode,
            vim.api.nvim_get_current_buf(),
            task.buf
          )
        end
      )
      -- The user answers right away, without finding the window first.
      vim.api.nvim_input('hello<CR>')
      H.wait_loop(function()
        return screen(task.buf):find('got:hello', 1, true)
      end, 'the answer echoed by the process')
      vim.api.nvim_input('<C-\\><C-n>')
      H.sleep_loop(50)
      vim.api.nvim_set_current_win(back)
      H.wait_loop(function()
        return not task.running
      end, 'exit')
    end,
  },
  {
    'while the user types elsewhere, a waiting task only says so',
    function()
      local notify, said = vim.notify, nil
      vim.notify = function(msg)
        said = msg
      end
      vim.cmd('enew')
      local buf = vim.api.nvim_get_current_buf()
      vim.api.nvim_input('i')
      H.sleep_loop(50)
      H.eq(vim.api.nvim_get_mode().mode, 'i', 'Insert mode before the call')
      local env = H.call_loop('shell_run', {
        command = 'read -r -p "proceed? " line; echo "got:$line"',
        mode = 'pty',
        yield_time_ms = 1500,
      })
      H.eq(
        env.data.diagnosis.reason,
        'waiting_for_input',
        'the result says the task waits for input'
      )
      H.wait_loop(function()
        return said ~= nil
      end, 'a message about the waiting task')
      vim.notify = notify
      H.contains(said, 'waits for input: proceed?', 'the message names the wait and its prompt')
      H.eq(vim.api.nvim_get_current_buf(), buf, 'the cursor stayed in the buffer being typed in')
      H.eq(vim.api.nvim_get_mode().mode, 'i', 'still in Insert mode')
      vim.api.nvim_input('<Esc>')
      H.call_loop('shell_cancel', { task_id = task_id(env) })
    end,
  },
  {
    'resizing the terminal window resizes the PTY',
    function()
      local env =
        H.call('shell_run', { command = 'read -r go; stty size', mode = 'pty', background = true })
      local id = task_id(env)
      local task = task_buffer(id)
      local win = vim.fn.bufwinid(task.buf)
      vim.api.nvim_win_set_height(win, 7)
      require('whale.terminals').sync_sizes()
      H.wait(function()
        return task.size and task.size.rows == 7
      end, 'whale-ls to answer the resize request')
      local cols = task.size.cols
      local typed =
        H.call('write_stdin', { task_id = id, input = 'x', keys = { 'enter' }, wait_ms = 500 })
      H.call('shell_wait', { task_id = id, timeout_ms = 20000 })
      H.contains(typed.text, '7 ' .. cols, 'stty size seen by the model')
      H.wait(function()
        return screen(task.buf):find('7 ' .. cols, 1, true)
      end, 'stty size in the terminal')
    end,
  },
  {
    'wiping the buffer of a running task cancels it; :WhaleTerminals lists tasks',
    function()
      local env = H.call('shell_run', { command = 'sleep 120', mode = 'pipe', background = true })
      local id = task_id(env)
      local task = task_buffer(id)
      local picked
      local select = vim.ui.select
      vim.ui.select = function(items, opts, cb)
        picked = {}
        for _, t in ipairs(items) do
          table.insert(picked, opts.format_item(t))
        end
        cb(nil)
      end
      vim.cmd('WhaleTerminals')
      vim.ui.select = select
      H.ok(picked and #picked >= 1, 'tasks listed')
      H.contains(table.concat(picked, '\n'), 'sleep 120', 'the list shows the command')
      vim.cmd('bwipeout! ' .. task.buf)
      local state
      H.wait(function()
        local client = require('whale').get_client()
        local res = require('whale.compat').request_sync(
          client,
          'whale/terminal/list',
          vim.empty_dict(),
          5000
        )
        for _, t in ipairs(res and res.result and res.result.tasks or {}) do
          if t.taskId == id then
            state = t.state
          end
        end
        return state == 'exited'
      end, 'the task to end after its buffer was wiped')
    end,
  },
}
