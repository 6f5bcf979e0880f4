package catalog

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

//go:embed fetch.md
var fetchDoc string

//go:embed web_fetch.md
var webFetchDoc string

//go:embed web_search.md
var webSearchDoc string

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

// webTools is the web group: web_search, fetch, web_fetch.
func webTools(d *Deps) []toolbridge.Tool {
	return []toolbridge.Tool{webSearchTool(d), fetchTool(d), webFetchTool(d)}
}

// webClient returns a guarded client for the current settings.
func webClient(d *Deps) *web.Client {
	return &web.Client{Guard: web.Guard{AllowPrivate: d.Settings().Web.AllowPrivate}, UserAgent: webUserAgent}
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

type fetchInput struct {
	URL      string                 `json:"url"`
	Method   string                 `json:"method"`
	Headers  []toolbridge.NameValue `json:"headers"`
	Body     *string                `json:"body"`
	MaxBytes int                    `json:"max_bytes"`
}

func fetchTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "fetch",
		Description: fetchDoc,
		Group:       toolbridge.GroupWeb,
		InputSchema: toolbridge.Object([]string{"url"}, map[string]*toolbridge.Schema{
			"url":       toolbridge.Str("The http:// or https:// URL."),
			"method":    toolbridge.Enum("HTTP method (default GET).", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
			"headers":   toolbridge.NameValues("Request headers, e.g. [{\"name\": \"Accept\", \"value\": \"application/json\"}].", "Header name.", "Header value."),
			"body":      toolbridge.Str("Request body, sent as is (set Content-Type in headers)."),
			"max_bytes": toolbridge.Int(fmt.Sprintf("Most body bytes to show (default %d, at most %d).", webDefaultMaxBytes, webMaxMaxBytes), 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in fetchInput) (toolbridge.Result, error) {
		limit := toolbridge.Bounded(in.MaxBytes, webDefaultMaxBytes, webMaxMaxBytes)
		header := http.Header{}
		for _, kv := range in.Headers {
			header.Set(kv.Name, kv.Value)
		}
		req := web.Request{URL: in.URL, Method: in.Method, Header: header, MaxBytes: int64(limit)}
		if in.Body != nil {
			req.Body = []byte(*in.Body)
		}
		resp, err := webClient(d).Do(ctx, req)
		if err != nil {
			return toolbridge.Result{}, webFailure(ctx, in.URL, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "HTTP %d %s\n", resp.Status, resp.StatusText)
		if resp.URL != strings.TrimSpace(in.URL) {
			fmt.Fprintf(&b, "final URL: %s (after %d redirect(s))\n", resp.URL, len(resp.Redirects))
		}
		headers := selectedHeaders(resp.Header)
		names := make([]string, 0, len(headers))
		for k := range headers {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, "%s: %s\n", k, headers[k])
		}
		b.WriteString("\n")
		data := map[string]any{"status": resp.Status, "url": resp.URL, "headers": headers, "redirects": resp.Redirects, "truncated": resp.Truncated}
		more := ""
		switch {
		case len(resp.Body) == 0:
			b.WriteString("(empty body)")
		case !web.IsText(resp.MediaType, resp.Body):
			kind := resp.MediaType
			if kind == "" {
				kind = "no content type"
			}
			size := fmt.Sprintf("%d bytes", len(resp.Body))
			if resp.Truncated {
				size = fmt.Sprintf("more than %d bytes", len(resp.Body))
			}
			fmt.Fprintf(&b, "(binary body: %s, %s; not shown — it is not text a model can read)", kind, size)
			data["binary"] = true
		default:
			text := web.DecodeText(resp.Body, resp.Charset)
			if resp.Truncated {
				text, _ = cutText(text, limit)
				more = fmt.Sprintf("\n[body truncated after %d bytes; raise max_bytes (at most %d) or request a smaller resource]", limit, webMaxMaxBytes)
			}
			b.WriteString(text)
			b.WriteString(more)
		}
		return toolbridge.Result{Text: b.String(), Data: data, MoreHint: "raise max_bytes or request a smaller resource"}, nil
	})
}

type webFetchInput struct {
	URL      string `json:"url"`
	Format   string `json:"format"`
	MaxBytes int    `json:"max_bytes"`
}

func webFetchTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "web_fetch",
		Description: webFetchDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupWeb,
		InputSchema: toolbridge.Object([]string{"url"}, map[string]*toolbridge.Schema{
			"url":       toolbridge.Str("The http:// or https:// URL of the page."),
			"format":    toolbridge.Enum("How to render the page (default markdown).", web.FormatMarkdown, web.FormatText, web.FormatHTML),
			"max_bytes": toolbridge.Int(fmt.Sprintf("Most bytes of rendered content to show (default %d, at most %d).", webDefaultMaxBytes, webMaxMaxBytes), 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in webFetchInput) (toolbridge.Result, error) {
		limit := toolbridge.Bounded(in.MaxBytes, webDefaultMaxBytes, webMaxMaxBytes)
		format := in.Format
		if format == "" {
			format = web.FormatMarkdown
		}
		header := http.Header{"Accept": {"text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"}}
		resp, err := webClient(d).Do(ctx, web.Request{URL: in.URL, Header: header, MaxBytes: webPageReadBytes})
		if err != nil {
			return toolbridge.Result{}, webFailure(ctx, in.URL, err)
		}
		switch {
		case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotFound, "%s answered HTTP %d %s; check the URL, or search for the page with web_search", resp.URL, resp.Status, resp.StatusText)
		case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden:
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeDenied, "%s answered HTTP %d %s: the page needs a login or blocks automated access; use another source", resp.URL, resp.Status, resp.StatusText)
		case resp.Status >= 400:
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNetworkError, "%s answered HTTP %d %s; try again later, or use another source (fetch shows the raw answer)", resp.URL, resp.Status, resp.StatusText)
		}
		data := map[string]any{"url": resp.URL, "status": resp.Status, "content_type": resp.MediaType}
		isHTML := resp.MediaType == "text/html" || resp.MediaType == "application/xhtml+xml" ||
			(resp.MediaType == "" && bytes.Contains(bytes.ToLower(resp.Body[:min(len(resp.Body), 1024)]), []byte("<html")))
		if !isHTML && !web.IsText(resp.MediaType, resp.Body) {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeBinaryFile, "%s is %s (%d bytes or more), not a page with text; web_fetch shows pages only — use fetch to see its headers", resp.URL, orNone(resp.MediaType), len(resp.Body))
		}
		var title, content string
		if isHTML {
			pageURL, _ := url.Parse(resp.URL)
			html := []byte(web.DecodeText(resp.Body, resp.Charset))
			page, err := web.Readable(ctx, html, pageURL, format)
			if err != nil {
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNetworkError, "%s could not be read as a page: %v; try format \"html\" or use fetch for the raw answer", resp.URL, err)
			}
			title, content = page.Title, page.Content
			data["title"], data["extracted"] = page.Title, page.Extracted
		} else {
			content = web.DecodeText(resp.Body, resp.Charset)
		}
		content, cut := cutText(content, limit)
		var b strings.Builder
		if title != "" {
			fmt.Fprintf(&b, "# %s\n", title)
		}
		fmt.Fprintf(&b, "URL: %s\n\n", resp.URL)
		b.WriteString(content)
		if cut || resp.Truncated {
			fmt.Fprintf(&b, "\n[page truncated after %d bytes; raise max_bytes (at most %d) to see more]", limit, webMaxMaxBytes)
			data["truncated"] = true
		}
		return toolbridge.Result{Text: b.String(), Data: data, MoreHint: "raise max_bytes to see more"}, nil
	})
}

