package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/atomicfile"
	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/mcpfront"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// mcpCommand runs whale's catalog as an MCP server on stdio, or over
// Streamable HTTP with --http: attached to the running language server of
// the workspace when there is one, standalone otherwise.
func mcpCommand(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace folder (default: the current folder)")
	config := fs.String("config", "", "settings file for standalone mode: the same JSON object as initializationOptions")
	approve := fs.String("approve", "deny", `standalone mode's answer to "ask" decisions: allow or deny`)
	standalone := fs.Bool("standalone", false, "never attach to a running language server")
	structured := fs.Bool("structured", false, "put the whole result Envelope in each tool result's structuredContent (for clients that read it; hosts that find it show it to the model instead of the text)")
	httpAddr := fs.String("http", "", "serve MCP over Streamable HTTP on this address (host:port, e.g. 127.0.0.1:8931; port 0 picks one) instead of stdio, at the path /mcp, until SIGTERM or SIGINT")
	tokenFile := fs.String("token-file", "", "with --http: write the bearer token to this file (mode 0600) instead of printing it on stderr")
	allowRemote := fs.Bool("allow-remote", false, "with --http: allow a listen address that is not a loopback address (anyone who can reach it may try the token)")
	agent := fs.String("agent", "", "name of the agent whose model calls the tools (e.g. \"Gemini CLI\"): the journal's titles of its changes start with it (standalone mode; whale-ls acp sets it)")
	allowOrigin := fs.String("allow-origin", "", "with --http: comma-separated origins (scheme://host[:port]) whose browser pages may call the server, besides the loopback ones")
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		return exitUsage
	}
	if *httpAddr == "" && (*tokenFile != "" || *allowRemote || *allowOrigin != "") {
		fmt.Fprintln(stderr, "whale-ls mcp: --token-file, --allow-remote and --allow-origin go with --http")
		return exitUsage
	}
	var ln net.Listener
	var httpOpts mcpfront.HTTPOptions
	if *httpAddr != "" {
		// Listen before anything else starts, so that a refused or busy
		// address is the first and only thing said.
		var err error
		if ln, err = mcpfront.Listen(*httpAddr, *allowRemote); err != nil {
			if errors.Is(err, mcpfront.ErrNotLoopback) {
				err = fmt.Errorf("%w; --allow-remote allows it", err)
			}
			fmt.Fprintln(stderr, "whale-ls mcp:", err)
			return exitUsage
		}
		defer ln.Close()
		if httpOpts, err = httpOptions(*tokenFile, *allowOrigin); err != nil {
			fmt.Fprintln(stderr, "whale-ls mcp:", err)
			return exitFailure
		}
	}
	if *approve != "allow" && *approve != "deny" {
		fmt.Fprintf(stderr, "whale-ls mcp: --approve must be allow or deny, not %q\n", *approve)
		return exitUsage
	}
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(stderr, "whale-ls mcp:", err)
			return exitUsage
		}
		*root = wd
	}
	log := newLogger(stderr)
	ctx, stop := stopSignals()
	defer stop()

	// Standalone tasks outlive the call that started them and end with
	// the MCP session (b.close), not ephemeral like a one-shot call's.
	b := &mcpBackend{open: func() (*session.Session, error) { return openSession(*root, *config, *approve, false, log) }, localChanged: make(chan struct{}, 1), agent: *agent}
	// Serve has canceled the calls; end the tasks and detach, but do not
	// let a piece that hangs keep a process nobody talks to.
	defer func() {
		budget := clientGoneCloseBudget
		if ctx.Err() != nil {
			budget = stopCloseBudget
		}
		if !within(budget, b.close) {
			log.Warn("the MCP session was not released in time; exiting anyway")
		}
	}()
	instructions := "whale-ls runs in standalone mode: no whale-ls language server is running for " + *root +
		", so edits are written to disk, shell tasks are not shown in an editor, and approvals are answered by the --approve rule (" + *approve + ")."
	if !*standalone {
		if c, err := attach.Dial(ctx, *root, ""); err == nil {
			b.attached = c
			instructions = fmt.Sprintf("whale-ls is attached to the language server of %s (pid %d): edits land in the editor's buffers, shell tasks show as editor terminals, and approvals are asked in the editor.", c.Discovery.Root, c.Discovery.PID)
			log.Info("attached", "root", c.Discovery.Root, "pid", c.Discovery.PID)
		}
	}
	srv, err := mcpfront.New(ctx, b, mcpfront.Options{Version: versionString(), Instructions: instructions, Log: log, StructuredContent: *structured})
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls mcp:", err)
		return exitFailure
	}
	// Tools that join the catalog later (tool_search, a deferred tool called
	// by name) are served too; the SDK tells clients tools/list_changed.
	go func() {
		var changed, done <-chan struct{} // nil (never ready) when standalone
		if b.attached != nil {
			changed, done = b.attached.Changed(), b.attached.Done()
		}
		for {
			select {
			case <-changed:
			case <-b.localChanged:
			case <-done:
				changed, done = nil, nil // calls go to a standalone session now
				continue
			case <-ctx.Done():
				return
			}
			if err := srv.Refresh(ctx); err != nil {
				log.Warn("refresh tools", "err", err)
			}
		}
	}()
	if ln != nil {
		fmt.Fprintf(stderr, "whale-ls mcp: serving MCP over Streamable HTTP at http://%s%s\n", ln.Addr(), mcpfront.HTTPPath)
		if *tokenFile != "" {
			fmt.Fprintf(stderr, "whale-ls mcp: the bearer token is in %s\n", *tokenFile)
		} else {
			fmt.Fprintf(stderr, "whale-ls mcp: bearer token %s (send Authorization: Bearer TOKEN)\n", httpOpts.Token)
		}
		if err := srv.ServeOn(ctx, ln, httpOpts); err != nil && ctx.Err() == nil {
			fmt.Fprintln(stderr, "whale-ls mcp:", err)
			return exitFailure
		}
	} else if err := srv.Serve(ctx, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		log.Info("mcp session ended", "err", err)
	}
	if ctx.Err() != nil {
		log.Info("stopping", "cause", context.Cause(ctx))
	}
	return exitOK
}

