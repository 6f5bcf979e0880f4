package mcphost

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/internal/syncbuf"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mcptest.Cleanup()
	os.Exit(code)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHostListsAndCallsTools(t *testing.T) {
	var logs syncbuf.Buffer
	h := New(map[string]ServerConfig{"tracker": {Command: mcptest.Server(t)}}, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	defer h.Close()
	tools, err := h.Tools(ctxT(t), "tracker")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Name == "echo" && (!tl.ReadOnly || !strings.Contains(string(tl.InputSchema), `"text"`)) {
			t.Errorf("echo = %+v, want read-only with a text property", tl)
		}
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "echo") || !strings.Contains(got, "crash") {
		t.Fatalf("Tools = %s, want echo and crash among them", got)
	}
	res, err := h.Call(ctxT(t), "tracker", "echo", []byte(`{"text":"hi"}`))
	if err != nil || res.Text != "echo: hi" || res.IsError {
		t.Errorf("Call(echo) = %+v, %v, want echo: hi", res, err)
	}
	res, err = h.Call(ctxT(t), "tracker", "fail", []byte(`{}`))
	if err != nil || !res.IsError || !strings.Contains(res.Text, "database is locked") {
		t.Errorf("Call(fail) = %+v, %v, want a tool error result", res, err)
	}
	_, err = h.Call(ctxT(t), "tracker", "nope", []byte(`{}`))
	var te *ToolError
	if !errors.As(err, &te) {
		t.Errorf("Call(nope) error = %v, want a *ToolError", err)
	}
	if _, err := h.Tools(ctxT(t), "missing"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Tools(missing) = %v, want ErrUnknownServer", err)
	}
	if res, err := h.Call(ctxT(t), "tracker", "note", []byte(`{"text":"disk almost full"}`)); err != nil || res.Text != "noted" {
		t.Errorf("Call(note) = %+v, %v", res, err)
	}
	waitFor := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `msg="MCP server log" server=tracker level=warning logger=notes data="disk almost full"`) && time.Now().Before(waitFor) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `msg="MCP server log" server=tracker level=warning logger=notes data="disk almost full"`) {
		t.Errorf("the server's log message is not in whale's log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "testserver: ready") {
		t.Errorf("server stderr not logged; log:\n%s", logs.String())
	}
}

// TestHostRestartsOnceThenGivesUp: the first crash restarts the server, the
// second makes it unavailable.
func TestHostRestartsOnceThenGivesUp(t *testing.T) {
	var logs syncbuf.Buffer
	h := New(map[string]ServerConfig{"tracker": {Command: mcptest.Server(t)}}, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	defer h.Close()
	_, err := h.Call(ctxT(t), "tracker", "crash", []byte(`{}`))
	var se *StoppedError
	if !errors.As(err, &se) || !se.Restarted {
		t.Fatalf("first crash = %v, want a StoppedError with Restarted", err)
	}
	if res, err := h.Call(ctxT(t), "tracker", "add", []byte(`{"a":2,"b":3}`)); err != nil || res.Text != "5" {
		t.Fatalf("call after restart = %+v, %v, want 5", res, err)
	}
	_, err = h.Call(ctxT(t), "tracker", "crash", []byte(`{}`))
	if !errors.As(err, &se) || se.Restarted {
		t.Fatalf("second crash = %v, want a StoppedError without restart", err)
	}
	if _, err := h.Call(ctxT(t), "tracker", "echo", []byte(`{"text":"x"}`)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("call after second crash = %v, want ErrUnavailable", err)
	}
	if !strings.Contains(logs.String(), "crashing on purpose") {
		t.Errorf("stderr of the crashing server not logged:\n%s", logs.String())
	}
}

// TestHostCanceledStartDoesNotCount: a start the caller cancels is no
// failure of the server, so it keeps its restart.
func TestHostCanceledStartDoesNotCount(t *testing.T) {
	h := New(map[string]ServerConfig{"tracker": {Command: mcptest.Server(t)}}, Options{})
	defer h.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for range maxStarts + 1 {
		if _, err := h.Tools(canceled, "tracker"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Tools with a canceled context = %v, want context.Canceled", err)
		}
	}
	if _, err := h.Tools(ctxT(t), "tracker"); err != nil {
		t.Fatalf("start after canceled starts = %v", err)
	}
	_, err := h.Call(ctxT(t), "tracker", "crash", []byte(`{}`))
	var se *StoppedError
	if !errors.As(err, &se) || !se.Restarted {
		t.Fatalf("first crash = %v, want a StoppedError with Restarted: the canceled starts used up the restart", err)
	}
}

func TestHostBadCommand(t *testing.T) {
	h := New(map[string]ServerConfig{"gone": {Command: filepath.Join(t.TempDir(), "no-such-program")}}, Options{})
	defer h.Close()
	if _, err := h.Tools(ctxT(t), "gone"); err == nil {
		t.Fatal("Tools of a missing program succeeded")
	}
	_, err := h.Tools(ctxT(t), "gone")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second start = %v, want ErrUnavailable after two failed starts", err)
	}
}

