-- whale/prompt: an approval question from whale-ls is shown with
-- vim.ui.select (stubbed here) and answered with whale/prompt/answer,
-- without blocking Neovim; whale/plan and whale/todos feed :WhalePlan.
local H = require('harness')

local real_select = vim.ui.select
local real_input = vim.ui.input

return {
  {
    'an approval is answered through a stubbed vim.ui.select',
    function()
      H.workspace({ ['a.txt'] = 'x\n' })
      -- WHALE_LS_TEST_TOOLS adds test_ask, a tool that asks an approval.
      H.setup({ cmd_env = { WHALE_LS_TEST_TOOLS = '1' } })
      vim.cmd('edit a.txt')
      H.client_for(vim.api.nvim_get_current_buf())
      local seen
      vim.ui.select = function(items, opts, on_choice)
        seen = { items = items, opts = opts }
        for _, item in ipairs(items) do
          if item.id == 'allow_once' then
            return on_choice(item, 1)
          end
        end
        on_choice(nil)
      end
      local env = H.call('test_ask', { title = 'Run rm -rf build?', timeout_ms = 20000 })
      vim.ui.select = real_select
      H.eq(env.code, 'ok', 'code (' .. tostring(env.text) .. ')')
      H.contains(env.text, 'option=allow_once', 'the answer reached the server')
      H.ok(seen, 'vim.ui.select was called')
      H.contains(seen.opts.prompt, 'Run rm -rf build?', 'the prompt shows the title')
      H.eq(seen.opts.kind, 'whale.approval', 'kind')
      local labels = {}
      for _, item in ipairs(seen.items) do
        table.insert(labels, seen.opts.format_item(item))
      end
      -- Deny first: the default of a picker (Enter never allows by accident).
      H.eq(labels, { 'Deny', 'Allow once', 'Allow for this session' }, 'options')
    end,
  },
  {
    "with Neovim's own vim.ui.select, an approval opens a float that takes the focus, Deny first and under the cursor; Enter answers Deny, a number another option",
    function()
      vim.ui.select = real_select
      H.eq(require('whale.prompts').ui(), 'float', "the float while vim.ui.select is Neovim's own")
      local before = vim.api.nvim_get_current_win()
      local function ask(title)
        local env, done
        require('whale').call('test_ask', { title = title, timeout_ms = 20000 }, function(_, r)
          env, done = r, true
        end)
        H.wait_loop(function()
          return vim.api.nvim_win_get_config(0).relative ~= ''
        end, 'the float to take the focus')
        return function()
          H.wait_loop(function()
            return done
          end, 'the answer')
          return env
        end
      end
      local result = ask('Run rm -rf build?')
      local win = vim.api.nvim_get_current_win()
      H.ok(win ~= before, 'the focus moved to the question')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      H.contains(text, 'Run rm -rf build?', 'the question')
      H.contains(vim.api.nvim_get_current_line(), '1. Deny', 'the cursor is on Deny')
      vim.api.nvim_input('<CR>')
      local env = result()
      H.contains(env.text, 'option=deny', 'Enter answered Deny')
      H.ok(not vim.api.nvim_win_is_valid(win), 'the float is closed')
      H.eq(vim.api.nvim_get_current_win(), before, 'the focus is back')
      result = ask('Run make?')
      vim.api.nvim_input('2')
      H.contains(result().text, 'option=allow_once', '2 answered Allow once')
      result = ask('Dismiss?')
      vim.api.nvim_input('q')
      H.contains(result().text, 'canceled=true', 'q dismissed it')
    end,
  },
  {
    'the question does not block: an answer given later still arrives',
    function()
      local pending
      vim.ui.select = function(items, _, on_choice)
        pending = function()
          on_choice(items[1], 1) -- Deny, listed first
        end
      end
      local env, done
      require('whale').call('test_ask', { title = 'Later?', timeout_ms = 20000 }, function(_, r)
        env, done = r, true
      end)
      -- Neovim keeps running (timers fire) while the question is open.
      local ticks = 0
      local timer = vim.loop.new_timer()
      timer:start(
        10,
        10,
        vim.schedule_wrap(function()
          ticks = ticks + 1
        end)
      )
      H.wait(function()
        return pending ~= nil and ticks > 5
      end, 'the question to be shown while timers keep firing')
      timer:stop()
      timer:close()
      pending()
      H.wait(function()
        return done
      end, 'the answer')
      vim.ui.select = real_select
      H.contains(env.text, 'option=deny', 'answer')
    end,
  },
  {
    'a dismissed question is answered as cancelled',
    function()
      vim.ui.select = function(_, _, on_choice)
        on_choice(nil)
      end
      local env = H.call('test_ask', { title = 'Dismiss me', timeout_ms = 20000 })
      vim.ui.select = real_select
      H.contains(env.text, 'canceled=true', 'answer')
    end,
  },
  {
    'text questions use vim.ui.input; approvals show command, program, argv, cwd and rule',
    function()
      local prompts = require('whale.prompts')
      local text = prompts.describe({
        kind = 'approval',
        title = 'Allow this program?',
        detail = 'matched an ask rule',
        command = 'make clean',
        program = '/usr/bin/rm',
        argv = { 'rm', '-rf', 'build dir' },
        cwd = '/home/user/project',
        rule = 'ask rm',
      })
      for _, want in ipairs({
        'Allow this program?',
        'command: make clean',
        'program: /usr/bin/rm',
        "argv:    rm -rf 'build dir'",
        'cwd:',
        'rule:    ask rm',
        'matched an ask rule',
      }) do
        H.contains(text, want, 'approval text')
      end
      local asked, notified
      local notify = vim.notify
      vim.notify = function(msg)
        notified = msg
      end
      vim.ui.input = function(opts, on_confirm)
        asked = opts
        on_confirm('typed answer')
      end
      -- A text prompt for a prompt id the server does not know: the
      -- answer is refused by the server, which is reported, not raised.
      local client = require('whale').get_client()
      prompts.on_prompt(nil, {
        promptId = 'p-unknown',
        kind = 'text',
        title = 'Your name',
        placeholder = 'e.g. Ada',
        options = {},
      }, { client_id = client.id })
      H.wait(function()
        return asked ~= nil
      end, 'vim.ui.input')
      vim.ui.input = real_input
      H.wait(function()
        return notified ~= nil
      end, "the server's refusal of the answer")
      vim.notify = notify
      H.contains(notified, 'no longer open', 'the refusal is reported')
      H.contains(asked.prompt, 'Your name', 'input prompt')
      H.contains(asked.prompt, 'e.g. Ada', 'placeholder')
    end,
  },
  {
    'whale/plan and whale/todos are shown by :WhalePlan and refreshed',
    function()
      local plan = require('whale.plan')
      plan.on_plan(nil, {
        explanation = 'Fix the build',
        steps = {
          { step = 'read the error', status = 'completed' },
          { step = 'patch', status = 'in_progress' },
        },
      })
      vim.cmd('WhalePlan')
      local buf = plan.buffer()
      local shown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
      H.contains(shown, 'Fix the build', 'plan')
      H.contains(shown, '[x] 1. read the error', 'plan')
      H.contains(shown, '[~] 2. patch', 'plan')
      plan.on_todos(nil, { items = { { content = 'write tests', status = 'pending' } } })
      shown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
      H.contains(shown, '[ ] write tests', 'todos refreshed')
      plan.on_plan(
        nil,
        { explanation = vim.NIL, steps = { { step = 'patch', status = 'completed' } } }
      )
      shown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
      H.contains(shown, '[x] 1. patch', 'plan refreshed')
    end,
  },
}
