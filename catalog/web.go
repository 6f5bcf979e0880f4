package catalog

import (
	"context"
	_ "embed"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

// Limits of the web tools.
const (
	webDefaultMaxBytes = 50_000
	webMaxMaxBytes     = 1 << 20
	// webPageReadBytes is how much of a page web_fetch reads before it
	// extracts the main content.
	webPageReadBytes   = 5 << 20
	webDefaultResults  = 5
	webMaxResults      = 20
	webUserAgent       = "Mozilla/5.0 (compatible; whale-ls; +https://github.com/whale-ls/whale-ls)"
	webAllowPrivateKey = "web.allowPrivate"
)

// webClient returns a guarded client for the current settings.
func webClient(cfg settings.Settings) *web.Client {
	return &web.Client{Guard: web.Guard{AllowPrivate: cfg.Web.AllowPrivate}, UserAgent: webUserAgent}
}

// webFailure maps a fetch error to the Failure the model reads.
func webFailure(ctx context.Context, rawURL string, err error) error {
	// Messages name the URL by an excerpt, and print an error without a
	// *url.Error's copy of the whole URL.
	rawURL = excerpt.Text(rawURL)
	detail := err
	var ue *url.Error
	if errors.As(err, &ue) {
		detail = ue.Err
	}
	var denied *web.DeniedError
	var proxyErr *web.ProxyError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &denied):
		var redirect *web.RedirectError
		if errors.As(err, &redirect) {
			rawURL += " (redirected to " + excerpt.Text(redirect.URL) + ")"
		}
		return toolbridge.Fail(toolbridge.CodeDenied, "request to %s refused: %v; whale-ls does not reach loopback, private, link-local or cloud metadata addresses. Use a public URL; if the user wants local servers reachable, they can set %s to true in the whale settings", rawURL, denied, webAllowPrivateKey)
	case errors.Is(err, web.ErrScheme):
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%v; give an http:// or https:// URL (for workspace files use read_file)", err)
	case errors.Is(err, web.ErrTooManyRedirects):
		return toolbridge.Fail(toolbridge.CodeNetworkError, "%s redirected more than %d times; fetch the final address directly if you know it", rawURL, web.DefaultMaxRedirects)
	case ctx.Err() == context.Canceled:
		return ctx.Err()
	case errors.As(err, &proxyErr):
		return proxyFailure(rawURL, proxyErr)
	case errors.Is(err, web.ErrTargetUnresolved):
		return toolbridge.Fail(toolbridge.CodeNetworkError, "%s was not sent to the proxy: %v; check the URL for typos — if this machine cannot resolve public names at all, tell the user to fix its DNS or to set %s to true (which also turns off the address check)", rawURL, detail, webAllowPrivateKey)
	case errors.Is(err, context.DeadlineExceeded):
		return toolbridge.Fail(toolbridge.CodeTimeout, "%s did not answer within %s; try again later, or use another source", rawURL, web.DefaultTimeout)
	case errors.As(err, &dnsErr):
		return toolbridge.Fail(toolbridge.CodeNetworkError, "the host of %s cannot be found (%v); check the URL for typos — the network may also be offline", rawURL, dnsErr.Err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return toolbridge.Fail(toolbridge.CodeTimeout, "%s did not answer in time (%v); try again later, or use another source", rawURL, detail)
	}
	if strings.HasPrefix(err.Error(), "not a valid URL") || strings.Contains(err.Error(), "has no host") {
		return toolbridge.Fail(toolbridge.CodeInvalidInput, "%v; give a full URL such as https://example.com/page", err)
	}
	return toolbridge.Fail(toolbridge.CodeNetworkError, "fetching %s failed: %v; check the URL, or try again later", rawURL, detail)
}

// proxyFailure says what to check when the proxy from the environment
// fails.
func proxyFailure(rawURL string, err *web.ProxyError) error {
	switch {
	case err.Status == http.StatusProxyAuthRequired:
		return toolbridge.Fail(toolbridge.CodeNetworkError, "fetching %s failed: %v; tell the user the proxy needs credentials, given in %s as http://user:password@host:port", rawURL, err, err.Env)
	case err.Status != 0:
		return toolbridge.Fail(toolbridge.CodeNetworkError, "fetching %s failed: %v; the proxy's rules block this address, so use another source (or tell the user to add the host to NO_PROXY if this machine reaches it directly)", rawURL, err)
	}
	return toolbridge.Fail(toolbridge.CodeNetworkError, "fetching %s failed: %v; tell the user to check that the proxy is running and that %s holds its address (or to unset %s if no proxy is needed)", rawURL, err, err.Env, err.Env)
}

// shownHeaders are the response headers fetch reports.
var shownHeaders = []string{
	"Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Disposition",
	"Last-Modified", "ETag", "Cache-Control", "Expires", "Location", "Retry-After",
	"WWW-Authenticate", "Allow", "Link", "Server",
}

// selectedHeaders picks the headers fetch shows, plus rate-limit headers.
func selectedHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range shownHeaders {
		if v := h.Values(k); len(v) > 0 {
			out[strings.ToLower(k)] = strings.Join(v, ", ")
		}
	}
	for k, v := range h {
		if lk := strings.ToLower(k); strings.Contains(lk, "ratelimit") || strings.Contains(lk, "rate-limit") {
			out[lk] = strings.Join(v, ", ")
		}
	}
	return out
}

// cutText cuts s to at most n bytes on a character boundary.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