// httpOptions makes the HTTP transport's options: a new random token,
// written to tokenFile (mode 0600) when one is named, and the allowed
// origins.
func httpOptions(tokenFile, allowOrigin string) (mcpfront.HTTPOptions, error) {
	token, err := mcpfront.NewToken()
	if err != nil {
		return mcpfront.HTTPOptions{}, err
	}
	o := mcpfront.HTTPOptions{Token: token}
	for _, origin := range strings.Split(allowOrigin, ",") {
		if origin = strings.TrimSpace(origin); origin != "" {
			o.AllowedOrigins = append(o.AllowedOrigins, origin)
		}
	}
	if tokenFile != "" {
		if err := atomicfile.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
			return mcpfront.HTTPOptions{}, fmt.Errorf("write the token file: %w", err)
		}
	}
	return o, nil
}

// mcpBackend sends calls to the attached server while it is there, and to a
// standalone session of this process otherwise (opened on first need).
type mcpBackend struct {
	attached *attach.Client
	open     func() (*session.Session, error)
	// localChanged is signalled when the standalone session's catalog grows.
	localChanged chan struct{}
	// agent names the agent in the standalone session's journal titles.
	agent string

	mu    sync.Mutex
	local *session.Session
}

func (b *mcpBackend) standalone() (mcpfront.Local, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.local == nil {
		s, err := b.open()
		if err != nil {
			return mcpfront.Local{}, err
		}
		b.local = s
		s.Registry.OnToolsAdded(func([]toolbridge.Spec) {
			select {
			case b.localChanged <- struct{}{}:
			default: // a refresh is pending; it will see these tools too
			}
		})
	}
	return mcpfront.Local{Registry: b.local.Registry, Agent: b.agent}, nil
}

func (b *mcpBackend) live() bool {
	if b.attached == nil {
		return false
	}
	select {
	case <-b.attached.Done():
		return false
	default:
		return true
	}
}

func (b *mcpBackend) Tools(ctx context.Context) ([]toolbridge.Spec, error) {
	if b.live() {
		return b.attached.Tools(ctx)
	}
	l, err := b.standalone()
	if err != nil {
		return nil, err
	}
	return l.Tools(ctx)
}

func (b *mcpBackend) Call(ctx context.Context, name string, input json.RawMessage) (toolbridge.Envelope, error) {
	if b.live() {
		return b.attached.Call(ctx, name, input)
	}
	l, err := b.standalone()
	if err != nil {
		return toolbridge.Envelope{}, err
	}
	return l.Call(ctx, name, input)
}

func (b *mcpBackend) close() {
	if b.attached != nil {
		b.attached.Close()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.local != nil {
		b.local.Close()
	}
}
