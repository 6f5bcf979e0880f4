// Command testserver is a small MCP server over stdio for the tests of the
// MCP client side: a few tools, one that fails and one that crashes the
// process. Its first argument names it; with mcptest.SchemasArg it also
// lists mcptest.SchemaTools, which answer with the arguments as received.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addIn struct {
	A int `json:"a" jsonschema:"first number"`
	B int `json:"b" jsonschema:"second number"`
}

type issuesIn struct {
	Query string `json:"query" jsonschema:"words to look for"`
	Limit int    `json:"limit,omitempty" jsonschema:"most issues to return"`
}

type none struct{}

var yes, no = true, false

// tinyPNG is a 1x1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// lingerChild is the first argument of the child a lingering server
// starts; the second is the server's name, so that a test finds both.
const lingerChild = "--linger-child"

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == lingerChild {
		time.Sleep(10 * time.Minute) // its command line names the server
		return
	}
	fmt.Fprintln(os.Stderr, "testserver: ready, pid", os.Getpid())
	name := "testserver"
	if len(os.Args) > 1 && os.Args[1] != mcptest.SchemasArg {
		name = os.Args[1]
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the given text back unchanged.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers and return the sum."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_issues", Description: "Search the issue tracker for open bug reports matching the query words."},
		func(_ context.Context, _ *mcp.CallToolRequest, in issuesIn) (*mcp.CallToolResult, any, error) {
			return text("issues about " + strings.ToLower(in.Query) + ": #12 crash on start"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Return the value of an environment variable of the server, or (unset)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Text)
			if !ok {
				v = "(unset)"
			}
			return text(v), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "List the client's roots (roots/list), one URI a line."},
		func(_ context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			// Asked the way current protocol versions allow: the result
			// asks, and the client calls again with the answer.
			//lint:ignore SA1019 the roots a server of an earlier protocol version asks for.
			list, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				//lint:ignore SA1019 as above.
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
			}
			var uris []string
			for _, r := range list.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails with a tool error."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the database is locked")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "Log the text as a warning (notifications/message), then answer noted."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			//lint:ignore SA1019 a server that logs as servers of protocol 2025-11-25 do.
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "notes", Data: in.Text})
			return text("noted"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "rpcfail", Description: "Always answers a JSON-RPC error, as a broken server would."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return nil, nil, &jsonrpc.Error{Code: -32000, Message: "backend database unreachable"}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "purge_record", Title: "Purge Record", Description: "Purge a stored record for good.", Annotations: &mcp.ToolAnnotations{
		Title: "Purge a record", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no,
	}}, func(_ context.Context, _ *mcp.CallToolRequest, in issuesIn) (*mcp.CallToolResult, any, error) {
		return text("purged " + in.Query), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "render_chart", Description: "Draw a chart: an image, a sound and a link to the data."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "the chart:"},
				&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF0000WAVE")},
				&mcp.ResourceLink{URI: "file:///data/chart.csv", Name: "chart.csv", MIMEType: "text/csv"},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server process at once, as a crash would."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	if slices.Contains(os.Args[1:], mcptest.SchemasArg) {
		for _, tool := range mcptest.SchemaTools() {
			desc := tool.Description
			if desc == "" {
				desc = "Answer with the arguments as received."
			}
			s.AddTool(&mcp.Tool{Name: tool.Name, Description: desc, InputSchema: tool.Schema},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("args: " + string(req.Params.Arguments)), nil
				})
		}
	}
	if slices.Contains(os.Args[1:], mcptest.LingerArg) {
		// A server that outlives its input, and a child of its own that
		// outlives it: what a client must still end.
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command(os.Args[0], lingerChild, name)
		if err := child.Start(); err == nil {
			fmt.Fprintln(os.Stderr, "testserver: child pid", child.Process.Pid)
		}
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("testserver: %v", err)
	}
	if slices.Contains(os.Args[1:], mcptest.LingerArg) {
		fmt.Fprintln(os.Stderr, "testserver: input ended, staying")
		time.Sleep(10 * time.Minute)
	}
}
