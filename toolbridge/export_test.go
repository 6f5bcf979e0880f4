package toolbridge

// Internals that the external tests (package toolbridge_test, which may
// import packages above the contract, such as mcphost) check.
var (
	MCPCheckSchema = mcpCheckSchema
	Validate       = validate
)
