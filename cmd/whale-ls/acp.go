package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/whale-ls/whale-ls/acpfront"
	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
)

// acpCommand is `whale-ls acp -- AGENT…`: the ACP proxy between the editor
// (stdin/stdout) and the agent it starts, serving the agent's files and
// terminals with a whale session of the workspace.
func acpCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace folder (default: the cwd of the editor's first session/new)")
	config := fs.String("config", "", "settings file: the same JSON object as initializationOptions")
	noTools := fs.Bool("no-tools", false, "do not add whale's MCP server (whale-ls mcp) to the agent's sessions")
	keepAgentTools := fs.Bool("keep-agent-tools", false, "leave a recognised agent's own edit, write and shell tools on (Gemini CLI, claude-agent-acp); by default they are off while whale's tools are added")
	standalone := fs.Bool("standalone", false, "never attach to a running language server of the workspace (files are then read and written on disk, not in the editor's buffers)")
	files := fs.String("files", "", "who serves the agent's file reads and writes: whale (its commit path) or editor (the editor, after whale's checks, when it advertises fs); default: the acp.files setting, else whale")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	var agent []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, agent = args[:i], args[i+1:]
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if agent == nil {
		agent = fs.Args()
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "whale-ls acp: unexpected %q before --; put the agent's command line after --\n", fs.Arg(0))
		return exitUsage
	}
	if len(agent) == 0 {
		fmt.Fprintln(stderr, "whale-ls acp: give the agent's command line after --, e.g. whale-ls acp -- gemini --experimental-acp")
		return exitUsage
	}
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			fmt.Fprintln(stderr, "whale-ls acp:", err)
			return exitUsage
		}
		*root = abs
	}
	log := newLogger(stderr)
	cfg, err := loadConfig(*config, log)
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", err)
		return exitUsage
	}
	switch *files {
	case "":
		*files = cfg.ACP.Files
	case settings.ACPFilesWhale, settings.ACPFilesEditor:
	default:
		fmt.Fprintf(stderr, "whale-ls acp: --files %q is not whale or editor; give --files whale or --files editor\n", *files)
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil && !*noTools {
		fmt.Fprintln(stderr, "whale-ls acp: cannot find this executable for the agent's MCP server (use --no-tools to run without it):", err)
		return exitFailure
	}
	configAbs := ""
	if *config != "" {
		if configAbs, err = filepath.Abs(*config); err != nil {
			fmt.Fprintln(stderr, "whale-ls acp:", err)
			return exitUsage
		}
	}
	var proxy *acpfront.Proxy
	opts := acpfront.Options{Agent: agent, Root: *root, Stderr: stderr, Log: log, EditorFiles: *files == settings.ACPFilesEditor, KeepAgentTools: *keepAgentTools,
		OpenSession: func(root string) (*session.Session, error) {
			return session.New(session.Options{
				Roots:      []string{root},
				Prompter:   proxy.Prompter(),
				Terminal:   terminal.Options{Sink: proxy.TerminalSink(), Supervisor: supervisorArgv()},
				Settings:   cfg,
				ExtraTools: testTools,
				Log:        log,
			})
		}}
	if !*standalone {
		opts.Attach = func(root string) acpfront.Attached {
			dctx, cancel := context.WithTimeout(context.Background(), attachDialTimeout)
			defer cancel()
			c, err := attach.Dial(dctx, root, "")
			if err != nil {
				return nil
			}
			log.Info("attached: the agent's files go through the language server", "root", c.Discovery.Root, "pid", c.Discovery.PID)
			return c
		}
	}
	if !*noTools {
		opts.MCPServer = func(root string) *acpfront.MCPServer { return whaleMCPServer(exe, root, configAbs) }
	}
	proxy = acpfront.New(opts)
	ctx, stop := stopSignals()
	defer stop()
	serveErr := proxy.Serve(ctx, stdin, stdout)
	if !within(stopCloseBudget, proxy.Close) {
		log.Warn("the session was not released in time; exiting anyway")
	}
	if serveErr != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", serveErr)
		return exitFailure
	}
	return exitOK
}

// attachDialTimeout bounds looking for a running language server of the
// workspace when the first session opens.
const attachDialTimeout = 5 * time.Second

// whaleMCPServer is the ACP MCP server entry that runs exe's `whale-ls mcp`
// on root with the same settings file (absolute; "" for none).
func whaleMCPServer(exe, root, config string) *acpfront.MCPServer {
	args := []string{"mcp", "--root", root}
	if config != "" {
		args = append(args, "--config", config)
	}
	return &acpfront.MCPServer{Name: "whale", Command: exe, Args: args, Env: []acpfront.EnvVar{}}
}
