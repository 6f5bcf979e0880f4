package acpfront

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// JSON-RPC error codes the proxy sends (the ACP schema's ErrorCode).
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeInvalidParams    = -32602
	codeInternal         = -32603
	codeRequestCancelled = -32800
	codeResourceNotFound = -32002
)

// message is one JSON-RPC message as read: the fields that route it. A
// request has Method and ID, a notification Method only, a response ID
// only. ID is the raw JSON of the id, so that 1 and "1" stay apart.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

func (m *message) isRequest() bool  { return m.Method != "" && m.ID != nil }
func (m *message) isResponse() bool { return m.Method == "" && m.ID != nil }

// idKey is the id as a map key: its compact JSON.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error makes a JSON-RPC error usable as a Go error.
func (e *rpcError) Error() string { return e.Message }

// withFields returns line (a JSON object) with the named fields replaced or
// added; the other fields keep their bytes.
func withFields(line []byte, fields map[string]any) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, err
	}
	for k, v := range fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		obj[k] = raw
	}
	return json.Marshal(obj)
}

// peer writes whole lines to one side; safe for concurrent use. Lines the
// proxy relays are buffered (relay) and flushed when the side they come
// from has nothing more buffered; whale's own messages are flushed at once
// (send).
type peer struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newPeer(w io.Writer) *peer { return &peer{w: bufio.NewWriterSize(w, 64<<10)} }

// send writes one message and its newline and flushes.
func (p *peer) send(line []byte) error { return p.write(line, true) }

// relay writes one message and its newline, to be flushed later.
func (p *peer) relay(line []byte) error { return p.write(line, false) }

func (p *peer) write(line []byte, flush bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.w.Write(line); err != nil {
		return err
	}
	if err := p.w.WriteByte('\n'); err != nil {
		return err
	}
	if flush {
		return p.w.Flush()
	}
	return nil
}

// flush writes what relay buffered.
func (p *peer) flush() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w.Flush()
}

// sendJSON marshals v and sends it.
func (p *peer) sendJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return p.send(b)
}

// respond sends a result for request id.
func (p *peer) respond(id json.RawMessage, result any) error {
	return p.sendJSON(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}

// fail sends an error for request id (null when the id is unknown).
func (p *peer) fail(id json.RawMessage, e *rpcError) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	return p.sendJSON(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcError       `json:"error"`
	}{"2.0", id, e})
}

// notify sends a notification.
func (p *peer) notify(method string, params any) error {
	return p.sendJSON(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
}

// request sends a request with id.
func (p *peer) request(id json.RawMessage, method string, params any) error {
	return p.sendJSON(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params"`
	}{"2.0", id, method, params})
}

// scanHead reads the top-level "id" and "method" of a JSON object without
// decoding the rest, for the stream of messages the proxy only relays. ok
// is false when the line is not a plain object it can walk (then the
// caller decodes it with encoding/json, which also says what is wrong); a
// method written with escapes counts as not found that way too. It checks
// the structure it walks (brackets, strings, separators), not every
// literal.
func scanHead(line []byte) (id []byte, method string, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, "", false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil, "", skipSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return nil, "", false
		}
		end, escaped := stringEnd(line, i)
		if end < 0 {
			return nil, "", false
		}
		key := line[i+1 : end]
		i = skipSpace(line, end+1)
		if i >= len(line) || line[i] != ':' {
			return nil, "", false
		}
		i = skipSpace(line, i+1)
		vend := valueEnd(line, i)
		if vend < 0 {
			return nil, "", false
		}
		switch {
		case escaped:
		case string(key) == "id":
			id = line[i:vend]
		case string(key) == "method":
			if line[i] != '"' {
				return nil, "", false
			}
			if e, esc := stringEnd(line, i); esc || e != vend-1 {
				return nil, "", false
			}
			method = string(line[i+1 : vend-1])
		}
		i = skipSpace(line, vend)
		switch {
		case i < len(line) && line[i] == ',':
			i = skipSpace(line, i+1)
		case i < len(line) && line[i] == '}':
			return id, method, skipSpace(line, i+1) == len(line)
		default:
			return nil, "", false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index of the closing quote of the string at i, and
// whether it holds escapes; -1 when it does not close.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch {
		case b[j] == '\\':
			escaped = true
			j++
		case b[j] == '"':
			return j, escaped
		case b[j] < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// valueEnd returns the index just past the JSON value at i; -1 when the
// brackets or strings do not close.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		var stack []byte
		for j := i; j < len(b); j++ {
			switch c := b[j]; c {
			case '"':
				e, _ := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				stack = append(stack, c)
			case '}', ']':
				if len(stack) == 0 || (c == '}') != (stack[len(stack)-1] == '{') {
					return -1
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
