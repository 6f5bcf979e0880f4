package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

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
