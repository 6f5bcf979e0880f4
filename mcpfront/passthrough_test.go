package mcpfront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/mcpfront"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// progressSeen are the progress notifications the proxy's clients got.
var (
	progressMu   sync.Mutex
	progressSeen []mcp.ProgressNotificationParams
)

// everythingVersion is the MCP reference server the pass-through tests run.
const everythingVersion = "2026.8.31"

// proxy serves the MCP tools of servers (mcp.servers JSON) through
// mcpfront, as `whale-ls mcp --config` does, and connects the official
// SDK's client to it.
func proxy(t *testing.T, servers string) *mcp.ClientSession {
	t.Helper()
	ws, err := workspace.NewSet([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	s, _, err := settings.Parse([]byte(`{"mcp":{"servers":` + servers + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	reg := toolbridge.NewRegistry(nil)
	var stops []func()
	t.Cleanup(func() {
		for _, stop := range stops {
			stop()
		}
	})
	tools := catalog.MCPTools(catalog.MCPOptions{Workspace: ws, Settings: func() settings.Settings { return s }, Registry: reg, OnClose: func(stop func()) { stops = append(stops, stop) }})
	if err := reg.Register(tools...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	srv, err := mcpfront.New(ctx, mcpfront.Local{Registry: reg}, mcpfront.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progressMu.Lock()
			defer progressMu.Unlock()
			progressSeen = append(progressSeen, *req.Params)
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listed(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

func callProxied(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s) = %v, want a result", name, err)
	}
	return res
}

func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// kinds are the content types of a result, in order.
func kinds(res *mcp.CallToolResult) string {
	var out []string
	for _, c := range res.Content {
		b, _ := json.Marshal(c)
		var k struct{ Type string }
		json.Unmarshal(b, &k)
		out = append(out, k.Type)
	}
	return strings.Join(out, ",")
}

func ptr(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

// TestProxiedToolsPassThrough, with the project's test server: a proxied
// tool keeps its title and hints, its images, audio and resource links
// follow the text as sent, and a JSON-RPC error or an error result is
// server_error, not internal.
func TestProxiedToolsPassThrough(t *testing.T) {
	cs := proxy(t, fmt.Sprintf(`{"calc": {"command": %q}}`, mcptest.Server(t)))
	tools := listed(t, cs)
	purge := tools["mcp__calc__purge_record"]
	if purge == nil || purge.Annotations == nil {
		t.Fatalf("mcp__calc__purge_record = %+v, want it listed with annotations", purge)
	}
	a := purge.Annotations
	if got := fmt.Sprintf("%s|%s|%v|%s|%s|%v", purge.Title, a.Title, a.ReadOnlyHint, ptr(a.DestructiveHint), ptr(a.OpenWorldHint), a.IdempotentHint); got != "Purge Record|Purge Record|false|true|false|true" {
		t.Errorf("purge_record title|annotation title|readOnly|destructive|openWorld|idempotent = %s, want Purge Record|Purge Record|false|true|false|true", got)
	}
	if echo := tools["mcp__calc__echo"]; echo == nil || !echo.Annotations.ReadOnlyHint || echo.Annotations.DestructiveHint != nil {
		t.Errorf("mcp__calc__echo annotations = %+v, want read-only and no other hint", echo.Annotations)
	}

	res := callProxied(t, cs, "mcp__calc__render_chart", map[string]any{})
	if res.IsError || kinds(res) != "text,image,audio,resource_link" {
		t.Fatalf("render_chart content = %s (isError %v), want text, then the image, audio and link as sent", kinds(res), res.IsError)
	}
	text := firstText(res)
	for _, want := range []string{"the chart:", "[image image/png, ", "[audio audio/wav, 12 bytes: ", "[resource link chart.csv: file:///data/chart.csv]"} {
		if !strings.Contains(text, want) {
			t.Errorf("render_chart text = %q, want %q in it", text, want)
		}
	}
	if img := res.Content[1].(*mcp.ImageContent); img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG") {
		t.Errorf("image = %s %q…, want the PNG as the server sent it", img.MIMEType, img.Data[:min(8, len(img.Data))])
	}
	if link := res.Content[3].(*mcp.ResourceLink); link.URI != "file:///data/chart.csv" || link.MIMEType != "text/csv" {
		t.Errorf("resource link = %+v", link)
	}

	for _, tc := range []struct{ tool, want string }{
		{"mcp__calc__rpcfail", "the MCP server calc failed to run mcp__calc__rpcfail: backend database unreachable (JSON-RPC error -32000); the server failed, not the arguments"},
		{"mcp__calc__fail", "answered with an error (this is the tool's own answer, not a whale-ls fault): the database is locked"},
	} {
		res := callProxied(t, cs, tc.tool, map[string]any{})
		if code := res.Meta[mcpfront.MetaCode]; !res.IsError || code != toolbridge.CodeServerError || !strings.Contains(firstText(res), tc.want) {
			t.Errorf("%s = isError %v, code %v, %q; want server_error and %q", tc.tool, res.IsError, code, firstText(res), tc.want)
		}
	}
}

// everything installs the pinned @modelcontextprotocol/server-everything
// once into the user's cache and returns the command that starts it on
// stdio. Without npm or the registry the test is skipped, except in CI.
func everything(t *testing.T) (string, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the MCP reference server from npm; not in -short")
	}
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("@modelcontextprotocol/server-everything@%s: %s", everythingVersion, why)
		}
		t.Skipf("@modelcontextprotocol/server-everything@%s is not installed (%s): install Node.js with npm and allow access to the npm registry to run this test", everythingVersion, why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("no node on PATH")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		skip(err.Error())
	}
	dir := filepath.Join(cache, "whale-ls", "mcp-servers", "server-everything-"+everythingVersion)
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "@modelcontextprotocol/server-everything@"+everythingVersion).CombinedOutput()
		if err != nil {
			skip(fmt.Sprintf("npm install: %v: %s", err, out))
		}
		if _, err := os.Stat(entry); err != nil {
			t.Fatalf("npm installed server-everything without %s", entry)
		}
	}
	return node, []string{entry, "stdio"}
}

// TestEverythingPassesThrough, with the MCP reference server: titles and
// all four hints are kept, the task-only tool is not listed, its tiny
// image and its resource links reach the client as sent and are described
// in the text, its progress notifications reach the client, and a tool_search that nothing answers says "no match" and
// names the deferred servers instead of activating tools.
func TestEverythingPassesThrough(t *testing.T) {
	node, args := everything(t)
	cmd, _ := json.Marshal(node)
	argv, _ := json.Marshal(args)
	cs := proxy(t, fmt.Sprintf(`{"everything": {"command": %s, "args": %s}, "later": {"command": %s, "args": %s, "deferred": true}}`, cmd, argv, cmd, argv))
	tools := listed(t, cs)
	echo := tools["mcp__everything__echo"]
	if echo == nil {
		t.Fatalf("tools = %v, want mcp__everything__echo", tools)
	}
	a := echo.Annotations
	if got := fmt.Sprintf("%s|%v|%s|%s|%v", echo.Title, a.ReadOnlyHint, ptr(a.DestructiveHint), ptr(a.OpenWorldHint), a.IdempotentHint); got != "Echo Tool|true|false|false|true" {
		t.Errorf("echo title|readOnly|destructive|openWorld|idempotent = %s, want Echo Tool|true|false|false|true (as server-everything lists them)", got)
	}
	if _, ok := tools["mcp__everything__simulate-research-query"]; ok {
		t.Error("simulate-research-query is listed, but it runs only as an MCP task (taskSupport required), which whale does not run")
	}
	if _, ok := tools["mcp__everything__get-sum"]; !ok {
		t.Error("get-sum is not listed")
	}

	img := callProxied(t, cs, "mcp__everything__get-tiny-image", map[string]any{})
	if img.IsError || !strings.Contains(kinds(img), "image") {
		t.Fatalf("get-tiny-image content = %s (isError %v), want the image passed on", kinds(img), img.IsError)
	}
	if text := firstText(img); !strings.Contains(text, "[image image/png, ") || !strings.Contains(text, "not in this text") {
		t.Errorf("get-tiny-image text = %q, want the image described as not in the text", text)
	}
	links := callProxied(t, cs, "mcp__everything__get-resource-links", map[string]any{"count": 2})
	if links.IsError || strings.Count(kinds(links), "resource_link") != 2 {
		t.Errorf("get-resource-links content = %s (isError %v), want 2 resource links passed on", kinds(links), links.IsError)
	}
	if text := firstText(links); strings.Count(text, "[resource link ") != 2 {
		t.Errorf("get-resource-links text = %q, want each link described", text)
	}

	// The server's progress reaches the client, under the client's token,
	// in order, before the result.
	params := &mcp.CallToolParams{Name: "mcp__everything__trigger-long-running-operation", Arguments: map[string]any{"duration": 2, "steps": 4}}
	params.SetProgressToken("client-token")
	long, err := cs.CallTool(context.Background(), params)
	if err != nil || long.IsError {
		t.Fatalf("trigger-long-running-operation = %v, %v", long, err)
	}
	progressMu.Lock()
	var msgs []string
	last := 0.0
	for _, p := range progressSeen {
		if p.ProgressToken != "client-token" || p.Progress <= last {
			t.Errorf("progress %+v: want the client's token and a value above %g", p, last)
		}
		last = p.Progress
		msgs = append(msgs, p.Message)
	}
	progressMu.Unlock()
	// The last comes with the result, and the SDK's client may hand it
	// over after the result: it is not sent after the result, so not
	// required here.
	for _, want := range []string{"everything: 1 of 4", "everything: 2 of 4", "everything: 3 of 4"} {
		if !slices.Contains(msgs, want) {
			t.Errorf("progress messages = %q, want %q (the server's own progress, passed on)", msgs, want)
		}
	}

	before := len(listed(t, cs))
	search := callProxied(t, cs, "tool_search", map[string]any{"query": "send an email to my boss"})
	if text := firstText(search); search.IsError || !strings.HasPrefix(text, "No match: ") || !strings.Contains(text, "The deferred MCP servers are: later.") {
		t.Errorf("tool_search = %q, want no match and the deferred servers", text)
	}
	if after := len(listed(t, cs)); after != before {
		t.Errorf("tool_search without a match activated %d tools", after-before)
	}
	found := callProxied(t, cs, "tool_search", map[string]any{"query": "add two numbers sum"})
	if text := firstText(found); found.IsError || !strings.Contains(text, "mcp__later__get-sum") {
		t.Errorf("tool_search(add two numbers sum) = %q, want get-sum found", text)
	}
}
