package toolbridge

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Codes are the stable words an Envelope's code may hold; editors and models
// branch on them, so they never change meaning.
const (
	CodeOK                   = "ok"
	CodeInvalidInput         = "invalid_input"
	CodeUnknownTool          = "unknown_tool"
	CodeNotFound             = "not_found"
	CodePathEscapesWorkspace = "path_escapes_workspace"
	CodePathNotAllowed       = "path_not_allowed"
	CodeIsDirectory          = "is_directory"
	CodeBinaryFile           = "binary_file"
	CodeTooLarge             = "too_large"
	CodeSearchNotFound       = "search_not_found"
	CodeSearchNotUnique      = "search_not_unique"
	CodeNoChange             = "no_change"
	CodeWriteConflict        = "write_conflict"
	CodeEditRejected         = "edit_rejected"
	CodeDenied               = "denied"
	CodeApprovalTimeout      = "approval_timeout"
	CodeTimeout              = "timeout"
	CodeCanceled             = "canceled"
	CodeTaskNotFound         = "task_not_found"
	CodeNotConfigured        = "not_configured"
	CodeServerError          = "server_error"
	CodeNetworkError         = "network_error"
	CodeInternal             = "internal"
)

// Codes lists every code above: the one list of result codes. Packages
// below toolbridge that name codes (edits, workspace) use these same words
// in constants of their own, and a test checks that no package names a code
// that is not in this list.
var Codes = []string{
	CodeOK,
	CodeInvalidInput,
	CodeUnknownTool,
	CodeNotFound,
	CodePathEscapesWorkspace,
	CodePathNotAllowed,
	CodeIsDirectory,
	CodeBinaryFile,
	CodeTooLarge,
	CodeSearchNotFound,
	CodeSearchNotUnique,
	CodeNoChange,
	CodeWriteConflict,
	CodeEditRejected,
	CodeDenied,
	CodeApprovalTimeout,
	CodeTimeout,
	CodeCanceled,
	CodeTaskNotFound,
	CodeNotConfigured,
	CodeServerError,
	CodeNetworkError,
	CodeInternal,
}

// DefaultTextLimit is the number of bytes of Envelope text a model receives
// before the rest is cut with a marker.
const DefaultTextLimit = 64 << 10

// Envelope is the one result shape of every tool on every front end. A tool
// failure is an Envelope with OK false, never a JSON-RPC error.
type Envelope struct {
	OK        bool     `json:"ok"`
	Code      string   `json:"code"`
	Text      string   `json:"text"`
	Data      any      `json:"data,omitempty"`
	Repairs   []string `json:"repairs,omitempty"`
	Truncated bool     `json:"truncated"`
	// Media are the result's content items that are not text, each the
	// JSON of an MCP content item (image, audio, resource_link, resource)
	// as the MCP server that made it sent it; Text describes each. Only
	// proxied MCP tools have them.
	Media []json.RawMessage `json:"media,omitempty"`
}

// Result is what a tool's run function returns on success: the text the model
// reads, optional structured data, and an optional hint that tells the model
// how to get the rest when the text is cut.
type Result struct {
	Text string
	Data any
	// Media become the Envelope's Media.
	Media []json.RawMessage
	// MoreHint completes the truncation marker, e.g. "read on with offset=2001".
	// Empty means a generic hint.
	MoreHint string
	// Repairs lists tolerant interpretations the tool itself made (for
	// example a whitespace-normalised edit match); they are reported with the
	// input repairs.
	Repairs []string
}

// Failure is an error a tool returns when the model can fix the problem: a
// stable code and a sentence that ends in the next step to take.
type Failure struct {
	Code string
	Text string
	Data any
}

func (f *Failure) Error() string { return f.Code + ": " + f.Text }

// Fail builds a Failure with a formatted message.
func Fail(code, format string, args ...any) *Failure {
	return &Failure{Code: code, Text: fmt.Sprintf(format, args...)}
}

// truncateText cuts text to at most limit bytes, on a UTF-8 boundary, and
// appends a marker that says how much was cut and how to get the rest.
func truncateText(text string, limit int, hint string) (string, bool) {
	if limit <= 0 || len(text) <= limit {
		return text, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if hint == "" {
		hint = "narrow the request (a smaller range, a tighter pattern) to see the rest"
	}
	return fmt.Sprintf("%s\n[output truncated: %d of %d bytes not shown; %s]", text[:cut], len(text)-cut, len(text), hint), true
}

// MarshalEnvelope renders an Envelope as JSON; it never fails for Envelopes
// built by this package because Data holds plain values.
func MarshalEnvelope(e Envelope) []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(Envelope{Code: CodeInternal, Text: "result could not be encoded: " + err.Error()})
	}
	return b
}
