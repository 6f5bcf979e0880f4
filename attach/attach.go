// Package attach lets other whale-ls processes reach a running language
// server of the same workspace: the server listens on a Unix socket in a
// private 0700 folder and writes a small 0600 discovery file named after the
// workspace (through atomicfile, so a reader sees all of it or none); a
// client (the MCP front end) finds it, connects and sends tool calls, which
// then run in the server's session — edits land in the editor buffers,
// shell tasks show as editor terminals, approvals are asked there; and
// `whale-ls settings` asks it for its status (whale/status).
//
// Only the same OS user can connect: the folder and socket permissions keep
// others out, and the server checks the peer's credentials (SO_PEERCRED) on
// every connection. The package does not authenticate processes of the same
// user against each other; they are trusted as the user is.
//
// A call's context on the server ends when the client cancels it (the
// client sends $/cancelRequest when the context of its Call ends), when the
// client's connection ends, and when the Listener is closed.
package attach

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/atomicfile"
	"github.com/whale-ls/whale-ls/internal/userdir"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Discovery is the content of a discovery file.
type Discovery struct {
	PID     int    `json:"pid"`
	Socket  string `json:"socket"`
	Root    string `json:"root"`
	Version string `json:"version"`
	UID     int    `json:"uid"`
	// Roots are all the server's workspace folders, the first one first:
	// relative paths in tool inputs are resolved against it. Absent in
	// the files of servers older than the field.
	Roots []string `json:"roots,omitempty"`
}

// Status is the answer to whale/status: what the running server says
// about itself, for people (`whale-ls settings` prints it).
type Status struct {
	// FileIndexes has one line per workspace folder's file index
	// (search.IndexStatus.String); empty when the server keeps none.
	FileIndexes []string `json:"fileIndexes"`
}

// Dir returns the private folder for sockets and discovery files,
// userdir.Runtime (created mode 0700, owned by this user).
func Dir() (string, error) { return userdir.Runtime() }

// Key names a workspace root in the attach folder: a short hash of its
// real path (socket paths must stay short).
func Key(root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return hex.EncodeToString(sum[:8])
}

// Service is what the listener serves: the session's registry.
type Service interface {
	Specs() []toolbridge.Spec
	Dispatch(ctx context.Context, call toolbridge.Call) toolbridge.Envelope
}

// Listener serves attach connections for one language-server session.
type Listener struct {
	ln      net.Listener
	files   []string // discovery files to remove on Close
	svc     Service
	status  func() Status
	fileSvc Files // nil: no file service
	log     *slog.Logger
	// allowUID is the only user id accepted as a peer.
	allowUID int

	mu sync.Mutex
	// conns maps each attached connection to the cancel function of its
	// calls' contexts.
	conns  map[jsonrpc2.Conn]context.CancelCauseFunc
	closed bool
}

// ListenOptions configure Listen.
type ListenOptions struct {
	// Dir overrides the attach folder (tests).
	Dir string
	// AllowUID overrides the accepted peer user id (default: this process's).
	AllowUID *int
	Version  string
	Log      *slog.Logger
	// Status answers whale/status; nil answers an empty Status.
	Status func() Status
	// Files answers whale/file/read and whale/file/write; nil leaves them
	// unknown methods.
	Files Files
}

// Listen opens the session's socket and writes a discovery file for each
// root. The first root names the socket.
func Listen(roots []string, svc Service, o ListenOptions) (*Listener, error) {
	if len(roots) == 0 {
		return nil, errors.New("no workspace root to attach to")
	}
	dir := o.Dir
	if dir == "" {
		d, err := Dir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	sock := filepath.Join(dir, fmt.Sprintf("%s-%d.sock", Key(roots[0]), os.Getpid()))
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil { // the folder is 0700 already
		ln.Close()
		return nil, err
	}
	l := &Listener{ln: ln, svc: svc, status: o.Status, fileSvc: o.Files, log: o.Log, allowUID: os.Getuid(), conns: map[jsonrpc2.Conn]context.CancelCauseFunc{}}
	if o.AllowUID != nil {
		l.allowUID = *o.AllowUID
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	for _, root := range roots {
		d := Discovery{PID: os.Getpid(), Socket: sock, Root: root, Version: o.Version, UID: os.Getuid(), Roots: roots}
		b, _ := json.Marshal(d)
		file := filepath.Join(dir, Key(root)+".json")
		if err := atomicfile.WriteFile(file, b, 0o600); err != nil {
			l.Close()
			return nil, err
		}
		l.files = append(l.files, file)
	}
	go l.accept()
	return l, nil
}

func (l *Listener) accept() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		uc, ok := c.(*net.UnixConn)
		if !ok {
			c.Close()
			continue
		}
		uid, pid, err := peerCred(uc)
		if err != nil || uid != l.allowUID {
			l.log.Warn("attach connection refused: the peer is another user", "uid", uid, "err", err)
			c.Write(refusal("this whale-ls session belongs to another user"))
			c.Close()
			continue
		}
		if pid > 0 && pid != os.Getpid() && descendantOf(pid, os.Getpid()) {
			// A process inside one of this server's tasks would get the
			// server's own reach — its network, its writable folders —
			// instead of the task's confinement.
			l.log.Warn("attach connection refused: the peer runs inside one of this server's tasks", "pid", pid)
			c.Write(refusal("a process inside one of this whale-ls session's shell tasks cannot attach to it; it runs standalone, under the task's confinement"))
			c.Close()
			continue
		}
		l.serve(c)
	}
}

