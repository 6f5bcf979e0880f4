-- Test stand-in for codecompanion.config: the part of CodeCompanion's
-- configuration that tool extensions write to (interactions.chat.tools,
-- with its groups and opts; older releases call it strategies).
local M = {
  interactions = {
    chat = {
      tools = {
        -- CodeCompanion's own tools live here too.
        read_file = {
          description = 'built-in read_file',
          callback = 'interactions.chat.tools.builtin.read_file',
        },
        groups = {},
        opts = {},
      },
    },
  },
  extensions = {},
}
M.strategies = M.interactions
return M
