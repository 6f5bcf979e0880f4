package acpfront

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/bits"
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
// literal. toolCall says that some string of the line, key or value at any
// depth, is exactly toolCallId as written (no escapes).
func scanHead(line []byte) (id, method []byte, toolCall, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, nil, false, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil, nil, false, skipSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return nil, nil, false, false
		}
		end, escaped := stringEnd(line, i)
		if end < 0 {
			return nil, nil, false, false
		}
		key := line[i+1 : end]
		toolCall = toolCall || string(key) == "toolCallId"
		i = skipSpace(line, end+1)
		if i >= len(line) || line[i] != ':' {
			return nil, nil, false, false
		}
		i = skipSpace(line, i+1)
		vend := valueEnd(line, i, &toolCall)
		if vend < 0 {
			return nil, nil, false, false
		}
		switch {
		case escaped:
		case string(key) == "id":
			id = line[i:vend]
		case string(key) == "method":
			if line[i] != '"' {
				return nil, nil, false, false
			}
			if e, esc := stringEnd(line, i); esc || e != vend-1 {
				return nil, nil, false, false
			}
			method = line[i+1 : vend-1]
		}
		i = skipSpace(line, vend)
		switch {
		case i < len(line) && line[i] == ',':
			i = skipSpace(line, i+1)
		case i < len(line) && line[i] == '}':
			return id, method, toolCall, skipSpace(line, i+1) == len(line)
		default:
			return nil, nil, false, false
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
// whether it holds escapes; -1 when it does not close. It looks at eight
// bytes at a time for the first quote, backslash or control byte (the
// text of a message is most of its bytes).
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	j := i + 1
	for {
		for j+8 <= len(b) {
			if m := stringSpecial(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		if j >= len(b) {
			return -1, false
		}
		switch c := b[j]; {
		case c == '\\':
			escaped = true
			j += 2
			continue
		case c == '"':
			return j, escaped
		case c < 0x20:
			return -1, false
		}
		j++ // the last bytes, fewer than eight, one at a time
	}
}

// stringSpecial marks the bytes of x (eight bytes, the first lowest) that
// are a quote, a backslash or below 0x20, with the "has zero byte" and
// "has byte less than" word tricks: the lowest bit set, if any, is in the
// first such byte (bits above it may be set for other bytes).
func stringSpecial(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// valueEnd returns the index just past the JSON value at i; -1 when the
// brackets or strings do not close. It sets *toolCall when a string in the
// value is exactly toolCallId.
func valueEnd(b []byte, i int, toolCall *bool) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i)
		if e < 0 {
			return -1
		}
		*toolCall = *toolCall || string(b[i+1:e]) == "toolCallId"
		return e + 1
	case '{', '[':
		var open [32]byte
		stack := open[:0]
		for j := i; j < len(b); j++ {
			switch c := b[j]; c {
			case '"':
				e, _ := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				*toolCall = *toolCall || string(b[j+1:e]) == "toolCallId"
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
