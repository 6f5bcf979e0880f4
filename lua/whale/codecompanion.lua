-- CodeCompanion extension: every whale tool as a CodeCompanion tool.
--
--   require('codecompanion').setup({
--     extensions = { whale = { opts = { prefix = 'whale_' } } },
--   })
--
-- (The extension is found as codecompanion._extensions.whale; `callback =
-- 'whale.codecompanion'` works too.) setup() reads the catalog (whale/tools,
-- or `whale-ls tools --json` before the server runs) and adds one entry per
-- tool to CodeCompanion's chat tools, plus a group (`@{whale}` by default)
-- holding them all. A tool call runs require('whale').call and gives the
-- Envelope's text to the model. Both CodeCompanion tool APIs are supported:
-- cmds(self, args, input, output_handler) / output.success(self, tools, cmd,
-- stdout) (v18 and earlier) and cmds(self, args, {output_cb}) /
-- output.success(self, stdout, meta) (v19+). Each entry's `callback` is a
-- function returning a fresh tool table: v19 resolves an entry only through
-- `path`, a function `callback`, `extends` or an inline table (a table
-- `callback` is registered but cannot run), v18 accepts a table or a
-- function.
local M = {}

M.defaults = {
  -- Prefix of the CodeCompanion tool names (CodeCompanion has its own
  -- read_file, grep_search, ...).
  prefix = 'whale_',
  -- Name of the group holding every whale tool; false for none.
  group = 'whale',
  -- Which tools ask for CodeCompanion's approval before running:
  -- 'mutating' (tools that are not read-only), 'all' or 'none'. whale-ls
  -- asks on its own before running programs its rules mark "ask".
  approval = 'mutating',
  -- Only these whale tools (names without prefix); nil for all.
  only = nil,
  -- What CodeCompanion's `@` menu lists: 'group' lists only the group
  -- (`@{whale}`); a single tool still works when typed (`@{whale_grep}`).
  -- 'tools' lists every whale tool as well. Without a group every tool is
  -- listed.
  menu = 'group',
}

M.registered = {}

local function tools_config()
  local ok, cfg = pcall(require, 'codecompanion.config')
  if not ok or type(cfg) ~= 'table' then
    return nil, 'codecompanion is not installed'
  end
  for _, root in ipairs({ cfg, rawget(cfg, 'config') or {} }) do
    local interactions = root.interactions or root.strategies
    if type(interactions) == 'table' and type(interactions.chat) == 'table' then
      interactions.chat.tools = interactions.chat.tools or {}
      return interactions.chat.tools
    end
  end
  return nil, 'codecompanion.config has no interactions.chat.tools (nor strategies.chat.tools)'
end

local function first_line(s)
  return (vim.split(s or '', '\n', { plain = true })[1] or '')
end

--- Text for the model from an Envelope.
local function envelope_text(env)
  local text = tostring(env.text or '')
  if env.ok then
    return text
  end
  return string.format('[%s] %s', tostring(env.code), text)
end