func orNone(mediaType string) string {
	if mediaType == "" {
		return "content of no declared type"
	}
	return mediaType
}

const webSearchExample = `"web.search": {"provider": "searxng", "endpoint": "https://searx.example.org"} (a SearXNG instance with the JSON format enabled) or "web.search": {"provider": "brave", "apiKeyEnv": "BRAVE_API_KEY"} (a Brave Search API key in that environment variable of the editor)`

// searchProvider builds the configured provider, or a not_configured
// Failure that says which setting to add.
func searchProvider(raw json.RawMessage) (web.SearchProvider, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "web search is not configured; tell the user it needs the setting %s — meanwhile use web_fetch on pages you know", webSearchExample)
	}
	var s settings.WebSearch
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "the web.search setting is not valid (%v); tell the user it should look like %s", err, webSearchExample)
	}
	key := ""
	if s.APIKeyEnv != "" {
		key = os.Getenv(s.APIKeyEnv)
	}
	switch strings.ToLower(s.Provider) {
	case "searxng":
		if s.Endpoint == "" {
			return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "web.search names searxng but no endpoint; tell the user to add the instance URL, as in %s", webSearchExample)
		}
		if s.APIKeyEnv != "" && key == "" {
			return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "web.search.apiKeyEnv names %s, but that environment variable is empty in the editor's environment; tell the user to set it, or to remove apiKeyEnv", s.APIKeyEnv)
		}
		return &web.SearXNG{Endpoint: s.Endpoint, Key: key}, nil
	case "brave":
		env := s.APIKeyEnv
		if env == "" {
			env = "BRAVE_API_KEY"
			key = os.Getenv(env)
		}
		if key == "" {
			return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "web search uses Brave, but the environment variable %s that should hold the API key is empty; tell the user to set it where the editor is started (or to name another variable in web.search.apiKeyEnv)", env)
		}
		return &web.Brave{Endpoint: s.Endpoint, Key: key}, nil
	}
	return nil, toolbridge.Fail(toolbridge.CodeNotConfigured, "web.search.provider is %q, but the providers are searxng and brave; tell the user to fix the setting, as in %s", s.Provider, webSearchExample)
}

