package web

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The tests below use names under .test and www.example.com that a
// fakeResolver maps to documentation addresses (192.0.2.0/24): public to
// the guard, routed by testNet to loopback servers, never reached.

// setProxyEnv clears every variable httpproxy reads and sets vars.
func setProxyEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	for _, k := range []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "REQUEST_METHOD"} {
		t.Setenv(k, vars[k])
	}
}

// testNet is the network under the guard in these tests: it dials
// loopback addresses as they are, routes the documentation addresses in
// routes to loopback, and refuses everything else, so no test sends a
// packet off this machine.
type testNet struct {
	t      *testing.T
	routes map[netip.Addr]netip.Addr

	mu sync.Mutex
	// dialled are the addresses asked for, in order.
	dialled []string
}

func (n *testNet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	n.dialled = append(n.dialled, address)
	n.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		n.t.Errorf("dial %s: not an address; the guard should have resolved it", address)
		return nil, err
	}
	a := ap.Addr()
	if to, ok := n.routes[a]; ok {
		a = to
	}
	if !a.IsLoopback() {
		n.t.Errorf("dial %s: not a loopback or routed test address", address)
		return nil, fmt.Errorf("test network: %s is not reachable", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, netip.AddrPortFrom(a, ap.Port()).String())
}

func (n *testNet) dials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.dialled)
}

// testProxy is an HTTP proxy on loopback: it forwards plain-http requests
// and opens CONNECT tunnels, but only to the hosts in upstream, each
// mapped to a loopback address (the port is kept).
type testProxy struct {
	*httptest.Server
	upstream map[string]string
	// auth, if set, is the Proxy-Authorization value required.
	auth string
	// refuseConnect answers every CONNECT with 403.
	refuseConnect bool

	mu sync.Mutex
	// seen are the requests received: "GET http://…" or "CONNECT host:port".
	seen  []string
	conns []net.Conn
	wg    sync.WaitGroup
}

func newTestProxy(t *testing.T, upstream map[string]string) *testProxy {
	p := &testProxy{upstream: upstream}
	p.Server = httptest.NewServer(p)
	t.Cleanup(func() {
		p.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *testProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

func (p *testProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if r.Method == http.MethodConnect {
		p.seen = append(p.seen, "CONNECT "+r.Host)
	} else {
		p.seen = append(p.seen, r.Method+" "+r.URL.String())
	}
	p.mu.Unlock()
	if p.auth != "" && r.Header.Get("Proxy-Authorization") != p.auth {
		w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	if r.Method == http.MethodConnect && p.refuseConnect {
		http.Error(w, "tunnels are not allowed", http.StatusForbidden)
		return
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	up, ok := p.upstream[host]
	if !ok {
		http.Error(w, "no route to "+r.Host, http.StatusBadGateway)
		return
	}
	upAddr := net.JoinHostPort(up, port)
	if r.Method == http.MethodConnect {
		p.tunnel(w, upAddr)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Host = upAddr
	out.Header.Del("Proxy-Authorization")
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (p *testProxy) tunnel(w http.ResponseWriter, upAddr string) {
	upConn, err := net.Dial("tcp", upAddr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		upConn.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, conn, upConn)
	p.mu.Unlock()
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		conn.Close()
		upConn.Close()
		return
	}
	pipe := func(dst net.Conn, src io.Reader) {
		defer p.wg.Done()
		io.Copy(dst, src)
		conn.Close()
		upConn.Close()
	}
	p.wg.Add(2)
	go pipe(upConn, buf)
	go pipe(conn, upConn)
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func targetServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(pageHandler())
	t.Cleanup(srv.Close)
	return srv
}

func pageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		default:
			fmt.Fprintf(w, "page for %s", r.Host)
		}
	})
}

var (
	publicAddr   = netip.MustParseAddr("192.0.2.10")
	directAddr   = netip.MustParseAddr("192.0.2.40")
	loopbackAddr = netip.MustParseAddr("127.0.0.1")
)

// proxyClient is a Client on the test network: public.test and
// www.example.com resolve to a public documentation address,
// direct.test to one routed to loopback, internal.test and db.corp.test
// to private addresses, mixed.test to a public and a loopback one.
func proxyClient(t *testing.T) (*Client, *testNet) {
	n := &testNet{t: t, routes: map[netip.Addr]netip.Addr{directAddr: loopbackAddr}}
	c := &Client{
		Resolver: fakeResolver{
			"public.test":     {publicAddr},
			"www.example.com": {netip.MustParseAddr("192.0.2.20")},
			"direct.test":     {directAddr},
			"internal.test":   {netip.MustParseAddr("10.1.2.3")},
			"db.corp.test":    {netip.MustParseAddr("10.9.9.9")},
			"mixed.test":      {netip.MustParseAddr("192.0.2.30"), loopbackAddr},
		},
		netDial: n.dial,
	}
	return c, n
}

// TestProxyForwardsPlainHTTP: with HTTP_PROXY set, a request and its
// redirect go to the proxy, which reaches the target; nothing is dialled
// but the proxy, although it sits on a loopback address.
func TestProxyForwardsPlainHTTP(t *testing.T) {
	srv := targetServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	proxy := newTestProxy(t, map[string]string{"public.test": "127.0.0.1"})
	setProxyEnv(t, map[string]string{"HTTP_PROXY": proxy.URL})
	c, n := proxyClient(t)
	target := fmt.Sprintf("http://public.test:%d", port)
	resp, err := c.Do(context.Background(), Request{URL: target + "/moved"})
	if err != nil {
		t.Fatalf("Do(%s/moved) through the proxy: %v", target, err)
	}
	if want := fmt.Sprintf("page for public.test:%d", port); string(resp.Body) != want || resp.URL != target+"/page" {
		t.Errorf("Do(%s/moved) = %q at %s, want %q at %s/page", target, resp.Body, resp.URL, want, target)
	}
	if diff := cmp.Diff([]string{"GET " + target + "/moved", "GET " + target + "/page"}, proxy.requests()); diff != "" {
		t.Errorf("the proxy saw (-want +got):\n%s", diff)
	}
	for _, d := range n.dials() {
		if d != proxy.Listener.Addr().String() {
			t.Errorf("dialled %s; only the proxy %s should be", d, proxy.Listener.Addr())
		}
	}
}

// TestProxyConnectForHTTPS: an https target goes through a CONNECT tunnel
// of the HTTPS_PROXY, and TLS is checked end to end.
func TestProxyConnectForHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(pageHandler())
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	proxy := newTestProxy(t, map[string]string{"www.example.com": "127.0.0.1"})
	setProxyEnv(t, map[string]string{"https_proxy": proxy.URL})
	c, _ := proxyClient(t)
	c.rootCAs = x509.NewCertPool()
	c.rootCAs.AddCert(srv.Certificate())
	target := fmt.Sprintf("https://www.example.com:%d/page", port)
	resp, err := c.Do(context.Background(), Request{URL: target})
	if err != nil {
		t.Fatalf("Do(%s) through the proxy: %v", target, err)
	}
	if want := fmt.Sprintf("page for www.example.com:%d", port); string(resp.Body) != want {
		t.Errorf("Do(%s) = %q, want %q", target, resp.Body, want)
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("CONNECT www.example.com:%d", port)}, proxy.requests()); diff != "" {
		t.Errorf("the proxy saw (-want +got):\n%s", diff)
	}
}