func (l *Listener) serve(c net.Conn) {
	// Every call's context derives from work, which ends with the client's
	// connection (its end of input) or with the Listener.
	work, endWork := context.WithCancelCause(context.Background())
	conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(endingConn{c, endWork}))
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		endWork(errListenerClosed)
		c.Close()
		return
	}
	l.conns[conn] = endWork
	l.mu.Unlock()
	calls := &callTable{cancels: map[jsonrpc2.ID]context.CancelCauseFunc{}}
	conn.Go(work, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case MethodTools:
			return map[string]any{"tools": l.svc.Specs()}, nil
		case MethodStatus:
			st := Status{FileIndexes: []string{}}
			if l.status != nil {
				st = l.status()
			}
			return st, nil
		case MethodCancel:
			if id, ok := cancelID(req.Params()); ok && !req.IsCall() {
				calls.cancel(id)
			}
			return nil, nil
		case MethodFileRead, MethodFileWrite:
			if l.fileSvc == nil {
				break
			}
			call, done := calls.add(jsonrpc2.DetachContext(ctx), req.ID())
			defer done()
			jsonrpc2.Async(ctx) // a write may wait for a review
			return serveFile(call, l.fileSvc, req.Method(), json.RawMessage(req.Params())), nil
		case MethodCall:
			var p struct {
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, MethodCall+" needs {name, input}")
			}
			// The request's own context is pooled and must not be used
			// past the read loop: the call runs on one derived from work,
			// registered under its id before the next message is read.
			call, done := calls.add(jsonrpc2.DetachContext(ctx), req.ID())
			defer done()
			jsonrpc2.Async(ctx) // calls may be long: let others through
			env := l.svc.Dispatch(call, toolbridge.Call{Name: p.Name, Input: p.Input})
			if call.Err() != nil {
				l.log.Info("attached call canceled", "tool", p.Name, "cause", context.Cause(call), "code", env.Code)
			}
			return json.RawMessage(toolbridge.MarshalEnvelope(env)), nil
		}
		if !req.IsCall() {
			return nil, nil
		}
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "unknown attach method "+req.Method())
	})
	go func() {
		<-conn.Done()
		endWork(errClientGone)
		l.mu.Lock()
		delete(l.conns, conn)
		l.mu.Unlock()
	}()
}

// Why the server canceled an attached call (the cause of its context).
var (
	errCanceledByClient = errors.New("the client canceled the call")
	errClientGone       = errors.New("the client's connection ended")
	errListenerClosed   = errors.New("the language-server session ended")
)

// callTable holds the cancel functions of a connection's calls in flight.
type callTable struct {
	mu      sync.Mutex
	cancels map[jsonrpc2.ID]context.CancelCauseFunc
}

// add derives the context of call id from parent; done forgets it.
func (t *callTable) add(parent context.Context, id jsonrpc2.ID) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancelCause(parent)
	t.mu.Lock()
	t.cancels[id] = cancel
	t.mu.Unlock()
	return ctx, func() {
		t.mu.Lock()
		delete(t.cancels, id)
		t.mu.Unlock()
		cancel(nil)
	}
}

// cancel cancels call id if it is in flight.
func (t *callTable) cancel(id jsonrpc2.ID) {
	t.mu.Lock()
	cancel := t.cancels[id]
	t.mu.Unlock()
	if cancel != nil {
		cancel(errCanceledByClient)
	}
}

// cancelID reads the id of a $/cancelRequest: a number or a string.
func cancelID(params []byte) (jsonrpc2.ID, bool) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc2.ID{}, false
	}
	var n int64
	if json.Unmarshal(p.ID, &n) == nil {
		return jsonrpc2.NewNumberID(n), true
	}
	var str string
	if json.Unmarshal(p.ID, &str) == nil {
		return jsonrpc2.NewStringID(str), true
	}
	return jsonrpc2.ID{}, false
}

// idValue is id as a JSON number or string (jsonrpc2.ID has no JSON form
// of its own).
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	str, _ := id.StringValue()
	return str
}

// endingConn calls end when reading fails: the client closed its end or
// the connection broke, so nobody waits for the answers of its calls.
type endingConn struct {
	net.Conn
	end context.CancelCauseFunc
}

func (c endingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.end(errClientGone)
	}
	return n, err
}

// ToolsChanged tells every attached client that the catalog grew.
func (l *Listener) ToolsChanged() {
	l.mu.Lock()
	conns := make([]jsonrpc2.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Notify(context.Background(), MethodToolsChanged, map[string]any{})
	}
}

