package mcptest

import "encoding/json"

// SchemaTool is a tool of the test server's "schemas" set: its name and its
// input schema exactly as the server lists it. Every such tool answers a
// call with "args: " followed by the arguments exactly as they arrived, so a
// test sees what the server was sent (a null stays null).
type SchemaTool struct {
	Name   string
	Schema json.RawMessage
}

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
		{"nullable_fields", json.RawMessage(`{
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
		{"any_of", json.RawMessage(`{
			"type": "object",
			"properties": {
				"target": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}, {"type": "null"}], "description": "a name, a number or null"},
				"mode": {"oneOf": [{"const": "fast"}, {"const": "safe"}]},
				"window": {"allOf": [{"type": "object", "properties": {"from": {"type": "integer"}}}, {"required": ["from"]}]}
			}
		}`)},
		{"refs", json.RawMessage(`{
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
		{"tree", json.RawMessage(`{
			"type": "object",
			"$defs": {
				"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
			},
			"properties": {
				"root": {"$ref": "#/$defs/node"}
			}
		}`)},
		{"bare_array", json.RawMessage(`{
			"type": "object",
			"properties": {
				"values": {"type": "array", "description": "anything at all"},
				"options": {"type": "object", "properties": {}},
				"meta": {"type": "object"}
			}
		}`)},
		{"no_params", json.RawMessage(`{"type": "object", "properties": {}}`)},
		{LongToolName, json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`)},
		{"dot.name", json.RawMessage(`{"type": "object", "properties": {}}`)},
		{"dot_name", json.RawMessage(`{"type": "object", "properties": {}}`)},
	}
}
