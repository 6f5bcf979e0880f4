package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestGuardRefusesNonPublicAddresses(t *testing.T) {
	g := Guard{}
	for _, tc := range []struct {
		host   string
		denied bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"[::1]", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true},
		{"100.100.100.200", true},
		{"0.0.0.0", true},
		{"::ffff:127.0.0.1", true},
		{"fd00:ec2::254", true},
		{"fe80::1", true},
		{"localhost", true},
		{"LOCALHOST.", true},
		{"api.localhost", true},
		{"metadata.google.internal", true},
		{"93.184.216.34", false},
		{"2606:2800:220:1:248:1893:25c8:1946", false},
		{"example.com", false},
	} {
		err := g.CheckHost(tc.host)
		var de *DeniedError
		if got := errors.As(err, &de); got != tc.denied {
			t.Errorf("CheckHost(%q) = %v, want denied=%v", tc.host, err, tc.denied)
		}
	}
	if err := (Guard{AllowPrivate: true}).CheckHost("127.0.0.1"); err != nil {
		t.Errorf("AllowPrivate CheckHost(127.0.0.1) = %v, want nil", err)
	}
}

// fakeResolver maps names to addresses, as a DNS server under an
// attacker's control would.
type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// TestNameResolvingToLoopbackIsRefused: a public-looking name that
// resolves to a private address (DNS rebinding) is refused at the dial.
func TestNameResolvingToLoopbackIsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := &Client{Resolver: fakeResolver{"innocent.example": {netip.MustParseAddr("127.0.0.1")}}}
	_, err := c.Do(context.Background(), Request{URL: "http://innocent.example:" + u.Port() + "/"})
	var de *DeniedError
	if !errors.As(err, &de) || de.Addr.String() != "127.0.0.1" {
		t.Fatalf("Do(innocent.example → 127.0.0.1) = %v, want a DeniedError naming 127.0.0.1", err)
	}
	if !strings.Contains(err.Error(), "innocent.example resolves to 127.0.0.1") {
		t.Errorf("error %q does not say what the name resolved to", err)
	}
}

// TestRedirectsAreChecked: a reachable server that redirects to a
// metadata address, to localhost or to a file: URL is refused at the
// redirect.
func TestRedirectsAreChecked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	defer srv.Close()
	c := &Client{Guard: Guard{exempt: netip.MustParseAddr("127.0.0.1")}}
	for _, to := range []string{"http://169.254.169.254/latest/meta-data/", "http://localhost/", "file:///etc/passwd"} {
		_, err := c.Do(context.Background(), Request{URL: srv.URL + "/?to=" + url.QueryEscape(to)})
		if err == nil || !strings.Contains(err.Error(), "redirect to") {
			t.Errorf("redirect to %s: err = %v, want a refused redirect", to, err)
		}
		var de *DeniedError
		if strings.HasPrefix(to, "http") && !errors.As(err, &de) {
			t.Errorf("redirect to %s: err = %v, want a DeniedError", to, err)
		}
	}
}

func TestRedirectLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/"), &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/%d", n-1), http.StatusFound)
			return
		}
		fmt.Fprint(w, "landed")
	}))
	defer srv.Close()
	c := &Client{Guard: Guard{AllowPrivate: true}}
	resp, err := c.Do(context.Background(), Request{URL: srv.URL + "/5"})
	if err != nil || string(resp.Body) != "landed" || len(resp.Redirects) != 5 || !strings.HasSuffix(resp.URL, "/0") {
		t.Fatalf("5 redirects: %+v, %v; want the body after 5 redirects", resp, err)
	}
	if _, err := c.Do(context.Background(), Request{URL: srv.URL + "/6"}); !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("6 redirects: err = %v, want ErrTooManyRedirects", err)
	}
}

func TestBodyCapAndSchemes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	c := &Client{Guard: Guard{AllowPrivate: true}}
	resp, err := c.Do(context.Background(), Request{URL: srv.URL, MaxBytes: 100})
	if err != nil || len(resp.Body) != 100 || !resp.Truncated || resp.MediaType != "text/plain" || resp.Charset != "utf-8" {
		t.Fatalf("capped fetch = %+v, %v", resp, err)
	}
	for _, u := range []string{"ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)"} {
		if _, err := c.Do(context.Background(), Request{URL: u}); !errors.Is(err, ErrScheme) {
			t.Errorf("Do(%q) = %v, want ErrScheme", u, err)
		}
	}
}

