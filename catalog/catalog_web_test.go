package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
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
	d := &Deps{}
	d.SetSettings(s)
	r, err := toolbridge.NewRegistry(nil, webTools(d))
	if err != nil {
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

func TestFetchTool(t *testing.T) {
	srv := webTestServer(t)
	r := webRegistry(t, `{"web":{"allowPrivate":true}}`)

	env := call(t, r, "fetch", map[string]any{"url": srv.URL + "/api", "headers": []any{map[string]string{"name": "Authorization", "value": "Bearer t"}}})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "HTTP 200 OK\n") || !strings.Contains(env.Text, "content-type: application/json") ||
		!strings.Contains(env.Text, "x-ratelimit-remaining: 59") || !strings.Contains(env.Text, `{"method":"GET","auth":"Bearer t"}`) || len(env.Repairs) > 0 {
		t.Errorf("fetch /api = %s %q, repairs %v", env.Code, env.Text, env.Repairs)
	}
	// The object form models often send is repaired into the list.
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/api", "headers": map[string]string{"Authorization": "Bearer u"}})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, `"auth":"Bearer u"`) || !slices.Equal(env.Repairs, []string{toolbridge.RepairObjectToNameValueList}) {
		t.Errorf("fetch /api with headers as an object = %s %q, repairs %v", env.Code, env.Text, env.Repairs)
	}
	if strings.Contains(env.Text, "secret") {
		t.Errorf("fetch shows Set-Cookie: %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/echo", "method": "POST", "body": "hello"})
	if !strings.Contains(env.Text, "got POST hello") {
		t.Errorf("fetch POST = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 25})
	if !strings.Contains(env.Text, "\n0123456789012345678901234\n[body truncated after 25 bytes") {
		t.Errorf("fetch with max_bytes = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/logo.png"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "(binary body: image/png, 16 bytes; not shown") || strings.Contains(env.Text, "IHDR") {
		t.Errorf("fetch of an image = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/missing"})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "HTTP 404 Not Found") {
		t.Errorf("fetch of a missing page = %s %q, want the raw 404", env.Code, env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": "ftp://example.com/x"})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "http:// or https://") {
		t.Errorf("fetch ftp = %s %q", env.Code, env.Text)
	}
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

func TestWebFetchTool(t *testing.T) {
	srv := webTestServer(t)
	r := webRegistry(t, `{"web":{"allowPrivate":true}}`)
	env := call(t, r, "web_fetch", map[string]any{"url": srv.URL + "/moved"})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "# How the cache works\nURL: "+srv.URL+"/article\n") ||
		!strings.Contains(env.Text, "last thousand answers") || strings.Contains(env.Text, "© 2026") ||
		!strings.Contains(env.Text, "]("+srv.URL+"/docs/config)") {
		t.Errorf("web_fetch = %s %q", env.Code, env.Text)
	}
	env = call(t, r, "web_fetch", map[string]any{"url": srv.URL + "/article", "format": "text", "max_bytes": 40})
	if env.Code != toolbridge.CodeOK || strings.Contains(env.Text, "](") || !strings.Contains(env.Text, "[page truncated after 40 bytes") {
		t.Errorf("web_fetch text = %q", env.Text)
	}
	for _, tc := range []struct{ path, code, text string }{
		{"/missing", toolbridge.CodeNotFound, "HTTP 404"},
		{"/logo.png", toolbridge.CodeBinaryFile, "image/png"},
	} {
		env := call(t, r, "web_fetch", map[string]any{"url": srv.URL + tc.path})
		if env.Code != tc.code || !strings.Contains(env.Text, tc.text) {
			t.Errorf("web_fetch %s = %s %q, want %s with %q", tc.path, env.Code, env.Text, tc.code, tc.text)
		}
	}
	env = call(t, r, "web_fetch", map[string]any{"url": srv.URL + "/api"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, `{"method":"GET"`) {
		t.Errorf("web_fetch of JSON = %s %q, want it as is", env.Code, env.Text)
	}
}

func TestWebSearchTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/searx/search":
			fmt.Fprintf(w, `{"query":%q,"results":[
				{"url":"https://a.example/","title":"First","content":"one  two"},
				{"url":"https://b.example/","title":"Second","content":""},
				{"url":"https://c.example/","title":"Third","content":"three"}]}`, r.URL.Query().Get("q"))
		case "/brave":
			if r.Header.Get("X-Subscription-Token") != "brave-key" {
				w.WriteHeader(401)
				return
			}
			if r.URL.Query().Get("q") == "slow down" {
				w.WriteHeader(429)
				return
			}
			fmt.Fprint(w, `{"type":"search","web":{"results":[{"title":"Brave hit","url":"https://d.example/","description":"a <strong>match</strong>"}]}}`)
		}
	}))
	defer srv.Close()
	t.Setenv("TEST_BRAVE_KEY", "brave-key")
	t.Setenv("TEST_EMPTY_KEY", "")

	r := webRegistry(t, fmt.Sprintf(`{"web":{"search":{"provider":"searxng","endpoint":%q}}}`, srv.URL+"/searx"))
	env := call(t, r, "web_search", map[string]any{"query": "cache", "max_results": 2})
	want := "2 results for \"cache\" (searxng):\n\n1. First\n   https://a.example/\n   one two\n\n2. Second\n   https://b.example/\n\nRead a result with web_fetch."
	if env.Code != toolbridge.CodeOK || env.Text != want {
		t.Errorf("web_search searxng = %s %q, want %q", env.Code, env.Text, want)
	}
	var data struct {
		Results []struct{ URL string } `json:"results"`
	}
	b, _ := json.Marshal(env.Data)
	if json.Unmarshal(b, &data); len(data.Results) != 2 {
		t.Errorf("data = %s, want 2 results", b)
	}

	brave := func(env string) *toolbridge.Registry {
		return webRegistry(t, fmt.Sprintf(`{"web.search":{"provider":"brave","endpoint":%q,"apiKeyEnv":%q}}`, srv.URL+"/brave", env))
	}
	env = call(t, brave("TEST_BRAVE_KEY"), "web_search", map[string]any{"query": "x"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "1. Brave hit\n   https://d.example/\n   a match") {
		t.Errorf("web_search brave = %s %q", env.Code, env.Text)
	}
	env = call(t, brave("TEST_BRAVE_KEY"), "web_search", map[string]any{"query": "slow down"})
	if env.Code != toolbridge.CodeNetworkError || !strings.Contains(env.Text, "rate limiting") {
		t.Errorf("web_search rate limited = %s %q", env.Code, env.Text)
	}

	for _, tc := range []struct{ settings, text string }{
		{`{}`, `"web.search": {"provider": "searxng"`},
		{`{"web":{"search":{"provider":"bing"}}}`, "providers are searxng and brave"},
		{`{"web":{"search":{"provider":"searxng"}}}`, "no endpoint"},
		{`{"web":{"search":{"provider":"brave","apiKeyEnv":"TEST_EMPTY_KEY"}}}`, "TEST_EMPTY_KEY"},
		{`{"web":{"search":{"provider":"searxng","url":"x"}}}`, "not valid"},
	} {
		env := call(t, webRegistry(t, tc.settings), "web_search", map[string]any{"query": "x"})
		if env.Code != toolbridge.CodeNotConfigured || !strings.Contains(env.Text, tc.text) {
			t.Errorf("web_search with %s = %s %q, want not_configured with %q", tc.settings, env.Code, env.Text, tc.text)
		}
	}
	env = call(t, webRegistry(t, fmt.Sprintf(`{"web":{"search":{"provider":"brave","endpoint":%q,"apiKeyEnv":"TEST_WRONG"}}}`, srv.URL+"/brave")), "web_search", map[string]any{"query": "x"})
	if env.Code != toolbridge.CodeNotConfigured {
		t.Errorf("web_search with an unset key variable = %s %q", env.Code, env.Text)
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
