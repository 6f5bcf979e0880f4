package catalog

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

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
