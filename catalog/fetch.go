package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

//go:embed fetch.md
var fetchDoc string

type fetchInput struct {
	URL      string                 `json:"url"`
	Method   string                 `json:"method"`
	Headers  []toolbridge.NameValue `json:"headers"`
	Body     *string                `json:"body"`
	MaxBytes int                    `json:"max_bytes"`
}

// Fetch is fetch: one HTTP request (method, headers, body) through the SSRF
// guard, the response's status, headers and text.
func Fetch(cfg func() settings.Settings) toolbridge.Tool {
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
		resp, err := webClient(cfg()).Do(ctx, req)
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
