package lsp_test

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds the token to every request of the SDK's client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpHTTPClient starts `whale-ls mcp --http 127.0.0.1:0 --token-file F`,
// reads its address from stderr and the token from F, and connects the
// official SDK's Streamable HTTP client to it. The server is stopped with
// SIGTERM when the test ends.
func mcpHTTPClient(t *testing.T, root, runtimeDir string) *mcp.ClientSession {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	cmd := exec.Command(whaleBinary(t), "mcp", "--root", root, "--http", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("whale-ls mcp --http did not exit after SIGTERM")
		}
	})
	address := make(chan string, 1)
	go func() {
		defer close(exited)
		defer cmd.Wait()
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`serving MCP over Streamable HTTP at (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				address <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-address:
	case <-time.After(30 * time.Second):
		t.Fatal("whale-ls mcp --http did not say its address")
	}
	info, err := os.Stat(tokenFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want mode 0600", err, info.Mode().Perm())
	}
	token, _ := os.ReadFile(tokenFile)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-chat", Version: "1"}, nil)
	cs, err := client.Connect(ctxT(t), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{strings.TrimSpace(string(token))}}}, nil)
	if err != nil {
		t.Fatalf("connect to whale-ls mcp --http: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPHTTPAttachedEditLandsInTheEditor: over Streamable HTTP as over
// stdio, `whale-ls mcp` attaches to the workspace's running language
// server, and an edit lands in the editor's buffer.
func TestMCPHTTPAttachedEditLandsInTheEditor(t *testing.T) {
	attachedEditLandsInTheEditor(t, mcpHTTPClient)
}

// TestMCPHTTPStandalone: without a language server, the HTTP server runs
// standalone and serves the same catalog.
func TestMCPHTTPStandalone(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "alpha\nbeta\n"})
	cs := mcpHTTPClient(t, root, t.TempDir())
	if !strings.Contains(cs.InitializeResult().Instructions, "standalone") {
		t.Errorf("instructions %q do not say the server is standalone", cs.InitializeResult().Instructions)
	}
	text, isErr, env := mcpCall(t, cs, "read_file", map[string]any{"file_path": "a.txt"})
	if isErr || !strings.Contains(text, "2\tbeta") || env["code"] != "ok" {
		t.Errorf("read_file = %q isError=%v envelope=%v", text, isErr, env)
	}
}
