package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SearchResult is one hit of a web search.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// SearchProvider runs a web search. Implementations return at most max
// results and say in their errors whether the provider refused the request
// (*ProviderError) or could not be reached.
type SearchProvider interface {
	Name() string
	Search(ctx context.Context, query string, max int) ([]SearchResult, error)
}

// ProviderError is an answer from a search provider other than success.
type ProviderError struct {
	Provider string
	Status   int
	Body     string // the start of the answer, for the message
}

func (e *ProviderError) Error() string {
	msg := fmt.Sprintf("%s answered HTTP %d", e.Provider, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Auth reports whether the provider rejected the credentials.
func (e *ProviderError) Auth() bool { return e.Status == 401 || e.Status == 403 }

// searchHTTP is the client the providers use when none is given. Provider
// endpoints are configured by the user, so they are not guarded.
var searchHTTP = &http.Client{Timeout: 20 * time.Second}

// SearXNG queries a SearXNG instance's JSON API (GET /search?format=json).
// The instance must have the json format enabled in its settings.
type SearXNG struct {
	// Endpoint is the instance's base URL or its /search URL.
	Endpoint string
	// Key, if set, is sent as a bearer token (for instances behind a proxy
	// that asks for one).
	Key  string
	HTTP *http.Client
}

// Name implements SearchProvider.
func (s *SearXNG) Name() string { return "searxng" }

// Search implements SearchProvider.
func (s *SearXNG) Search(ctx context.Context, query string, max int) ([]SearchResult, error) {
	u, err := url.Parse(strings.TrimSpace(s.Endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("the searxng endpoint %q is not an http(s) URL", s.Endpoint)
	}
	if !strings.HasSuffix(u.Path, "/search") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	header := http.Header{"Accept": {"application/json"}}
	if s.Key != "" {
		header.Set("Authorization", "Bearer "+s.Key)
	}
	var body struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := getJSON(ctx, s.HTTP, "searxng", u.String(), header, &body); err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, r := range body.Results {
		if len(out) == max {
			break
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// BraveEndpoint is the Brave Search API's web search URL.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// Brave queries the Brave Search API (web search), authenticated with the
// X-Subscription-Token header.
type Brave struct {
	// Endpoint defaults to BraveEndpoint.
	Endpoint string
	Key      string
	HTTP     *http.Client
}

// Name implements SearchProvider.
func (b *Brave) Name() string { return "brave" }

// Search implements SearchProvider. Brave returns at most 20 results per
// request.
func (b *Brave) Search(ctx context.Context, query string, max int) ([]SearchResult, error) {
	endpoint := b.Endpoint
	if endpoint == "" {
		endpoint = BraveEndpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("the brave endpoint %q is not an http(s) URL", endpoint)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(min(max, 20)))
	u.RawQuery = q.Encode()
	header := http.Header{"Accept": {"application/json"}, "X-Subscription-Token": {b.Key}}
	var body struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := getJSON(ctx, b.HTTP, "brave", u.String(), header, &body); err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, r := range body.Web.Results {
		if len(out) == max {
			break
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: stripTags(r.Description)})
	}
	return out, nil
}

// getJSON GETs a provider URL and decodes its JSON answer into v.
func getJSON(ctx context.Context, hc *http.Client, provider, u string, header http.Header, v any) error {
	if hc == nil {
		hc = searchHTTP
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header = header
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("reading the %s answer: %w", provider, err)
	}
	if resp.StatusCode != http.StatusOK {
		excerpt := strings.TrimSpace(string(body))
		if len(excerpt) > 200 {
			excerpt = excerpt[:200] + "…"
		}
		return &ProviderError{Provider: provider, Status: resp.StatusCode, Body: strings.ToValidUTF8(excerpt, "")}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the %s answer is not the expected JSON: %w", provider, err)
	}
	return nil
}

// stripTags removes the <strong> and similar highlight tags some providers
// put in snippets.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
