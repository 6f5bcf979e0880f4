package mcpfront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/excerpt"
)

// stdioConn is the connection Serve hands the SDK instead of its
// IOTransport: newline-delimited JSON-RPC on the client's input and
// output, one message per line, with the rules that IOTransport breaks by
// ending the session (or leaves to the handlers):
//
//   - A line that is not JSON is answered -32700 (parse error, id null).
//   - A batch (a JSON array) is answered -32600: MCP 2025-06-18 removed
//     batching; whale-ls takes none in any protocol version. Each request
//     in it gets its own error response (in one array, the shape a client
//     that sends batches reads); a batch without one, a single error.
//   - JSON that is not a JSON-RPC 2.0 message is answered -32600, with the
//     message's id when it has a usable one.
//   - A request other than initialize and ping before initialize is
//     answered -32600 (the SDK answers code 0), except one that carries
//     the sessionless protocol's _meta protocol version.
//   - A method of a capability whale-ls does not advertise is answered
//     -32601 (see unadvertised).
//   - After notifications/cancelled for a request in flight, its response
//     is not sent.
//   - An error response with code 0 leaves as -32603 (internal error).
//
// Messages too deep for the SDK are answered by the depthGuard below it.
// The SDK never sees a message it cannot decode, so only the end of input
// or a failed write ends the session.
type stdioConn struct {
	out io.Writer
	in  io.Closer

	lines   chan []byte // whole lines from the reading goroutine
	readErr error       // why lines was closed; set before the close
	closed  chan struct{}
	once    sync.Once

	mu          sync.Mutex
	initialized bool       // an initialize request was passed on and has not failed
	initID      jsonrpc.ID // that request's id
	// calls holds the requests passed on and not answered yet; true once
	// the client cancelled one.
	calls map[jsonrpc.ID]bool
}

func newStdioConn(in io.ReadCloser, out io.Writer) *stdioConn {
	c := &stdioConn{out: out, in: in, lines: make(chan []byte), closed: make(chan struct{}), calls: map[jsonrpc.ID]bool{}}
	go c.readLines(bufio.NewReaderSize(in, 64<<10))
	return c
}

// stdioTransport connects a stdioConn once.
type stdioTransport struct{ conn *stdioConn }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// readLines sends the input's lines until it ends or the connection
// closes. It runs in its own goroutine so that Close unblocks Read even
// when a read of stdin cannot be interrupted.
func (c *stdioConn) readLines(r *bufio.Reader) {
	defer close(c.lines)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			select {
			case c.lines <- line:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// Read returns the next message for the SDK, answering the lines that are
// none itself.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l, ok := <-c.lines:
			if !ok {
				if c.readErr == nil || errors.Is(c.readErr, io.EOF) {
					return nil, io.EOF
				}
				return nil, c.readErr
			}
			line = l
		}
		msg, reply := c.accept(line)
		if reply != nil {
			if _, err := c.out.Write(reply); err != nil {
				return nil, err
			}
		}
		if msg != nil {
			return msg, nil
		}
	}
}

// accept decides about one line: the message to pass on to the SDK, or
// the reply to send instead (nil for a line that needs none).
func (c *stdioConn) accept(line []byte) (jsonrpc.Message, []byte) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, nil
	case !json.Valid(line):
		return nil, errorLine(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the line is not JSON (%s); send one JSON-RPC message per line", excerpt.Quote(string(line))))
	case line[0] == '[':
		return nil, batchReply(line)
	case line[0] != '{':
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a JSON-RPC message is an object, not %s", excerpt.Quote(string(line))))
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		_, id, _, _ := scanMessage(line)
		return nil, errorLine(usableID(id), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		if ok && req.Method == "notifications/cancelled" {
			c.cancelled(req.Params)
		}
		return msg, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initialized && !beforeInitialize(req) {
		return nil, errorLine(rawID(req.ID), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %q before initialize; send initialize first (then notifications/initialized)", req.Method))
	}
	if unadvertised(req.Method) {
		return nil, errorLine(rawID(req.ID), jsonrpc.CodeMethodNotFound, methodNotFound(req.Method))
	}
	if req.Method == "initialize" && !c.initialized {
		c.initialized, c.initID = true, req.ID
	}
	if _, dup := c.calls[req.ID]; !dup {
		c.calls[req.ID] = false
	} // a duplicate id is the SDK's to refuse
	return msg, nil
}

// beforeInitialize reports whether req may come before initialize:
// initialize and ping, server/discover (the SDK answers it), and a request
// of the sessionless protocol, which has no initialize.
func beforeInitialize(req *jsonrpc.Request) bool {
	switch req.Method {
	case "initialize", "ping", "server/discover":
		return true
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	_, ok := p.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

// cancelled marks the request named by notifications/cancelled params, if
// it is in flight, so that its response is not sent.
func (c *stdioConn) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.calls[id]; ok {
		c.calls[id] = true
	}
}

// Write sends one message; the response to a request the client cancelled
// is dropped.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cancelled := c.calls[resp.ID]
		delete(c.calls, resp.ID)
		if resp.Error != nil && c.initID.IsValid() && resp.ID == c.initID {
			c.initialized = false // a failed initialize
		}
		c.mu.Unlock()
		if cancelled {
			return nil
		}
		if resp.Error != nil {
			r := *resp
			r.Error = withCode(resp.Error)
			msg = &r
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// Close closes the input and unblocks Read.
func (c *stdioConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }

// withCode gives an error without a JSON-RPC code (the SDK sends code 0 for
// a plain error) the code of an internal error.
func withCode(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// unadvertised reports whether method belongs to a capability whale-ls
// does not advertise (it serves tools only): resources, prompts,
// completions and logging.
func unadvertised(method string) bool {
	for _, prefix := range []string{"resources/", "prompts/", "completion/", "logging/"} {
		if strings.HasPrefix(method, prefix) {
			return true
		}
	}
	return false
}

func methodNotFound(method string) string {
	return fmt.Sprintf("method not found: %q; whale-ls serves tools only (tools/list, tools/call)", method)
}

// batchReply answers a batch: -32600 for each request in it, or once with
// id null when it holds none.
func batchReply(line []byte) []byte {
	const text = "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send each message on its own line"
	var elems []json.RawMessage
	json.Unmarshal(line, &elems) // valid JSON and an array: cannot fail
	var replies []json.RawMessage
	for _, e := range elems {
		if _, id, method, _ := scanMessage(e); method != nil && usableID(id) != nil {
			replies = append(replies, bytes.TrimSuffix(errorLine(usableID(id), jsonrpc.CodeInvalidRequest, text), []byte("\n")))
		}
	}
	if len(replies) == 0 {
		return errorLine(nil, jsonrpc.CodeInvalidRequest, text)
	}
	b, _ := json.Marshal(replies)
	return append(b, '\n')
}

// errorLine is a JSON-RPC error response as one line; a nil id is null.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nullable(id), "error": map[string]any{"code": code, "message": message}})
	return append(b, '\n')
}

// nullable is id, or null when there is none.
func nullable(id json.RawMessage) json.RawMessage {
	if id == nil {
		return json.RawMessage("null")
	}
	return id
}

// usableID returns a raw id (as scanMessage finds it) if it is a string or
// a number, the two kinds of JSON-RPC ids, else nil.
func usableID(raw []byte) json.RawMessage {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return json.RawMessage(raw)
	}
	return nil
}

// rawID is the JSON form of a decoded id.
func rawID(id jsonrpc.ID) json.RawMessage {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return b
}
