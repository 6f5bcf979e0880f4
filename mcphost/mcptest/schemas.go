package mcptest

import (
	"encoding/json"
	"strings"
)

// SchemaTool is a tool of the test server's "schemas" set: its name and its
// input schema exactly as the server lists it. Every such tool answers a
// call with "args: " followed by the arguments exactly as they arrived, so a
// test sees what the server was sent (a null stays null).
type SchemaTool struct {
	Name   string
	Schema json.RawMessage
	// Description, if set, replaces the usual one-line description.
	Description string
}

// LongDescription is the description of LongToolName: over 2000 bytes, more
// than model providers accept.
var LongDescription = "Create or update one file of a repository. " + strings.Repeat("Every word of this sentence is part of a description that goes on. ", 29)

// SchemasArg, given among the test server's arguments, adds the SchemaTools
// to its tools (mcp.servers: {"args": ["NAME", mcptest.SchemasArg]}).
const SchemasArg = "--schemas"

// LongToolName is a tool name of 95 characters, the longest seen from a
// real MCP server; model providers accept at most 64.
const LongToolName = "create_or_update_repository_file_contents_with_commit_message_and_branch_and_author_information"

// SchemaTools are the tools whose schemas use what JSON Schema allows and
// whale's own tools do not: nullable type lists, anyOf, $ref (acyclic and
// cyclic), a bare array, properties: {}, long names and names with
// characters model providers refuse (two of which read the same once those
// characters are replaced).
func SchemaTools() []SchemaTool {
	return []SchemaTool{
		{Name: "nullable_fields", Schema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"title": {"type": "string", "description": "the new title"},
				"milestone": {"type": ["integer", "null"], "description": "milestone number, or null to clear it", "minimum": 1},
				"labels": {"type": ["array", "null"], "items": {"type": "string"}},
				"state": {"enum": ["open", "closed", null]},
				"kind": {"const": "issue"},
				"due": {"type": "string", "format": "date-time", "default": "2026-01-01T00:00:00Z"}
			},
			"required": ["title", "milestone"]
		}`)},
		{Name: "any_of", Schema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"target": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}, {"type": "null"}], "description": "a name, a number or null"},
				"mode": {"oneOf": [{"const": "fast"}, {"const": "safe"}]},
				"window": {"allOf": [{"type": "object", "properties": {"from": {"type": "integer"}}}, {"required": ["from"]}]}
			}
		}`)},
		{Name: "refs", Schema: json.RawMessage(`{
			"type": "object",
			"$defs": {
				"person": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": ["string", "null"]}}, "required": ["name"]}
			},
			"definitions": {
				"priority": {"type": "string", "enum": ["low", "high"]}
			},
			"properties": {
				"author": {"$ref": "#/$defs/person", "description": "who wrote it"},
				"reviewers": {"type": "array", "items": {"$ref": "#/$defs/person"}},
				"priority": {"$ref": "#/definitions/priority"}
			},
			"required": ["author"]
		}`)},
		{Name: "tree", Schema: json.RawMessage(`{
			"type": "object",
			"$defs": {
				"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
			},
			"properties": {
				"root": {"$ref": "#/$defs/node"}
			}
		}`)},
		{Name: "bare_array", Schema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"values": {"type": "array", "description": "anything at all"},
				"options": {"type": "object", "properties": {}},
				"meta": {"type": "object"}
			}
		}`)},
		{Name: "no_params", Schema: json.RawMessage(`{"type": "object", "properties": {}}`)},
		{Name: LongToolName, Description: LongDescription, Schema: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`)},
		{Name: "dot.name", Schema: json.RawMessage(`{"type": "object", "properties": {}}`)},
		{Name: "dot_name", Schema: json.RawMessage(`{"type": "object", "properties": {}}`)},
	}
}
