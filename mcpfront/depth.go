package mcpfront

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// maxMessageDepth is the deepest nesting of objects and arrays the MCP
// SDK decodes: a deeper message would end the whole session.
const maxMessageDepth = 1000

// depthGuard stands between the client's input and the rest of the
// connection: it passes newline-delimited messages through unchanged,
// except those it answers itself:
//
//   - A line longer than maxLineBytes: -32600 with id null; the line is
//     skipped, not kept in memory.
//   - A JSON message nested deeper than maxMessageDepth, by its shape: a
//     tools/call request gets an invalid_input tool result, another
//     request a -32600 error, a batch the batch answer (batchReply); a
//     notification or a response gets nothing (no one waits for it), an
//     object that is neither -32600 with id null.
//
// A deep line that is not JSON is passed on, to be answered as a parse
// error.
type depthGuard struct {
	in   *bufio.Reader
	c    io.Closer
	out  *lockedWriter
	rest []byte // the part of the current line not read yet
	// structured says whether a tool result carries the Envelope as
	// structured content (Options.StructuredContent).
	structured bool
}

// maxLineBytes bounds one message, as the SDK's DefaultMaxLineLength does.
const maxLineBytes = mcp.DefaultMaxLineLength

func newDepthGuard(in io.ReadCloser, out *lockedWriter) *depthGuard {
	return &depthGuard{in: bufio.NewReaderSize(in, 64<<10), c: in, out: out}
}

func (g *depthGuard) Read(p []byte) (int, error) {
	for len(g.rest) == 0 {
		line, tooLong, err := readLine(g.in, maxLineBytes)
		switch {
		case tooLong:
			g.out.Write(errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the message is longer than %d bytes; send large content as a file and pass its path", maxLineBytes)))
			line = nil
		case len(line) > 0:
			if depth, id, method, name := scanMessage(line); depth > maxMessageDepth && tokensValid(line) {
				g.answer(line, depth, id, method, name)
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

// readLine reads up to and including the next newline. A line longer than
// limit is read to its end and dropped (tooLong).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// tokensValid reports whether b is one JSON value, at any depth (the
// standard library's Valid stops at 10000 levels).
func tokensValid(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			break
		}
	}
	_, err := dec.Token()
	return err == io.EOF
}

// answer replies to a message that is too deep, by its shape.
func (g *depthGuard) answer(line []byte, depth int, id, method, name []byte) {
	text := fmt.Sprintf("the message nests %d levels of arrays and objects; whale-ls takes up to %d — send the tool input as plain fields (strings, numbers, booleans, shallow arrays)", depth, maxMessageDepth)
	rid := usableID(id)
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		g.out.Write(batchReply(line))
	case method == nil && id == nil:
		g.out.Write(errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: neither a request nor a response; "+text))
	case method == nil || id == nil:
		// A response or a notification: no one waits for an answer.
	case string(method) == `"tools/call"`:
		env := toolbridge.Envelope{Code: toolbridge.CodeInvalidInput, Text: text}
		if name != nil {
			env.Text = "invalid input for " + excerpt.Text(string(bytes.Trim(name, `"`))) + ": " + text
		}
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nullable(rid), "result": toolResult(env, g.structured)})
		if err == nil {
			g.out.Write(append(b, '\n'))
		}
	default:
		g.out.Write(errorLine(rid, jsonrpc.CodeInvalidRequest, "invalid request: "+text))
	}
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
