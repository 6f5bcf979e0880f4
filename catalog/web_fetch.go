package catalog

import (
	"bytes"
	"context"

	_ "embed"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

//go:embed web_fetch.md
var webFetchDoc string

type webFetchInput struct {
	URL      string `json:"url"`
	Format   string `json:"format"`
	MaxBytes int    `json:"max_bytes"`
}

// WebFetch is web_fetch: a page as readable Markdown, through the SSRF
// guard.
func WebFetch(cfg func() settings.Settings) toolbridge.Tool {
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
		resp, err := webClient(cfg()).Do(ctx, web.Request{URL: in.URL, Header: header, MaxBytes: webPageReadBytes})
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