func TestIsTextAndDecode(t *testing.T) {
	for _, tc := range []struct {
		mt   string
		body string
		want bool
	}{
		{"text/html", "<p>hi</p>", true},
		{"application/json", `{"a":1}`, true},
		{"application/vnd.api+json", `{}`, true},
		{"image/png", "\x89PNG\r\n", false},
		{"application/octet-stream", "abc", false},
		{"", "plain words", true},
		{"", "\x00\x01\x02", false},
	} {
		if got := IsText(tc.mt, []byte(tc.body)); got != tc.want {
			t.Errorf("IsText(%q, %q) = %v, want %v", tc.mt, tc.body, got, tc.want)
		}
	}
	if got := DecodeText([]byte{0xe9, 't', 0xe9}, "iso-8859-1"); got != "été" {
		t.Errorf("DecodeText(latin-1) = %q, want été", got)
	}
}

func TestReadableExtractsTheArticle(t *testing.T) {
	page := `<html><head><title>Release notes</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Release notes</h1>
<p>Version 2 brings a faster parser, written from scratch, that reads large files in a single pass and uses far less memory than before.</p>
<p>See the <a href="/docs/parser">parser documentation</a> for the details of the new design and the numbers we measured on real projects.</p>
<p>Upgrading is simple: change the version in your build file, run the tests, and read the list of removed options below.</p>
</article><footer>Copyright</footer></body></html>`
	u, _ := url.Parse("https://example.org/news/v2")
	p, err := Readable(context.Background(), []byte(page), u, FormatMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Release notes" || !strings.Contains(p.Content, "faster parser") || strings.Contains(p.Content, "Copyright") {
		t.Errorf("Readable = %+v", p)
	}
	if !strings.Contains(p.Content, "(https://example.org/docs/parser)") {
		t.Errorf("link not made absolute in %q", p.Content)
	}
	txt, err := Readable(context.Background(), []byte(page), u, FormatText)
	if err != nil || strings.Contains(txt.Content, "](") || !strings.Contains(txt.Content, "faster parser") {
		t.Errorf("text format = %q, %v", txt.Content, err)
	}
}

func TestSearchProviders(t *testing.T) {
	var gotKey, gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			gotQuery = r.URL.Query().Get("q")
			if r.URL.Query().Get("format") != "json" {
				http.Error(w, "format", http.StatusForbidden)
				return
			}
			fmt.Fprint(w, `{"query":"go","number_of_results":0,"results":[
				{"url":"https://go.dev/","title":"The Go Programming Language","content":"Go is an open source language.","engine":"duckduckgo","score":1.5},
				{"url":"https://go.dev/doc/","title":"Documentation","content":"Docs.","engine":"bing"}],"answers":[],"suggestions":[]}`)
		case "/res/v1/web/search":
			gotKey = r.Header.Get("X-Subscription-Token")
			if gotKey != "k1" {
				http.Error(w, `{"type":"ErrorResponse"}`, http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"type":"search","query":{"original":"go"},"web":{"type":"search","results":[
				{"title":"The Go Programming Language","url":"https://go.dev/","description":"<strong>Go</strong> is open source.","age":"1 day"}]}}`)
		}
	}))
	defer srv.Close()
	s := &SearXNG{Endpoint: srv.URL}
	res, err := s.Search(context.Background(), "go lang", 1)
	if err != nil || len(res) != 1 || res[0].URL != "https://go.dev/" || gotQuery != "go lang" {
		t.Fatalf("SearXNG = %+v, %v (query %q)", res, err, gotQuery)
	}
	b := &Brave{Endpoint: srv.URL + "/res/v1/web/search", Key: "k1"}
	res, err = b.Search(context.Background(), "go", 5)
	if err != nil || len(res) != 1 || res[0].Snippet != "Go is open source." {
		t.Fatalf("Brave = %+v, %v", res, err)
	}
	b.Key = "wrong"
	_, err = b.Search(context.Background(), "go", 5)
	var pe *ProviderError
	if !errors.As(err, &pe) || !pe.Auth() {
		t.Fatalf("Brave with a wrong key = %v, want an auth ProviderError", err)
	}
}
