package lsp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestInitializeAdvertisesEveryTool(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{})
	raw, err := protocol.Marshal(s.init)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Capabilities struct {
			PositionEncoding       string `json:"positionEncoding"`
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
			TextDocumentSync struct {
				Change int `json:"change"`
			} `json:"textDocumentSync"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var tools struct {
		Tools []toolbridge.Spec `json:"tools"`
	}
	if _, err := s.conn.Call(ctxT(t), "whale/tools", nil, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) == 0 {
		t.Fatal("whale/tools listed no tools")
	}
	for _, spec := range tools.Tools {
		if !slices.Contains(res.Capabilities.ExecuteCommandProvider.Commands, "whale."+spec.Name) {
			t.Errorf("tool %s is not advertised as command whale.%s", spec.Name, spec.Name)
		}
		if spec.Description == "" || spec.InputSchema == nil || spec.InputSchema.Type != "object" {
			t.Errorf("tool %s has no description or object schema: %+v", spec.Name, spec)
		}
	}
	for _, want := range []string{"whale.read_file", "whale.list_dir", "whale.load_skill"} {
		if !slices.Contains(res.Capabilities.ExecuteCommandProvider.Commands, want) {
			t.Errorf("commands %v lack %s", res.Capabilities.ExecuteCommandProvider.Commands, want)
		}
	}
	if res.Capabilities.PositionEncoding != "utf-16" || res.Capabilities.TextDocumentSync.Change != 2 {
		t.Errorf("capabilities = %+v, want utf-16 and incremental sync", res.Capabilities)
	}
}

// TestOverlayFollowsIncrementalChanges opens a document with unsaved text,
// changes it with UTF-16 ranges across an emoji and CRLF line ends, and reads
// it back through the tool: the tool sees the editor's buffer.
func TestOverlayFollowsIncrementalChanges(t *testing.T) {
	root := writeFiles(t, map[string]string{"main.go": "on disk\n"})
	s := start(t, root, sessionOptions{})
	u := s.open("main.go", "a😀b\r\nsecond\r\n", 1)
	// Replace "b" (UTF-16 column 3, after the surrogate pair) with "B".
	s.change(u, rng(0, 3, 0, 4), "B", "a😀B\r\nsecond\r\n")
	// Insert at the start of line 1 (after CRLF).
	s.change(u, rng(1, 0, 1, 0), ">", "a😀B\r\n>second\r\n")
	env := s.exec(ctxT(t), "read_file", map[string]any{"file_path": "main.go"})
	wantText(t, env, "1\ta😀B\n", "2\t>second\n", "editor buffer, version 3")
	if err := s.server.DidClose(ctxT(t), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	env = s.exec(ctxT(t), "read_file", map[string]any{"file_path": "main.go"})
	wantText(t, env, "1\ton disk\n")
}

func TestUTF8PositionsWhenOffered(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{encodings: []protocol.PositionEncodingKind{"utf-8", "utf-16"}})
	if s.init.Capabilities.PositionEncoding != "utf-8" {
		t.Fatalf("positionEncoding = %q, want utf-8 when the client offers it", s.init.Capabilities.PositionEncoding)
	}
	u := s.open("x.txt", "é😀z\n", 1)
	// "é" is 2 bytes and "😀" 4: byte column 6 is before "z".
	s.change(u, rng(0, 6, 0, 7), "Z", "é😀Z\n")
	wantText(t, s.exec(ctxT(t), "read_file", map[string]any{"file_path": "x.txt"}), "1\té😀Z\n")
}

func TestExecuteCommandArguments(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{})
	for _, tc := range []struct {
		command string
		args    []protocol.LSPAny
		code    string
		mention string
	}{
		{"whale.read_file", nil, toolbridge.CodeInvalidInput, "exactly one argument"},
		{"whale.read_file", []protocol.LSPAny{protocol.LSPAny(`{"file_path":"a.txt"}`), protocol.LSPAny(`{}`)}, toolbridge.CodeInvalidInput, "got 2"},
		{"whale.read_file", []protocol.LSPAny{protocol.LSPAny(`{"path":"a.txt"}`)}, toolbridge.CodeInvalidInput, "read_file takes the path in file_path"},
		{"whale.nope", []protocol.LSPAny{protocol.LSPAny(`{}`)}, toolbridge.CodeUnknownTool, "no tool named"},
		{"other.command", []protocol.LSPAny{protocol.LSPAny(`{}`)}, toolbridge.CodeUnknownTool, "not a whale command"},
		{"whale.read_file", []protocol.LSPAny{protocol.LSPAny(`{"file_path":"[a.txt](http://a.txt)"}`)}, toolbridge.CodeOK, "1\ta"},
	} {
		res, err := s.server.ExecuteCommand(ctxT(t), &protocol.ExecuteCommandParams{Command: tc.command, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: a tool failure must be an Envelope, not a JSON-RPC error: %v", tc.command, err)
		}
		var env toolbridge.Envelope
		if err := json.Unmarshal(res, &env); err != nil {
			t.Fatal(err)
		}
		if env.Code != tc.code || !strings.Contains(env.Text, tc.mention) {
			t.Errorf("%s %s = %s %q; want %s mentioning %q", tc.command, tc.args, env.Code, env.Text, tc.code, tc.mention)
		}
	}
}

// TestCancelFromClient cancels a call through the client library: the
// client sends $/cancelRequest and the server keeps serving.
func TestCancelFromClient(t *testing.T) {
	s := start(t, writeFiles(t, map[string]string{"a.txt": "a\n"}), sessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "whale.test_wait", Arguments: []protocol.LSPAny{protocol.LSPAny(`{"ms":600000}`)}})
		done <- err
	}()
	waitFor(t, "the call on the wire", func() bool { return strings.Contains(s.tr.String(), `"whale.test_wait"`) })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a canceled call returned no error")
	}
	wantText(t, s.exec(ctxT(t), "read_file", map[string]any{"file_path": "a.txt"}), "1\ta")
	if !strings.Contains(s.tr.String(), `"$/cancelRequest"`) {
		t.Fatalf("the client sent no $/cancelRequest")
	}
}

func TestProgressForLongCalls(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{progress: true})
	env := s.exec(ctxT(t), "test_wait", map[string]any{"ms": 1500})
	if !env.OK {
		t.Fatal(env.Text)
	}
	s.ed.mu.Lock()
	defer s.ed.mu.Unlock()
	if s.ed.created != 1 || !slices.Equal(s.ed.progress, []string{"begin", "end"}) {
		t.Fatalf("progress: created %d tokens, kinds %v; want one token with begin and end", s.ed.created, s.ed.progress)
	}
}

func TestSettingsFromInitializationAndChanges(t *testing.T) {
	outside := writeFiles(t, map[string]string{"notes.md": "outside notes\n"})
	s := start(t, writeFiles(t, nil), sessionOptions{initOptions: map[string]any{"shell": map[string]any{"yieldTimeMs": 100}, "bogus": 1}})
	if env := s.exec(ctxT(t), "read_file", map[string]any{"file_path": filepath.Join(outside, "notes.md")}); env.Code != toolbridge.CodePathNotAllowed {
		t.Fatalf("read outside before approval = %s, want path_not_allowed", env.Code)
	}
	err := s.server.DidChangeConfiguration(ctxT(t), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(mustJSON(t, map[string]any{
		"whale": map[string]any{"read.approvedPaths": []string{outside}, "nonsense": true},
	}))})
	if err != nil {
		t.Fatal(err)
	}
	env := s.exec(ctxT(t), "read_file", map[string]any{"file_path": filepath.Join(outside, "notes.md")})
	wantText(t, env, "outside notes")
	if env := s.exec(ctxT(t), "list_dir", map[string]any{"path": outside}); !env.OK {
		t.Errorf("list_dir of an approved folder = %s %q", env.Code, env.Text)
	}
	s.ed.mu.Lock()
	logs := strings.Join(s.ed.logs, "\n")
	s.ed.mu.Unlock()
	if !strings.Contains(logs, "unknown settings ignored: nonsense") {
		t.Errorf("unknown setting not reported to the client log: %q", logs)
	}
	if stderr := s.stderrText(); !strings.Contains(stderr, "bogus") {
		t.Errorf("unknown initializationOptions key not logged: %s", stderr)
	}
}

func TestShutdownAndExit(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	if err := s.server.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.server.ExecuteCommand(ctxT(t), &protocol.ExecuteCommandParams{Command: "whale.list_dir", Arguments: []protocol.LSPAny{protocol.LSPAny(`{}`)}}); err == nil {
		t.Errorf("a request after shutdown was answered, want an error")
	}
	if err := s.server.Exit(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(t, s); err != nil {
		t.Fatalf("after shutdown and exit, whale-ls exited with %v, want 0", err)
	}
}

func TestExitWithoutShutdownAndStdinEOF(t *testing.T) {
	s := start(t, writeFiles(t, nil), sessionOptions{})
	s.server.Exit(ctxT(t))
	if err := waitExit(t, s); err == nil {
		t.Errorf("exit without shutdown ended with code 0, want 1")
	}
	s2 := start(t, writeFiles(t, nil), sessionOptions{})
	s2.conn.Close() // closes the server's stdin
	if err := waitExit(t, s2); err == nil {
		t.Errorf("end of input ended with code 0, want 1")
	}
}

// waitExit waits for the server process and returns its exit error.
func waitExit(t *testing.T, s *session) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- s.cmd.Wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("whale-ls did not exit")
	}
	return nil
}
