package catalog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

func webRegistry(t *testing.T, raw string) *toolbridge.Registry {
	t.Helper()
	s, _, err := settings.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	d := &testDeps{}
	d.SetSettings(s)
	r := toolbridge.NewRegistry(nil)
	if err := r.Register(webTools(d)...); err != nil {
		t.Fatal(err)
	}
	return r
}

func webTestServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-RateLimit-Remaining", "59")
			w.Header().Set("Set-Cookie", "session=secret")
			fmt.Fprintf(w, `{"method":%q,"auth":%q}`, r.Method, r.Header.Get("Authorization"))
		case "/echo":
			b := make([]byte, 100)
			n, _ := r.Body.Read(b)
			fmt.Fprintf(w, "got %s %s", r.Method, b[:n])
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("0123456789", 100))
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		case "/moved":
			http.Redirect(w, r, "/article", http.StatusMovedPermanently)
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>How the cache works</title></head><body><nav>Home | Blog</nav>
<article><h1>How the cache works</h1>
<p>The cache keeps the last thousand answers in memory and writes them to disk every minute, so a restart loses at most one minute of work.</p>
<p>Entries expire after an hour. You can change both numbers in the <a href="/docs/config">configuration file</a>; the defaults suit most projects.</p>
<p>When the disk is full, the cache stops writing and logs a warning, but it keeps serving answers from memory.</p>
</article><footer>© 2026</footer></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWebToolsRefusePrivateAddresses: without web.allowPrivate, loopback,
// metadata and localhost are refused with denied and the setting named.
func TestWebToolsRefusePrivateAddresses(t *testing.T) {
	srv := webTestServer(t)
	r := webRegistry(t, `{}`)
	for _, tc := range []struct{ tool, url string }{
		{"fetch", srv.URL + "/api"},
		{"web_fetch", srv.URL + "/article"},
		{"fetch", "http://169.254.169.254/latest/meta-data/"},
		{"web_fetch", "http://localhost/"},
		{"fetch", "http://[::1]/"},
	} {
		env := call(t, r, tc.tool, map[string]any{"url": tc.url})
		if env.Code != toolbridge.CodeDenied || !strings.Contains(env.Text, "web.allowPrivate") {
			t.Errorf("%s %s = %s %q, want denied naming web.allowPrivate", tc.tool, tc.url, env.Code, env.Text)
		}
	}
}

// TestWebToolsThroughProxy: with a proxy in the environment, the web tools
// use it, refuse private targets before it sees anything, and turn its
// failures into network_error naming the proxy and what to check. Targets
// on 0.0.0.0 stand for public hosts: not being a loopback literal, the
// environment's proxy applies to them (net/http skips it only for
// localhost and loopback), and were the proxy ignored, a connection to
// 0.0.0.0 would still stay on this machine.
func TestWebToolsThroughProxy(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.RequestURI)
		mu.Unlock()
		if r.Header.Get("Proxy-Authorization") == "" {
			w.WriteHeader(http.StatusProxyAuthRequired)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "proxied %s", r.URL)
	}))
	defer proxy.Close()
	seenNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	withAuth := strings.Replace(proxy.URL, "http://", "http://u:secret@", 1)
	setProxy := func(httpProxy, httpsProxy string) {
		for _, k := range []string{"http_proxy", "https_proxy", "no_proxy", "NO_PROXY", "REQUEST_METHOD"} {
			t.Setenv(k, "")
		}
		t.Setenv("HTTP_PROXY", httpProxy)
		t.Setenv("HTTPS_PROXY", httpsProxy)
	}

	setProxy(withAuth, withAuth)
	guarded := webRegistry(t, `{}`)
	for _, tc := range []struct{ tool, url string }{
		{"fetch", "http://169.254.169.254/latest/meta-data/"},
		{"web_fetch", "https://10.0.0.1/"},
		{"fetch", "http://localhost:8080/"},
	} {
		env := call(t, guarded, tc.tool, map[string]any{"url": tc.url})
		if env.Code != toolbridge.CodeDenied || !strings.Contains(env.Text, "web.allowPrivate") {
			t.Errorf("%s %s through a proxy = %s %q, want denied", tc.tool, tc.url, env.Code, env.Text)
		}
	}
	if got := seenNow(); len(got) != 0 {
		t.Fatalf("the proxy saw %q, want nothing", got)
	}

	r := webRegistry(t, `{"web":{"allowPrivate":true}}`)
	env := call(t, r, "fetch", map[string]any{"url": "http://0.0.0.0:9/docs"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "proxied http://0.0.0.0:9/docs") {
		t.Errorf("fetch through the proxy = %s %q, want the proxy's answer", env.Code, env.Text)
	}
	if got := seenNow(); len(got) != 1 || got[0] != "GET http://0.0.0.0:9/docs" {
		t.Errorf("the proxy saw %q, want the one GET", got)
	}

	for _, tc := range []struct {
		name, httpProxy, httpsProxy, tool, url string
		want                                   []string // in the text
	}{
		{"unreachable", closed, "", "web_fetch", "http://0.0.0.0:9/",
			[]string{"the proxy " + closed + " (from HTTP_PROXY) cannot be reached", "check that the proxy is running and that HTTP_PROXY holds its address"}},
		{"407 on plain http", proxy.URL, "", "fetch", "http://0.0.0.0:9/",
			[]string{"the proxy " + proxy.URL + " (from HTTP_PROXY) asks for credentials", "http://user:password@host:port"}},
		{"407 on CONNECT", "", proxy.URL, "web_fetch", "https://0.0.0.0:9/",
			[]string{"(from HTTPS_PROXY) asks for credentials", "given in HTTPS_PROXY"}},
	} {
		setProxy(tc.httpProxy, tc.httpsProxy)
		env := call(t, r, tc.tool, map[string]any{"url": tc.url})
		if env.Code != toolbridge.CodeNetworkError {
			t.Errorf("%s: %s = %s %q, want network_error", tc.name, tc.tool, env.Code, env.Text)
		}
		for _, w := range tc.want {
			if !strings.Contains(env.Text, w) {
				t.Errorf("%s: %s = %q, want it to say %q", tc.name, tc.tool, env.Text, w)
			}
		}
	}
}

// TestWebFailureNamesTheRefusedRedirect: when a redirect is what was
// refused, the text names where it led, not only the URL the model asked for.
func TestWebFailureNamesTheRefusedRedirect(t *testing.T) {
	err := &web.RedirectError{URL: "http://127.0.0.1/admin", Err: &web.DeniedError{Host: "127.0.0.1", Reason: "a loopback address"}}
	var f *toolbridge.Failure
	if !errors.As(webFailure(context.Background(), "https://example.org/", err), &f) || f.Code != toolbridge.CodeDenied ||
		!strings.Contains(f.Text, "https://example.org/ (redirected to http://127.0.0.1/admin) refused: 127.0.0.1 is a loopback address") {
		t.Errorf("webFailure = %+v, want denied naming the redirect", f)
	}
}