--- text for the chat buffer (markdown): unified diffs not already in a
--- fence are put in a ```diff fence, so that their - and + lines show as a
--- diff, not as list items. What the model reads is unchanged.
function M.display_text(text)
  local lines = vim.split(tostring(text or ''), '\n', { plain = true })
  local out = {}
  local fenced, in_diff = false, false
  local function diff_line(l)
    return l == ''
      or l:match('^[ +%-@\\]')
      or l:match('^diff ')
      or l:match('^index ')
      or l:match('^new file')
      or l:match('^deleted file')
  end
  for i, l in ipairs(lines) do
    if not in_diff and l:match('^```') then
      fenced = not fenced
      table.insert(out, l)
    elseif in_diff then
      if diff_line(l) and not (l == '' and (lines[i + 1] or ''):match('^[^ +%-@\\]')) then
        table.insert(out, l)
      else
        table.insert(out, '```')
        in_diff = false
        table.insert(out, l)
      end
    elseif not fenced and l:match('^%-%-%- ') and (lines[i + 1] or ''):match('^%+%+%+ ') then
      table.insert(out, '```diff')
      in_diff = true
      table.insert(out, l)
    else
      table.insert(out, l)
    end
  end
  if in_diff then
    while out[#out] == '' do
      table.remove(out)
    end
    table.insert(out, '```')
  end
  return table.concat(out, '\n')
end

-- Codes of a call the user said no to (a rejected review, a denied
-- program) or did not answer: shown as the user's decision, not as a
-- failure of the tool.
local user_codes = { denied = 'you said no', approval_timeout = 'not answered in time' }

--- The output callback of a cmds function, in either API.
local function output_cb(a3, a4)
  if type(a3) == 'table' and type(a3.output_cb) == 'function' then
    return a3.output_cb
  end
  if type(a4) == 'function' then
    return a4
  end
end

--- (tools, stdout) from output.success/error in either API.
local function output_args(a, b, c)
  if c ~= nil then
    return a, c -- (self, tools, cmd, stdout)
  end
  return type(b) == 'table' and b.tools or nil, a -- (self, stdout, meta)
end

local function last(list)
  if type(list) == 'table' then
    return list[#list]
  end
  return list
end

--- The arguments of a call as a person reads them: one `name: value` line
--- each, a text of several lines in a fence (no escaped JSON).
function M.arguments_text(args)
  local lines = {}
  local keys = vim.tbl_keys(type(args) == 'table' and args or {})
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = args[k]
    if type(v) == 'string' and v:find('\n', 1, true) then
      table.insert(lines, k .. ':')
      local fence = v:find('```', 1, true) and '~~~~' or '```'
      table.insert(lines, fence)
      vim.list_extend(lines, vim.split(v:gsub('\n$', ''), '\n', { plain = true }))
      table.insert(lines, fence)
    elseif type(v) == 'table' then
      table.insert(lines, k .. ': ' .. vim.json.encode(v))
    else
      table.insert(lines, k .. ': ' .. tostring(v))
    end
  end
  return table.concat(lines, '\n')
end

--- The approval text for a call of whale tool t: the preview's title and
--- detail (the diff an edit would apply, the command, program and folder of
--- a shell command) when whale-ls gave one, else the arguments.
---@param t table the tool's spec
---@param args table the call's arguments
---@param preview? table whale/preview's answer
function M.approval_text(t, args, preview)
  if type(preview) == 'table' then
    local lines = { '**whale: ' .. tostring(preview.title or t.name) .. '**' }
    if type(preview.error) == 'string' and preview.error ~= '' then
      table.insert(lines, '')
      table.insert(lines, 'It would fail: ' .. preview.error)
    end
    if type(preview.detail) == 'string' and preview.detail ~= '' then
      table.insert(lines, '')
      table.insert(lines, preview.detail)
    end
    return table.concat(lines, '\n')
  end
  local text = M.arguments_text(args)
  return string.format('Run whale `%s`?%s', t.name, text ~= '' and ('\n' .. text) or '')
end

--- What CodeCompanion's "Always accept" covers for a call of t: the same
--- tool on the same command (shell) or file, not the tool for every input.
function M.approval_key(t, args)
  args = type(args) == 'table' and args or {}
  for _, field in ipairs({ 'command', 'file_path', 'path' }) do
    if type(args[field]) == 'string' and args[field] ~= '' then
      return t.name .. ' ' .. args[field]
    end
  end
  local ok, json = pcall(vim.json.encode, args)
  return t.name .. ' ' .. (ok and json or '')
end

--- The preview of the call on tool (asked once per call: CodeCompanion
--- asks whether to approve, then for the text).
local function preview_of(tool, t)
  if tool._whale_preview == nil then
    local p = require('whale').preview(t.name, type(tool.args) == 'table' and tool.args or {})
    tool._whale_preview = p or false
  end
  return tool._whale_preview or nil
end

-- Chat buffers with a whale call running, and how many calls each.
local running = {}

local wait_ns = vim.api.nvim_create_namespace('whale_codecompanion_wait')

--- Say in the chat buffers where a whale call runs that whale waits for
--- the user's review (virtual lines under the chat, gone once answered):
--- the review may be hidden in another tab.
local function on_review(event, item)
  for bufnr in pairs(running) do
    if vim.api.nvim_buf_is_valid(bufnr) then
      item.chat_marks = item.chat_marks or {}
      if event == 'waiting' then
        local last_line = vim.api.nvim_buf_line_count(bufnr) - 1
        local ok, id = pcall(vim.api.nvim_buf_set_extmark, bufnr, wait_ns, last_line, 0, {
          virt_lines = {
            {
              {
                'whale is waiting for your review: '
                  .. tostring(item.params.title or 'a change')
                  .. ' (:WhaleReview shows it)',
                'WarningMsg',
              },
            },
          },
        })
        if ok then
          item.chat_marks[bufnr] = id
        end
      elseif item.chat_marks[bufnr] then
        pcall(vim.api.nvim_buf_del_extmark, bufnr, wait_ns, item.chat_marks[bufnr])
        item.chat_marks[bufnr] = nil
      end
    end
  end
end
M.on_review = on_review

local function call_started(tools)
  local bufnr = type(tools) == 'table' and type(tools.chat) == 'table' and tools.chat.bufnr
  if type(bufnr) == 'number' then
    running[bufnr] = (running[bufnr] or 0) + 1
  end
  return bufnr
end

local function call_ended(bufnr)
  if bufnr and running[bufnr] then
    running[bufnr] = running[bufnr] > 1 and running[bufnr] - 1 or nil
  end
end

--- The CodeCompanion tool table for one whale tool.
local function build_tool(t, name, approval)
  return {
    name = name,
    cmds = {
      function(tools, args, a3, a4)
        local cb = output_cb(a3, a4)
        local input = type(args) == 'table' and args or {}
        if not cb then
          local env, err = require('whale').call(t.name, input)
          if not env then
            return { status = 'error', data = err }
          end
          local ok = env.ok or user_codes[tostring(env.code)] ~= nil
          return { status = ok and 'success' or 'error', data = envelope_text(env) }
        end
        local chat_buf = call_started(tools)
        require('whale').call(t.name, input, function(err, env)
          vim.schedule(function()
            call_ended(chat_buf)
            if err then
              cb({ status = 'error', data = 'whale-ls: ' .. err })
            else
              local ok = env.ok or user_codes[tostring(env.code)] ~= nil
              cb({ status = ok and 'success' or 'error', data = envelope_text(env) })
            end
          end)
        end)
      end,
    },
    schema = {
      type = 'function',
      ['function'] = {
        name = name,
        description = t.description,
        parameters = t.inputSchema,
      },
    },
    output = {
      success = function(self, a, b, c)
        local tools, stdout = output_args(a, b, c)
        local text = tostring(last(stdout) or '')
        if tools and tools.chat then
          local code = text:match('^%[([%w_]+)%]')
          local head = user_codes[code or '']
              and string.format('**whale `%s`: not done, %s**', t.name, user_codes[code])
            or string.format('**whale `%s`**', t.name)
          tools.chat:add_tool_output(self, text, head .. '\n' .. M.display_text(text))
        end
      end,
      error = function(self, a, b, c)
        local tools, stderr = output_args(a, b, c)
        local text = tostring(last(stderr) or '')
        if tools and tools.chat then
          tools.chat:add_tool_output(
            self,
            text,
            string.format('**whale `%s` failed**\n%s', t.name, M.display_text(text))
          )
        end
      end,
      prompt = function(self)
        local args = type(self) == 'table' and self.args or {}
        return M.approval_text(t, args, type(self) == 'table' and preview_of(self, t) or nil)
      end,
      cmd_string = function(self)
        return M.approval_key(t, type(self) == 'table' and self.args or {})
      end,
    },
    opts = {
      requires_approval = approval,
      require_approval_before = M.approval_gate(t, approval),
      -- "Always accept" is for what was shown (approval_key).
      require_cmd_approval = true,
    },
  }
end

-- Tools whose changes go through whale's review (edits.review).
local reviewed = {
  edit = true,
  multi_edit = true,
  write = true,
  apply_patch = true,
  rename = true,
  changes_revert = true,
}

--- Whether whale reviews every change of tool t itself: the setting
--- edits.review = 'ask' this plugin gave whale-ls.
local function whale_reviews(t)
  local s = require('whale.config').options.settings
  local edits = type(s) == 'table' and s.edits or nil
  return reviewed[t.name] == true and type(edits) == 'table' and edits.review == 'ask'
end

--- CodeCompanion's require_approval_before for tool t: one gate per
--- action. No question when whale-ls says the call reads only, or that it
--- asks itself (review of edits, the exec boundary's question). Without a
--- preview (an older whale-ls): no question for an edit whale reviews
--- (edits.review = 'ask'), else the approval setting decides.
function M.approval_gate(t, approval)
  if not approval then
    return false
  end
  return function(self)
    local p = type(self) == 'table' and preview_of(self, t) or nil
    if p then
      return not (p.readOnly == true or p.whaleAsks == true)
    end
    return not whale_reviews(t)
  end
end

--- The CodeCompanion config entry for one whale tool: `name` is the tool's
--- name in CodeCompanion, `callback` returns a new tool table on each call.
function M.make_tool(t, opts)
  opts = vim.tbl_extend('force', M.defaults, opts or {})
  local name = opts.prefix .. t.name
  local approval = opts.approval == 'all' or (opts.approval == 'mutating' and not t.readOnly)
  return {
    name = name,
    id = 'whale:' .. t.name,
    description = first_line(t.description),
    -- CodeCompanion's `@` menu leaves out entries with visible = false.
    visible = opts.menu == 'tools' or not opts.group,
    callback = function()
      return build_tool(t, name, approval)
    end,
    opts = {
      requires_approval = approval,
      require_approval_before = M.approval_gate(t, approval),
      require_cmd_approval = true,
    },
  }
end

--- Register the whale tools with CodeCompanion. Returns the names added.
---@param opts? table see M.defaults
---@return string[]|nil names, string|nil err
function M.register(opts)
  opts = vim.tbl_extend('force', M.defaults, opts or {})
  local cfg, err = tools_config()
  if not cfg then
    return nil, err
  end
  local catalog, cerr = require('whale').tools()
  if not catalog then
    return nil, 'cannot read the whale tools: ' .. tostring(cerr)
  end
  local only
  if type(opts.only) == 'table' then
    only = {}
    for _, n in ipairs(opts.only) do
      only[n] = true
    end
  end
  -- Drop what an earlier register() added.
  for _, n in ipairs(M.registered) do
    cfg[n] = nil
  end
  local names = {}
  for _, t in ipairs(catalog) do
    if not only or only[t.name] then
      local entry = M.make_tool(t, opts)
      cfg[entry.name] = entry
      table.insert(names, entry.name)
    end
  end
  if opts.group then
    cfg.groups = cfg.groups or {}
    cfg.groups[opts.group] = M.group_entry(names)
  end
  M.registered = names
  return names
end

--- The CodeCompanion group entry holding the tools names.
function M.group_entry(names)
  return {
    id = 'whale:group',
    description = 'whale-ls tools: read, search, edit (strict, versioned) and run shell commands in editor terminals',
    tools = vim.deepcopy(names),
    opts = { collapse_tools = true },
  }
end

--- Register the tools when an earlier attempt found no whale-ls (it was
--- installed since): a new chat, or whale-ls starting, retries. Returns
--- whether the tools are registered.
function M.ensure_registered()
  if #M.registered > 0 then
    return true
  end
  local names, err = M.register(M.opts)
  if not names then
    M.error = err
    return false
  end
  M.error = nil
  return true
end

local listening = false

--- CodeCompanion calls this with the extension's opts. Tools whale-ls
--- activates later (whale/toolsChanged) are registered when they come.
function M.setup(opts)
  M.opts = opts
  M.did_setup = true
  local names, err = M.register(opts)
  M.error = not names and err or nil
  if not names then
    -- Most often whale-ls is not installed yet: the same one message as
    -- setup() gives (once), naming :checkhealth whale.
    local _, problem = require('whale').find_server()
    require('whale').report(problem or ('CodeCompanion tools not registered: ' .. tostring(err)))
  end
  if not listening then
    listening = true
    table.insert(require('whale.review').listeners, on_review)
    -- Tools whale-ls lists when it is ready (its whole catalog, language
    -- tools included) or activates later: added when missing, with the
    -- group, so that a whale-ls installed after startup needs no restart.
    require('whale').on_tools_changed_do(function(added)
      local cfg = tools_config()
      if not cfg then
        return
      end
      local o = vim.tbl_extend('force', M.defaults, M.opts or {})
      if o.group then
        cfg.groups = cfg.groups or {}
        cfg.groups[o.group] = cfg.groups[o.group] or M.group_entry({})
      end
      for _, t in ipairs(added or {}) do
        local entry = M.make_tool(t, o)
        if (not o.only or vim.tbl_contains(o.only, t.name)) and not cfg[entry.name] then
          cfg[entry.name] = entry
          table.insert(M.registered, entry.name)
          if o.group then
            table.insert(cfg.groups[o.group].tools, entry.name)
          end
        end
      end
      M.error = nil
    end)
    -- A chat opened after whale-ls was installed gets the tools.
    pcall(vim.api.nvim_create_autocmd, 'User', {
      pattern = 'CodeCompanionChatCreated',
      group = vim.api.nvim_create_augroup('whale.codecompanion', { clear = true }),
      callback = function()
        M.ensure_registered()
      end,
    })
  end
end

M.exports = {
  register = M.register,
  registered = function()
    return vim.deepcopy(M.registered)
  end,
}

return M