func TestRank(t *testing.T) {
	docs := []Candidate{
		{ID: "a", Name: "create_issue", Description: "Open a new issue in the tracker."},
		{ID: "b", Name: "search_issues", Description: "Search the issue tracker for bug reports."},
		{ID: "c", Name: "read_file", Description: "Read a file from the repository."},
		{ID: "d", Name: "listPullRequests", Description: "List pull requests."},
	}
	for _, tc := range []struct {
		query string
		max   int
		want  string
	}{
		{"search issues", 5, "b,a"},
		{"search issue", 1, "b"},
		{"iss", 5, "a,b"},
		{"pull request", 5, "d"},
		{"file", 5, "c"},
		{"weather", 5, ""},
		{"", 5, ""},
	} {
		var ids []string
		for _, h := range Rank(tc.query, docs, tc.max) {
			ids = append(ids, h.ID)
		}
		if got := strings.Join(ids, ","); got != tc.want {
			t.Errorf("Rank(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestHostSendsArgumentsAsTheyAre: nulls, number spellings and field order
// reach the server unchanged, and input schemas are listed in full.
func TestHostSendsArgumentsAsTheyAre(t *testing.T) {
	h := New(map[string]ServerConfig{"s": {Command: mcptest.Server(t), Args: []string{"s", mcptest.SchemasArg}}}, Options{})
	defer h.Close()
	tools, err := h.Tools(ctxT(t), "s")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, tl := range tools {
		listed[tl.Name] = string(tl.InputSchema)
	}
	for _, want := range mcptest.SchemaTools() {
		if _, ok := listed[want.Name]; !ok {
			t.Errorf("Tools lacks %s", want.Name)
		}
	}
	if s := listed["nullable_fields"]; !strings.Contains(s, `["integer","null"]`) {
		t.Errorf("nullable_fields schema = %s, want the type list kept", s)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"title":"x","milestone":null,"big":12345678901234567890,"f":1.50}`, `args: {"title":"x","milestone":null,"big":12345678901234567890,"f":1.50}`},
		{``, `args: {}`},
		{"  {\"a\": [null]}\n", `args: {"a":[null]}`},
	} {
		res, err := h.Call(ctxT(t), "s", "nullable_fields", []byte(tc.args))
		if err != nil || res.Text != tc.want {
			t.Errorf("Call(%s) = %q, %v, want %q", tc.args, res.Text, err, tc.want)
		}
	}
	for _, bad := range []string{`[1]`, `null`, `{"a":`, `{} {}`} {
		if _, err := h.Call(ctxT(t), "s", "nullable_fields", []byte(bad)); err == nil || !strings.Contains(err.Error(), "one JSON object") {
			t.Errorf("Call(%s) error = %v, want one JSON object", bad, err)
		}
	}
}

// TestServerEnvironment: a server gets its configured env and what a
// program needs to run, not a variable set only for whale.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("WHALE_ONLY_SECRET", "s3cret")
	t.Setenv("LC_ALL", "C.UTF-8")
	h := New(map[string]ServerConfig{"env": {Command: mcptest.Server(t), Env: map[string]string{"GIVEN": "yes"}}}, Options{})
	defer h.Close()
	for name, want := range map[string]string{"WHALE_ONLY_SECRET": "(unset)", "GIVEN": "yes", "LC_ALL": "C.UTF-8", "PATH": os.Getenv("PATH")} {
		res, err := h.Call(ctxT(t), "env", "getenv", []byte(`{"text":"`+name+`"}`))
		if err != nil || res.Text != want {
			t.Errorf("the server's %s = %q, %v; want %q", name, res.Text, err, want)
		}
	}
}

// TestServerSeesTheWorkspaceRoots: roots/list answers the workspace
// folders as file URIs.
func TestServerSeesTheWorkspaceRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	h := New(map[string]ServerConfig{"r": {Command: mcptest.Server(t)}}, Options{Roots: []string{a, b}})
	defer h.Close()
	res, err := h.Call(ctxT(t), "r", "roots", []byte(`{}`))
	if err != nil || res.IsError {
		t.Fatalf("Call(roots) = %+v, %v", res, err)
	}
	for _, dir := range []string{a, b} {
		if !strings.Contains(res.Text, "file://"+filepath.ToSlash(dir)) {
			t.Errorf("roots/list = %q, want %s among them", res.Text, dir)
		}
	}
}
