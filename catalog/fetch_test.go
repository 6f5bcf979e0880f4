package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestFetchTool(t *testing.T) {
	srv := webTestServer(t)
	r := webRegistry(t, `{"web":{"allowPrivate":true}}`)

	env := call(t, r, "fetch", map[string]any{"url": srv.URL + "/api", "headers": []any{map[string]string{"name": "Authorization", "value": "Bearer t"}}})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "HTTP 200 OK\n") || !strings.Contains(env.Text, "content-type: application/json") ||
		!strings.Contains(env.Text, "x-ratelimit-remaining: 59") || !strings.Contains(env.Text, `{"method":"GET","auth":"Bearer t"}`) || len(env.Repairs) > 0 {
		t.Errorf("fetch /api = %s %q, repairs %v", env.Code, env.Text, env.Repairs)
	}
	// The object form models often send is repaired into the list.
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/api", "headers": map[string]string{"Authorization": "Bearer u"}})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, `"auth":"Bearer u"`) || !slices.Equal(env.Repairs, []string{toolbridge.RepairObjectToNameValueList}) {
		t.Errorf("fetch /api with headers as an object = %s %q, repairs %v", env.Code, env.Text, env.Repairs)
	}
	if strings.Contains(env.Text, "secret") {
		t.Errorf("fetch shows Set-Cookie: %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/echo", "method": "POST", "body": "hello"})
	if !strings.Contains(env.Text, "got POST hello") {
		t.Errorf("fetch POST = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 25})
	if !strings.Contains(env.Text, "\n0123456789012345678901234\n[body truncated after 25 bytes") {
		t.Errorf("fetch with max_bytes = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/logo.png"})
	if env.Code != toolbridge.CodeOK || !strings.Contains(env.Text, "(binary body: image/png, 16 bytes; not shown") || strings.Contains(env.Text, "IHDR") {
		t.Errorf("fetch of an image = %q", env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": srv.URL + "/missing"})
	if env.Code != toolbridge.CodeOK || !strings.HasPrefix(env.Text, "HTTP 404 Not Found") {
		t.Errorf("fetch of a missing page = %s %q, want the raw 404", env.Code, env.Text)
	}
	env = call(t, r, "fetch", map[string]any{"url": "ftp://example.com/x"})
	if env.Code != toolbridge.CodeInvalidInput || !strings.Contains(env.Text, "http:// or https://") {
		t.Errorf("fetch ftp = %s %q", env.Code, env.Text)
	}
}
