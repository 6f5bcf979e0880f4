-- Lets CodeCompanion find the whale extension by name:
--   require('codecompanion').setup({ extensions = { whale = { opts = {} } } })
return require('whale.codecompanion')
