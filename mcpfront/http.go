package mcpfront

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP transport (Handler, ServeOn).
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// (Authorization: Bearer TOKEN). It may not be empty: NewToken makes one.
	Token string
	// AllowedOrigins are the origins (scheme://host[:port]) a browser page
	// may call from, besides the loopback ones (localhost, 127.0.0.1, [::1]
	// on any port).
	AllowedOrigins []string
	// SessionTimeout closes a session that received no request for this
	// long; 0 means an hour.
	SessionTimeout time.Duration
}

// HTTPPath is the path the MCP endpoint is served on.
const HTTPPath = "/mcp"

// NewToken returns a random bearer token: 32 bytes from the system's
// random source, as hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ErrNotLoopback is Listen's refusal of an address that is not loopback.
var ErrNotLoopback = errors.New("not a loopback address")

// Listen opens a TCP listener on addr (host:port; port 0 picks a free
// one) for the HTTP transport. A host that is not a loopback address or
// "localhost" is refused unless allowRemote is set: anyone who can reach
// the port could then try the token.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w (use host:port, e.g. 127.0.0.1:8931)", addr, err)
	}
	if !allowRemote && !loopbackHost(host) {
		return nil, fmt.Errorf("listen address %q: %w (use 127.0.0.1, [::1] or localhost, or allow remote clients explicitly)", addr, ErrNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if !allowRemote {
		// "localhost" may resolve to anything: check what was bound.
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("listen address %q bound %s: %w", addr, tcp.IP, ErrNotLoopback)
		}
	}
	return ln, nil
}

// loopbackHost reports whether host (no port) names this machine's
// loopback interface: localhost or a loopback IP.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the MCP Streamable HTTP endpoint of the server, with the
// official SDK's transport: sessions (Mcp-Session-Id), SSE streams for
// responses and server messages, resumption of a broken stream from the
// last event (Last-Event-ID, events kept in memory) and closing of idle
// sessions. Before the SDK sees a request it checks, in order:
//   - the Host header: on a loopback listener it must name a loopback host
//     (the SDK's DNS-rebinding protection), answered 403 otherwise;
//   - the Origin header, when there is one: a loopback origin or one of
//     HTTPOptions.AllowedOrigins, 403 otherwise;
//   - the bearer token, 401 with WWW-Authenticate when missing or wrong.
//
// Every session shares the server's tools and Backend. The handler serves
// HTTPPath only (404 elsewhere).
func (s *Server) Handler(o HTTPOptions) (http.Handler, error) {
	if o.Token == "" {
		return nil, errors.New("the HTTP transport needs a bearer token")
	}
	origins := map[string]bool{}
	for _, raw := range o.AllowedOrigins {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("allowed origin %q: use scheme://host[:port]", raw)
		}
		origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = time.Hour
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:         s.log,
		EventStore:     mcp.NewMemoryEventStore(nil),
		SessionTimeout: o.SessionTimeout,
	})
	want := []byte("Bearer " + o.Token)
	mux := http.NewServeMux()
	mux.HandleFunc(HTTPPath, func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !allowedOrigin(origin, origins) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q may not call this server", origin), http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="whale-ls"`)
			http.Error(w, "Unauthorized: send the token whale-ls mcp --http printed (or wrote to --token-file) as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	})
	// The SDK checks Host only for requests it sees; checking here first
	// keeps a rebinding page from learning whether its token was right.
	return hostGuard(mux), nil
}

// hostGuard answers 403 to a request that reached a loopback address with
// a Host header that is not a loopback name: a page whose DNS name was
// rebound to 127.0.0.1.
func hostGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if tcp, ok := local.(*net.TCPAddr); ok && tcp.IP.IsLoopback() && !loopbackHost(hostOnly(r.Host)) {
				http.Error(w, fmt.Sprintf("Forbidden: Host %q does not name this machine's loopback address", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hostOnly is the host of a Host header, without the port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// allowedOrigin reports whether a request with this Origin header may be
// served: a loopback origin, or one listed.
func allowedOrigin(origin string, listed map[string]bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if listed[strings.ToLower(u.Scheme+"://"+u.Host)] {
		return true
	}
	return (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Hostname())
}

// ServeOn serves the MCP Streamable HTTP transport (Handler) on ln until
// ctx ends, then cancels every call in flight, closes the sessions and
// returns within StopGrace. Unlike Serve it does not end when a client
// leaves: clients come and go, each in its own session.
func (s *Server) ServeOn(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	defer s.endCalls()
	h, err := s.Handler(o)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.calls },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	s.endCalls()
	sctx, cancel := context.WithTimeout(context.Background(), StopGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// SSE streams stay open until their session ends: cut them.
		srv.Close()
	}
	<-served
	return ctx.Err()
}