// TestProxyRefusesPrivateTargets: a target the guard refuses — by its
// literal address, its name, or any address its name resolves to — is
// refused before the proxy sees anything; a name that does not resolve
// here is not handed to the proxy either.
func TestProxyRefusesPrivateTargets(t *testing.T) {
	proxy := newTestProxy(t, nil)
	setProxyEnv(t, map[string]string{"HTTP_PROXY": proxy.URL, "HTTPS_PROXY": proxy.URL})
	c, n := proxyClient(t)
	for _, tc := range []struct {
		url  string
		want string // in the error
	}{
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
		{"http://10.0.0.1/", "10.0.0.1 is a private address"},
		{"https://[fd00::1]/", "fd00::1 is a private (unique local) address"},
		{"https://metadata.google.internal/", "a cloud metadata service"},
		{"http://internal.test/", "internal.test resolves to 10.1.2.3, a private address"},
		{"https://mixed.test/", "mixed.test resolves to 127.0.0.1, a loopback address"},
	} {
		_, err := c.Do(context.Background(), Request{URL: tc.url})
		var de *DeniedError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Do(%s) = %v, want a DeniedError saying %q", tc.url, err, tc.want)
		}
	}
	_, err := c.Do(context.Background(), Request{URL: "http://nowhere.test/"})
	if !errors.Is(err, ErrTargetUnresolved) {
		t.Errorf("Do(http://nowhere.test/) = %v, want ErrTargetUnresolved", err)
	}
	if got := proxy.requests(); len(got) != 0 {
		t.Errorf("the proxy saw %q, want nothing", got)
	}
	if got := n.dials(); len(got) != 0 {
		t.Errorf("dialled %q, want nothing", got)
	}
}

// TestProxyRedirectsAreChecked: a target reached through the proxy that
// redirects to a refused address is stopped at the redirect; the proxy
// sees the first request only.
func TestProxyRedirectsAreChecked(t *testing.T) {
	srv := targetServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	proxy := newTestProxy(t, map[string]string{"public.test": "127.0.0.1"})
	setProxyEnv(t, map[string]string{"HTTP_PROXY": proxy.URL})
	c, _ := proxyClient(t)
	for i, to := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://internal.test/admin",
		fmt.Sprintf("http://localhost:%d/", port),
	} {
		u := fmt.Sprintf("http://public.test:%d/redirect?to=%s", port, url.QueryEscape(to))
		_, err := c.Do(context.Background(), Request{URL: u})
		var de *DeniedError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "redirect to "+to+" refused") {
			t.Errorf("redirect to %s: err = %v, want a refused redirect with a DeniedError", to, err)
		}
		if got := proxy.requests(); len(got) != i+1 || got[i] != "GET "+u {
			t.Errorf("redirect to %s: the proxy saw %q, want only GET %s last", to, got, u)
		}
	}
}

