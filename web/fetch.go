package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/excerpt"
	"golang.org/x/text/encoding/htmlindex"
)

// Limits of a Client unless set otherwise.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
	// HardMaxBytes is the most body bytes a request ever reads.
	HardMaxBytes = 10 << 20
)

// RedirectError is a redirect the client refused to follow; Err says why
// (often a *DeniedError).
type RedirectError struct {
	URL string
	Err error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirect to %s refused: %v", excerpt.Text(e.URL), e.Err)
}

// Unwrap returns why the redirect was refused.
func (e *RedirectError) Unwrap() error { return e.Err }

// Errors of Client.Do besides *DeniedError and network errors.
var (
	// ErrScheme: the URL is not http or https.
	ErrScheme = errors.New("only http and https URLs can be fetched")
	// ErrTooManyRedirects: the redirect chain is longer than allowed.
	ErrTooManyRedirects = errors.New("too many redirects")
)

// Client makes guarded HTTP requests: http and https only, a bounded number
// of redirects, each checked by the Guard, a timeout, and a cap on the body
// bytes read. It uses the proxy that HTTPS_PROXY, HTTP_PROXY and NO_PROXY
// (or their lower-case forms) name, read anew for every Do; the target of a
// proxied request is checked before it is sent (the package doc says how
// far that goes). The zero Client is ready to use and refuses non-public
// addresses.
type Client struct {
	Guard Guard
	// Resolver resolves host names; nil uses the system resolver.
	Resolver Resolver
	// Timeout bounds a whole request, redirects included (DefaultTimeout if 0).
	Timeout time.Duration
	// MaxRedirects is the longest redirect chain followed (DefaultMaxRedirects if 0).
	MaxRedirects int
	// UserAgent is sent unless the request sets its own.
	UserAgent string

	// Test seams, nil in production: netDial replaces the network under
	// the guard, rootCAs the system's trusted certificates.
	netDial func(ctx context.Context, network, address string) (net.Conn, error)
	rootCAs *x509.CertPool
}

// Request is one HTTP request.
type Request struct {
	URL    string
	Method string // GET if empty
	Header http.Header
	Body   []byte
	// MaxBytes caps the body bytes kept (HardMaxBytes if 0 or larger).
	MaxBytes int64
}

// Response is what came back after the redirects.
type Response struct {
	// URL is the final URL, after redirects.
	URL        string
	Status     int
	StatusText string
	Header     http.Header
	// Body holds at most MaxBytes bytes; Truncated says there were more.
	Body      []byte
	Truncated bool
	// Redirects lists the URLs that redirected, in order.
	Redirects []string
	// MediaType is the Content-Type without parameters, lower case.
	MediaType string
	// Charset is the charset parameter of Content-Type, if any.
	Charset string
}

// MaxURLLen is the longest URL CheckURL accepts, in bytes; servers refuse
// longer ones anyway.
const MaxURLLen = 8 << 10

// CheckURL parses a URL and refuses schemes other than http and https, URLs
// longer than MaxURLLen, and hosts the guard refuses by name. Its errors
// quote at most an excerpt of raw.
func (c *Client) CheckURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxURLLen {
		return nil, fmt.Errorf("not a valid URL: %s is %d bytes, more than the %d that can be fetched", excerpt.Quote(raw), len(raw), MaxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, quoted whole
		}
		return nil, fmt.Errorf("not a valid URL: %s: %w", excerpt.Quote(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w (got %s)", ErrScheme, excerpt.Quote(u.Scheme))
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("the URL %s has no host", excerpt.Quote(raw))
	}
	if err := c.Guard.CheckHost(u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// Do sends the request and reads the response body up to its cap.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	u, err := c.CheckURL(r.URL)
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	resolver := c.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	route := newProxyRoute(c.Guard, resolver)
	var redirects []string
	hc := c.httpClient(route, resolver, timeout, &redirects)
	defer hc.CloseIdleConnections()
	req, err := c.newRequest(ctx, r, u)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, route.explain(unwrapURLError(err), lastURL(err, u))
	}
	defer resp.Body.Close()
	if proxy := route.lastProxy(); resp.StatusCode == http.StatusProxyAuthRequired && proxy != nil &&
		resp.Request.URL.Scheme == "http" && (proxy.Scheme == "http" || proxy.Scheme == "https") {
		// A plain-http request handed to an HTTP proxy: the 407 is the
		// proxy's answer, not the target's.
		return nil, route.proxyError(proxy, resp.Request.URL, resp.StatusCode, nil)
	}
	return readResponse(resp, r.bodyLimit(), redirects)
}

// httpClient is the one-request HTTP client of Do: every connection dialed
// through the guard (and route's proxy, when one applies), no connection
// kept, the server's headers awaited at most timeout, and each redirect
// checked like the first URL and appended to redirects, up to
// c.MaxRedirects (DefaultMaxRedirects if 0).
func (c *Client) httpClient(route *proxyRoute, resolver Resolver, timeout time.Duration, redirects *[]string) *http.Client {
	maxRedirects := c.MaxRedirects
	if maxRedirects <= 0 {
		maxRedirects = DefaultMaxRedirects
	}
	d := &dialer{guard: c.Guard, resolver: resolver, net: net.Dialer{Timeout: 10 * time.Second}, proxies: route, netDial: c.netDial}
	transport := &http.Transport{
		Proxy:                  route.forRequest,
		OnProxyConnectResponse: route.onConnectResponse,
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConns:           1,
		DisableKeepAlives:      true,
	}
	if c.rootCAs != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: c.rootCAs}
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			*redirects = append(*redirects, via[len(via)-1].URL.String())
			if len(via) > maxRedirects {
				return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, maxRedirects)
			}
			if _, err := c.CheckURL(next.URL.String()); err != nil {
				return &RedirectError{URL: next.URL.String(), Err: err}
			}
			return nil
		},
	}
}

