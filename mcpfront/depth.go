package mcpfront

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// maxMessageDepth is the deepest nesting of objects and arrays the MCP
// SDK decodes: a deeper message makes it end the whole session.
const maxMessageDepth = 1000

// depthGuard stands between the client's input and the SDK: it passes
// newline-delimited messages through unchanged, except one nested deeper
// than maxMessageDepth, which it answers itself (invalid_input for a
// tools/call, a JSON-RPC error for another request, nothing for a
// notification) instead of letting it end the session.
type depthGuard struct {
	in   *bufio.Reader
	c    io.Closer
	out  *lockedWriter
	rest []byte // the part of the current line not read yet
}

func newDepthGuard(in io.ReadCloser, out *lockedWriter) *depthGuard {
	return &depthGuard{in: bufio.NewReaderSize(in, 64<<10), c: in, out: out}
}

func (g *depthGuard) Read(p []byte) (int, error) {
	for len(g.rest) == 0 {
		line, err := g.in.ReadBytes('\n')
		if len(line) > 0 {
			if depth, id, method, name := scanMessage(line); depth > maxMessageDepth {
				g.answer(depth, id, method, name)
				line = nil
			}
		}
		g.rest = line
		if err != nil && len(g.rest) == 0 {
			return 0, err
		}
	}
	n := copy(p, g.rest)
	g.rest = g.rest[n:]
	return n, nil
}

func (g *depthGuard) Close() error { return g.c.Close() }

// answer replies to a message that is too deep.
func (g *depthGuard) answer(depth int, id, method, name []byte) {
	if id == nil {
		return // a notification: no one waits for an answer
	}
	text := fmt.Sprintf("the message nests %d levels of arrays and objects; whale-ls takes up to %d — send the tool input as plain fields (strings, numbers, booleans, shallow arrays)", depth, maxMessageDepth)
	var reply map[string]any
	if string(method) == `"tools/call"` {
		env := toolbridge.Envelope{Code: toolbridge.CodeInvalidInput, Text: text}
		if name != nil {
			env.Text = "invalid input for " + string(bytes.Trim(name, `"`)) + ": " + text
		}
		reply = map[string]any{"content": []any{map[string]any{"type": "text", "text": env.Code + ": " + env.Text}}, "isError": true, "structuredContent": json.RawMessage(toolbridge.MarshalEnvelope(env))}
		reply = map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": reply}
	} else {
		reply = map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "error": map[string]any{"code": -32600, "message": text}}
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return
	}
	g.out.Write(append(b, '\n'))
}

// lockedWriter serializes whole writes: the SDK writes one message per
// Write, and so does depthGuard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// scanMessage reads one JSON message without decoding it: its nesting
// depth and, when they are plain values, the raw top-level "id" and
// "method" and the "name" in the top-level "params" object.
func scanMessage(b []byte) (depth int, id, method, name []byte) {
	var stack []byte // '{' or '[' per open container
	inParams := false
	key, paramsKey := "", ""
	expectKey := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			s := b[i:min(j+1, len(b))]
			switch {
			case expectKey && len(stack) == 1:
				key = string(bytes.Trim(s, `"`))
			case expectKey && len(stack) == 2 && inParams:
				paramsKey = string(bytes.Trim(s, `"`))
			case len(stack) == 1 && key == "id":
				id = s
			case len(stack) == 1 && key == "method":
				method = s
			case len(stack) == 2 && inParams && paramsKey == "name":
				name = s
			}
			expectKey = false
			i = j
		case '{', '[':
			stack = append(stack, c)
			depth = max(depth, len(stack))
			expectKey = c == '{'
			if len(stack) == 2 {
				inParams = c == '{' && key == "params"
			}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ':', ' ', '\t', '\r', '\n':
		default:
			// A number, true, false or null.
			j := i
			for j < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[j])) {
				j++
			}
			if len(stack) == 1 && key == "id" {
				id = b[i:j]
			}
			i = j - 1
		}
	}
	return depth, id, method, name
}