type webSearchInput struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

func webSearchTool(d *Deps) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "web_search",
		Description: webSearchDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupWeb,
		InputSchema: toolbridge.Object([]string{"query"}, map[string]*toolbridge.Schema{
			"query":       toolbridge.Str("What to search for, as you would type it into a search engine."),
			"max_results": toolbridge.Int(fmt.Sprintf("Most results to return (default %d, at most %d).", webDefaultResults, webMaxResults), 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in webSearchInput) (toolbridge.Result, error) {
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "query is empty; say what to search for")
		}
		n := toolbridge.Bounded(in.MaxResults, webDefaultResults, webMaxResults)
		p, err := searchProvider(d.Settings().Web.Search)
		if err != nil {
			return toolbridge.Result{}, err
		}
		results, err := p.Search(ctx, q, n)
		if err != nil {
			var pe *web.ProviderError
			switch {
			case errors.As(err, &pe) && pe.Auth():
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNotConfigured, "the %s search provider refused the credentials (%v); tell the user to check the API key setting", p.Name(), err)
			case errors.As(err, &pe) && pe.Status == http.StatusTooManyRequests:
				return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNetworkError, "the %s search provider is rate limiting (%v); wait a little before searching again", p.Name(), err)
			case ctx.Err() == context.Canceled:
				return toolbridge.Result{}, ctx.Err()
			}
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeNetworkError, "the %s search failed: %v; try again later, or use web_fetch on a page you know", p.Name(), err)
		}
		if results == nil {
			results = []web.SearchResult{}
		}
		data := map[string]any{"provider": p.Name(), "query": q, "results": results}
		if len(results) == 0 {
			return toolbridge.Result{Text: fmt.Sprintf("No results for %s (%s); try other words or a broader query.", excerpt.Quote(q), p.Name()), Data: data}, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d results for %s (%s):\n", len(results), excerpt.Quote(q), p.Name())
		for i, r := range results {
			fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, strings.TrimSpace(r.Title), r.URL)
			if s := strings.Join(strings.Fields(r.Snippet), " "); s != "" {
				fmt.Fprintf(&b, "   %s\n", s)
			}
		}
		b.WriteString("\nRead a result with web_fetch.")
		return toolbridge.Result{Text: b.String(), Data: data}, nil
	})
}