// newRequest builds r's request for the checked URL u: its method (GET if
// empty), body and headers, and c.UserAgent unless r sets one.
func (c *Client) newRequest(ctx context.Context, r Request, u *url.URL) (*http.Request, error) {
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("cannot build the request: %w", err)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if req.Header.Get("User-Agent") == "" && c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	return req, nil
}

// bodyLimit is how many body bytes Do keeps: MaxBytes, or HardMaxBytes when
// that is 0 or larger.
func (r Request) bodyLimit() int64 {
	if r.MaxBytes <= 0 || r.MaxBytes > HardMaxBytes {
		return HardMaxBytes
	}
	return r.MaxBytes
}

// readResponse reads resp's body up to limit bytes (marking it truncated
// when there were more; a read error after some bytes keeps those) and
// parses its Content-Type.
func readResponse(resp *http.Response, limit int64, redirects []string) (*Response, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil && len(b) == 0 {
		return nil, fmt.Errorf("reading the response body: %w", err)
	}
	out := &Response{
		URL:        resp.Request.URL.String(),
		Status:     resp.StatusCode,
		StatusText: http.StatusText(resp.StatusCode),
		Header:     resp.Header,
		Body:       b,
		Redirects:  redirects,
	}
	if int64(len(b)) > limit {
		out.Body, out.Truncated = b[:limit], true
	}
	if mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		out.MediaType, out.Charset = strings.ToLower(mt), strings.ToLower(params["charset"])
	}
	return out, nil
}

// unwrapURLError drops the *url.Error wrapper so that a *DeniedError or
// a redirect refusal reaches the caller as itself.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// IsText reports whether a body of this media type (and these first bytes)
// is text a model can read; images, archives, PDFs and other binary
// payloads are not.
func IsText(mediaType string, sample []byte) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/json", mediaType == "application/xml",
		mediaType == "application/javascript", mediaType == "application/ecmascript",
		mediaType == "application/x-javascript", mediaType == "application/x-ndjson",
		mediaType == "application/yaml", mediaType == "application/x-yaml",
		mediaType == "application/toml", mediaType == "application/sql",
		mediaType == "application/x-sh", mediaType == "application/graphql":
		return !bytes.Contains(sample, []byte{0})
	case mediaType == "":
		// No type given: decide by content.
		s := sample
		if len(s) > 4096 {
			s = s[:4096]
		}
		if bytes.Contains(s, []byte{0}) {
			return false
		}
		for len(s) > 0 && !utf8.Valid(s) {
			s = s[:len(s)-1] // a character cut at the end of the sample
			if len(sample)-len(s) > 3 {
				return false
			}
		}
		return true
	}
	return false
}

// DecodeText turns a text body into UTF-8 using its charset (UTF-8 when
// none is given or the charset is unknown). Invalid bytes become U+FFFD.
func DecodeText(body []byte, charset string) string {
	if charset != "" && charset != "utf-8" && charset != "utf8" {
		if enc, err := htmlindex.Get(charset); err == nil {
			if out, err := enc.NewDecoder().Bytes(body); err == nil {
				return string(out)
			}
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
