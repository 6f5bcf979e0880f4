package acpfront

import (
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

// peer writes whole lines to one side; safe for concurrent use.
type peer struct {
	mu sync.Mutex
	w  io.Writer
}

// send writes one message and its newline in a single write.
func (p *peer) send(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.w.Write(buf)
	return err
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
