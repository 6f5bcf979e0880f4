package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"sync"

	"github.com/whale-ls/whale-ls/excerpt"
	"golang.org/x/net/http/httpproxy"
	"golang.org/x/net/idna"
)

// ErrTargetUnresolved: a request would go through a proxy, but its host
// cannot be resolved on this machine, so the guard cannot check it.
var ErrTargetUnresolved = errors.New("the host cannot be resolved on this machine, so it cannot be checked before it goes to the proxy")

// ProxyError reports a request that failed at the HTTP proxy: the proxy
// cannot be reached, asks for credentials (407) or refuses to open a tunnel.
type ProxyError struct {
	// Proxy is the proxy URL with any password masked.
	Proxy string
	// Env is the environment variable the proxy came from, such as HTTPS_PROXY.
	Env string
	// Target is the host:port the request was for.
	Target string
	// Status is the proxy's HTTP status; 0 when it gave none.
	Status int
	// Err is the cause when Status is 0.
	Err error
}

// Error says which proxy failed, from which variable, and how.
func (e *ProxyError) Error() string {
	switch {
	case e.Status == http.StatusProxyAuthRequired:
		return fmt.Sprintf("the proxy %s (from %s) asks for credentials: HTTP 407 %s", e.Proxy, e.Env, http.StatusText(e.Status))
	case e.Status != 0:
		return fmt.Sprintf("the proxy %s (from %s) refused to connect to %s: HTTP %d %s", e.Proxy, e.Env, e.Target, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("the proxy %s (from %s) cannot be reached: %v", e.Proxy, e.Env, e.Err)
}

// Unwrap returns the cause of an unreachable proxy, nil otherwise.
func (e *ProxyError) Unwrap() error { return e.Err }

// proxyRoute chooses, for each request of one Client.Do, between a direct
// connection and the proxy the environment names (HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY and their lower-case forms, read when the route is made, by
// net/http's rules: requests to localhost and loopback addresses never use
// a proxy). It is the transport's Proxy function, and it guards what the
// dialer cannot see.
//
// The connection to the proxy itself is not guarded: the user chose the
// proxy, and it often sits on a private address. The target is checked
// before anything is sent: an address literal in a refused range, a refused
// name, or a name any of whose addresses (resolved here) is refused stops
// the request. The proxy resolves the name again, so this check is best
// effort against DNS rebinding: a name whose answer changes between the two
// lookups reaches whatever the proxy lets it reach. That is acceptable
// because the proxy is the user's own gateway with its own rules: through
// it, a request reaches no more than any other program on this machine
// using the same proxy, and names that plainly resolve to private or
// metadata addresses are still refused. A name this machine cannot resolve
// is refused too (ErrTargetUnresolved), unless the guard allows private
// addresses, in which case no target is checked.
type proxyRoute struct {
	choose   func(*url.URL) (*url.URL, error)
	env      map[string]string // target scheme → variable its proxy comes from
	guard    Guard
	resolver Resolver

	mu sync.Mutex
	// endpoints are the host:port of the proxies handed to the transport;
	// the dialer connects to them without the guard.
	endpoints map[string]bool
	// last is the proxy of the latest request, nil when it went direct.
	last *url.URL
}

func newProxyRoute(guard Guard, resolver Resolver) *proxyRoute {
	// A Config built here, not http.ProxyFromEnvironment, which reads the
	// environment once per process.
	return &proxyRoute{
		choose:    httpproxy.FromEnvironment().ProxyFunc(),
		env:       map[string]string{"http": setEnvName("http_proxy", "HTTP_PROXY"), "https": setEnvName("https_proxy", "HTTPS_PROXY")},
		guard:     guard,
		resolver:  resolver,
		endpoints: map[string]bool{},
	}
}

// setEnvName returns the first of the names that is set, as httpproxy
// reads them (lower case first), or the last name.
func setEnvName(names ...string) string {
	for _, n := range names {
		if os.Getenv(n) != "" {
			return n
		}
	}
	return names[len(names)-1]
}

// forRequest is the transport's Proxy function.
func (r *proxyRoute) forRequest(req *http.Request) (*url.URL, error) {
	proxy, err := r.choose(req.URL)
	if err != nil {
		return nil, err
	}
	target := canonicalAddr(req.URL)
	r.mu.Lock()
	r.last = proxy
	// A direct request to a proxy's own address would pass the dialer
	// unguarded, so it is checked here like a proxied one.
	toEndpoint := r.endpoints[target]
	r.mu.Unlock()
	if proxy == nil && !toEndpoint {
		return nil, nil
	}
	if proxy != nil {
		switch proxy.Scheme {
		case "http", "https", "socks5", "socks5h":
		default:
			return nil, r.proxyError(proxy, req.URL, 0, fmt.Errorf("its scheme %q is not one of http, https, socks5", proxy.Scheme))
		}
	}
	if err := r.checkTarget(req.Context(), req.URL.Hostname()); err != nil {
		var denied *DeniedError
		if proxy != nil && !errors.As(err, &denied) {
			err = fmt.Errorf("%w: %w", ErrTargetUnresolved, err)
		}
		if req.Response != nil {
			return nil, fmt.Errorf("redirect to %s refused: %w", req.URL, err)
		}
		return nil, err
	}
	if proxy != nil {
		r.mu.Lock()
		r.endpoints[canonicalAddr(proxy)] = true
		r.mu.Unlock()
	}
	return proxy, nil
}

// checkTarget refuses a host the guard refuses by name or as an address
// literal, and a name any of whose addresses the guard refuses.
func (r *proxyRoute) checkTarget(ctx context.Context, host string) error {
	if r.guard.AllowPrivate {
		return nil
	}
	if err := r.guard.CheckHost(host); err != nil {
		return err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // CheckHost checked the literal
	}
	name, err := idnaASCII(host)
	if err != nil {
		return fmt.Errorf("the host name %s is not valid: %w", excerpt.Quote(host), err)
	}
	addrs, err := r.resolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return fmt.Errorf("no address found for %s", host)
	}
	for _, a := range addrs {
		if err := r.guard.CheckAddr(host, a); err != nil {
			return err
		}
	}
	return nil
}

// isEndpoint reports whether address (host:port, as the transport dials
// it) is a proxy this route handed out.
func (r *proxyRoute) isEndpoint(address string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.endpoints[address]
}

// lastProxy is the proxy of the latest request, nil when it went direct.
func (r *proxyRoute) lastProxy() *url.URL {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// onConnectResponse is the transport's OnProxyConnectResponse: a CONNECT
// answered with anything but 200 becomes a ProxyError.
func (r *proxyRoute) onConnectResponse(_ context.Context, proxy *url.URL, connectReq *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return &ProxyError{Proxy: proxy.Redacted(), Env: r.env["https"], Target: connectReq.Host, Status: resp.StatusCode}
}

// explain turns a failed connection to the proxy (the transport's
// "proxyconnect" error) into a ProxyError; other errors pass unchanged.
func (r *proxyRoute) explain(err error, target *url.URL) error {
	var pe *ProxyError
	if errors.As(err, &pe) {
		return err
	}
	var oe *net.OpError
	if proxy := r.lastProxy(); proxy != nil && errors.As(err, &oe) && oe.Op == "proxyconnect" {
		return r.proxyError(proxy, target, 0, oe.Err)
	}
	return err
}

func (r *proxyRoute) proxyError(proxy, target *url.URL, status int, err error) *ProxyError {
	return &ProxyError{Proxy: proxy.Redacted(), Env: r.env[target.Scheme], Target: canonicalAddr(target), Status: status, Err: err}
}

// canonicalAddr is u's host:port with the scheme's default port, the
// address net/http dials for it.
func canonicalAddr(u *url.URL) string {
	host := u.Hostname()
	if v, err := idnaASCII(host); err == nil {
		host = v
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		}
	}
	return net.JoinHostPort(host, port)
}

func idnaASCII(host string) (string, error) {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return idna.Lookup.ToASCII(host)
		}
	}
	return host, nil
}

// lastURL is the URL of the request a client error is about.
func lastURL(err error, fallback *url.URL) *url.URL {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			return u
		}
	}
	return fallback
}