// TestNoProxyGoesDirect: a NO_PROXY target is dialled directly and the
// dial-time guard still refuses a private one; loopback targets never use
// the proxy, as in net/http.
func TestNoProxyGoesDirect(t *testing.T) {
	srv := targetServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	proxy := newTestProxy(t, nil)
	setProxyEnv(t, map[string]string{"HTTP_PROXY": proxy.URL, "NO_PROXY": "direct.test,.corp.test"})
	c, n := proxyClient(t)
	u := fmt.Sprintf("http://direct.test:%d/page", port)
	resp, err := c.Do(context.Background(), Request{URL: u})
	if err != nil || string(resp.Body) != fmt.Sprintf("page for direct.test:%d", port) {
		t.Fatalf("Do(%s) = %v, want the page, directly", u, err)
	}
	if diff := cmp.Diff([]string{netip.AddrPortFrom(directAddr, uint16(port)).String()}, n.dials()); diff != "" {
		t.Errorf("dials (-want +got):\n%s", diff)
	}
	_, err = c.Do(context.Background(), Request{URL: "http://db.corp.test/"})
	var de *DeniedError
	if !errors.As(err, &de) || de.Addr.String() != "10.9.9.9" {
		t.Errorf("Do(http://db.corp.test/) = %v, want a DeniedError naming 10.9.9.9", err)
	}
	private := &Client{Guard: Guard{AllowPrivate: true}}
	if _, err := private.Do(context.Background(), Request{URL: srv.URL + "/page"}); err != nil {
		t.Errorf("Do(%s) with a proxy set = %v, want the page, directly", srv.URL, err)
	}
	if got := proxy.requests(); len(got) != 0 {
		t.Errorf("the proxy saw %q, want nothing", got)
	}
}

// TestProxyFailures: an unreachable proxy, one that wants credentials and
// one that refuses the tunnel each give a ProxyError naming the proxy and
// the variable it came from, without the password.
func TestProxyFailures(t *testing.T) {
	closed := "http://" + closedPort(t)
	authProxy := newTestProxy(t, map[string]string{"public.test": "127.0.0.1", "www.example.com": "127.0.0.1"})
	authProxy.auth = "Basic " + "dTpyaWdodA==" // u:right
	strictProxy := newTestProxy(t, nil)
	strictProxy.refuseConnect = true
	withUser := func(p *testProxy, userinfo string) string {
		return strings.Replace(p.URL, "http://", "http://"+userinfo+"@", 1)
	}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		url    string
		status int
		want   string // in the error
	}{
		{"unreachable", map[string]string{"HTTP_PROXY": closed}, "http://public.test/", 0,
			"the proxy " + closed + " (from HTTP_PROXY) cannot be reached"},
		{"unreachable, lower case first", map[string]string{"https_proxy": closed, "HTTPS_PROXY": authProxy.URL}, "https://public.test/", 0,
			"the proxy " + closed + " (from https_proxy) cannot be reached"},
		{"unsupported scheme", map[string]string{"HTTP_PROXY": "ftp://127.0.0.1:21"}, "http://public.test/", 0,
			`its scheme "ftp" is not one of http, https, socks5`},
		{"407 on CONNECT", map[string]string{"HTTPS_PROXY": withUser(authProxy, "u:wrong")}, "https://www.example.com/", 407,
			"(from HTTPS_PROXY) asks for credentials: HTTP 407 Proxy Authentication Required"},
		{"407 on plain http", map[string]string{"HTTP_PROXY": authProxy.URL}, "http://public.test/", 407,
			"the proxy " + authProxy.URL + " (from HTTP_PROXY) asks for credentials"},
		{"CONNECT refused", map[string]string{"HTTPS_PROXY": strictProxy.URL}, "https://www.example.com/", 403,
			"refused to connect to www.example.com:443: HTTP 403 Forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setProxyEnv(t, tc.env)
			c, _ := proxyClient(t)
			_, err := c.Do(context.Background(), Request{URL: tc.url})
			var pe *ProxyError
			if !errors.As(err, &pe) || pe.Status != tc.status || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Do(%s) = %v, want a ProxyError with status %d saying %q", tc.url, err, tc.status, tc.want)
			}
			if strings.Contains(err.Error(), "wrong") {
				t.Errorf("the error %q shows the proxy password", err)
			}
		})
	}
	// With the right credentials the same proxy lets the request through.
	srv := targetServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	setProxyEnv(t, map[string]string{"HTTP_PROXY": withUser(authProxy, "u:right")})
	c, _ := proxyClient(t)
	u := fmt.Sprintf("http://public.test:%d/page", port)
	if resp, err := c.Do(context.Background(), Request{URL: u}); err != nil || resp.Status != 200 {
		t.Errorf("Do(%s) with proxy credentials = %v, want the page", u, err)
	}
}
