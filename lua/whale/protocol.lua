-- The whale/* methods of whale-ls, by name. Mirrors lsp/protocol.go, which
-- names every whale/* method and documents its params and results
-- (editors/vscode/src/requests.ts mirrors it too); lsp/protocol_test.go
-- checks that the three lists hold the same methods. Standard LSP methods
-- (workspace/applyEdit, ...) are not listed here.
return {
  -- client -> server request -> {tools = [{name, description, inputSchema, readOnly, group}]}
  tools = 'whale/tools',
  -- server -> client notification {added = [spec], count}
  tools_changed = 'whale/toolsChanged',

  -- server -> client notification {taskId, title, command, cwd, pty, cols, rows}
  terminal_open = 'whale/terminal/open',
  -- server -> client notification {taskId, seq, data}
  terminal_output = 'whale/terminal/output',
  -- server -> client notification {taskId, exitCode, signal}
  terminal_exit = 'whale/terminal/exit',
  -- server -> client notification {taskId, secret, prompt}
  terminal_waiting = 'whale/terminal/waiting',
  -- client -> server request {taskId, data}
  terminal_input = 'whale/terminal/input',
  -- client -> server request {taskId, cols, rows}
  terminal_resize = 'whale/terminal/resize',
  -- client -> server request {taskId}
  terminal_cancel = 'whale/terminal/cancel',
  -- client -> server request -> {tasks = [...]}
  terminal_list = 'whale/terminal/list',
  -- client -> server request {command, cwd?} -> {readOnly, boundary = 'allow'|'ask'|'deny'|'unchecked'}
  shell_judge = 'whale/shell/judge',
  -- client -> server request {tool, input} -> {readOnly, whaleAsks, title, detail (markdown),
  -- files? = [{path, added, removed}], error?}: what a tool call will do, before it runs; a
  -- server without it answers -32601 (method not found), which the plugin reads as "no preview"
  preview = 'whale/preview',

  -- server -> client notification {promptId, kind, title, detail, options, placeholder?, timeoutMs?,
  -- expiresAt? (RFC 3339, for a countdown), files? = [{path, uri, before, after,
  -- hunks = [{id, header, diff}]}] (kind "review")}
  prompt = 'whale/prompt',
  -- client -> server request {promptId, optionId | text | cancelled = true}; a review:
  -- {promptId, optionId = "accept"|"reject", hunks? = [id] (omitted: all), text? (the reason)}
  prompt_answer = 'whale/prompt/answer',

  -- server -> client request {uris} -> {saved = [uri]}
  save_documents = 'whale/saveDocuments',

  -- server -> client notification {explanation, steps = [{step, status}]}
  plan = 'whale/plan',
  -- server -> client notification {items = [{id, content, status, priority, created, updated}]}
  todos = 'whale/todos',

  -- client -> server request {since?, limit?} -> {entries = [{id, time (RFC 3339), tool, callId,
  -- summary (the model's), title (the person's), command?, revertOf?, revertedBy?,
  -- files = [{path, relPath, uri, name, where, added, removed, created, deleted}]}], dropped}
  changes_list = 'whale/changes/list',
  -- client -> server request {id} -> {id, diff, files = [{path, uri, before?, after?,
  -- beforeExists, afterExists, binary}]}
  changes_diff = 'whale/changes/diff',
  -- client -> server request {id} | {to} -> {ok, code, text (the model's), message (the person's),
  -- reverted, entry?, conflicts? = [{path, reason, hunks}]}
  changes_revert = 'whale/changes/revert',
  -- server -> client notification {latest}
  changes_changed = 'whale/changes/changed',

  -- server -> client request {uris} -> {items = [{uri, range, severity, message, source?,
  -- code?}], published? = {uri = count}}; sent only to a client that declares
  -- languageFeatures (lua/whale/language.lua)
  diagnostics = 'whale/diagnostics',
  -- server -> client request {kind, uri?, position?, query?, newName?} -> the LSP result
  -- of that kind, in whale's position encoding; only with languageFeatures
  language_feature = 'whale/languageFeature',
}
