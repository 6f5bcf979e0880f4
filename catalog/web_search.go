package catalog

import (
	"bytes"
	"context"

	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/web"
)

//go:embed web_search.md
var webSearchDoc string

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

// WebSearch is web_search: results of the search provider web.search
// configures.
func WebSearch(cfg func() settings.Settings) toolbridge.Tool {
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
		p, err := searchProvider(cfg().Web.Search)
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