// Close stops listening, closes attached connections and removes the
// socket and discovery files.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	err := l.ln.Close()
	for c, endWork := range conns {
		endWork(errListenerClosed) // cancel the calls; Close then answers them and ends
		go c.Close()
	}
	for _, f := range l.files {
		// Remove a discovery file only while it still names this process.
		if b, rerr := os.ReadFile(f); rerr == nil {
			var d Discovery
			if json.Unmarshal(b, &d) == nil && d.PID == os.Getpid() {
				os.Remove(f)
			}
		}
	}
	return err
}

// Client is an attached connection to a running server.
type Client struct {
	nc        net.Conn
	conn      jsonrpc2.Conn
	Discovery Discovery
	changed   chan struct{}
}

// Dial finds the running server of root (or of the nearest parent folder
// that has one) and connects. It returns an error when none is running.
func Dial(ctx context.Context, root string, dir string) (*Client, error) {
	abs, dir, err := dialPaths(root, dir)
	if err != nil {
		return nil, err
	}
	for p := abs; ; p = filepath.Dir(p) {
		if c, err := dialDiscovery(ctx, filepath.Join(dir, Key(p)+".json")); err == nil {
			return c, nil
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	return nil, fmt.Errorf("no whale-ls language server is running for %s", abs)
}

// DialRoot connects to the running server whose workspace folder is root
// itself (not a parent of it), as Dial does otherwise. The caller decides
// whether the server's folders suit it (Discovery.Roots).
func DialRoot(ctx context.Context, root string, dir string) (*Client, error) {
	abs, dir, err := dialPaths(root, dir)
	if err != nil {
		return nil, err
	}
	c, err := dialDiscovery(ctx, filepath.Join(dir, Key(abs)+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no whale-ls language server is running for %s", abs)
	}
	return c, err
}

// dialPaths returns root's real absolute path and the attach folder (dir,
// or Dir when dir is empty).
func dialPaths(root, dir string) (string, string, error) {
	if dir == "" {
		d, err := Dir()
		if err != nil {
			return "", "", err
		}
		dir = d
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, dir, nil
}

func dialDiscovery(ctx context.Context, file string) (*Client, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var d Discovery
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	var dialer net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	nc, err := dialer.DialContext(dctx, "unix", d.Socket)
	if err != nil {
		return nil, err
	}
	if err := checkServer(nc, d); err != nil {
		nc.Close()
		return nil, err
	}
	c := &Client{nc: nc, Discovery: d, changed: make(chan struct{}, 1)}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
	c.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == MethodToolsChanged {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}
		if req.IsCall() {
			return nil, jsonrpc2.ErrMethodNotFound
		}
		return nil, nil
	})
	// A refused peer gets a notification and a closed socket: check now.
	if _, err := c.Tools(dctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Tools lists the server's catalog.
func (c *Client) Tools(ctx context.Context) ([]toolbridge.Spec, error) {
	var res struct {
		Tools []toolbridge.Spec `json:"tools"`
	}
	if _, err := c.conn.Call(ctx, MethodTools, map[string]any{}, &res); err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// Status asks the server what it says about itself (whale/status).
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	_, err := c.conn.Call(ctx, MethodStatus, map[string]any{}, &st)
	return st, err
}

// cancelNotifyTimeout bounds sending $/cancelRequest for a canceled call.
const cancelNotifyTimeout = time.Second

// Call runs a tool in the server's session. When ctx ends before the
// answer, the server is told to cancel the call ($/cancelRequest) and Call
// returns ctx's error without waiting for the answer.
func (c *Client) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	var env toolbridge.Envelope
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	id, err := c.conn.Call(ctx, MethodCall, map[string]any{"name": name, "input": input}, &env)
	if err != nil && ctx.Err() != nil {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNotifyTimeout)
		defer cancel()
		_ = c.conn.Notify(nctx, MethodCancel, map[string]any{"id": idValue(id)})
	}
	return env, err
}

// Changed is signalled when the server's catalog grew.
func (c *Client) Changed() <-chan struct{} { return c.changed }

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Close ends the connection at once: calls in flight fail here, and the
// server cancels them when it sees the connection end.
func (c *Client) Close() error {
	err := c.nc.Close()
	c.conn.Close() // the stream is closed already; this waits for the reader
	return err
}

// checkServer makes sure that the process at the other end of nc is the
// server d names: this user's, and the pid the discovery file gives, where
// the system tells (a file or socket planted by someone else names a
// process that is not listening there).
func checkServer(nc net.Conn, d Discovery) error {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return errors.New("the attach socket is not a Unix socket")
	}
	uid, pid, err := peerCred(uc)
	if err != nil {
		if errors.Is(err, errNoPeerCred) {
			return nil
		}
		return fmt.Errorf("check the whale-ls server at %s: %w", d.Socket, err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("the process at %s belongs to uid %d, not to this user", d.Socket, uid)
	}
	if pid > 0 && d.PID > 0 && pid != d.PID {
		return fmt.Errorf("the process at %s is pid %d, not the whale-ls server (pid %d) its discovery file names", d.Socket, pid, d.PID)
	}
	return nil
}
