package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/whale-ls/whale-ls/acpfront"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/terminal"
)

// acpCommand is `whale-ls acp -- AGENT…`: the ACP proxy between the editor
// (stdin/stdout) and the agent it starts, serving the agent's files and
// terminals with a whale session of the workspace.
func acpCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace folder (default: the current folder)")
	config := fs.String("config", "", "settings file: the same JSON object as initializationOptions")
	noTools := fs.Bool("no-tools", false, "do not add whale's MCP server (whale-ls mcp) to the agent's sessions")
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
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(stderr, "whale-ls acp:", err)
			return exitUsage
		}
		*root = wd
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", err)
		return exitUsage
	}
	*root = abs
	log := newLogger(stderr)
	cfg, err := loadConfig(*config, log)
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", err)
		return exitUsage
	}
	opts := acpfront.Options{Agent: agent, Stderr: stderr, Log: log}
	if !*noTools {
		if opts.MCPServer, err = whaleMCPServer(*root, *config); err != nil {
			fmt.Fprintln(stderr, "whale-ls acp:", err)
			return exitFailure
		}
	}
	proxy := acpfront.New(opts)
	sess, err := session.New(session.Options{
		Roots:      []string{*root},
		Prompter:   proxy.Prompter(),
		Terminal:   terminal.Options{Sink: proxy.TerminalSink(), Supervisor: supervisorArgv()},
		Settings:   cfg,
		ExtraTools: testTools,
		Log:        log,
	})
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", err)
		return exitUsage
	}
	ctx, stop := stopSignals()
	defer stop()
	serveErr := proxy.Serve(ctx, sess, stdin, stdout)
	if !within(stopCloseBudget, sess.Close) {
		log.Warn("the session was not released in time; exiting anyway")
	}
	if serveErr != nil {
		fmt.Fprintln(stderr, "whale-ls acp:", serveErr)
		return exitFailure
	}
	return exitOK
}

// whaleMCPServer is the ACP MCP server entry that runs this executable's
// `whale-ls mcp` on the same workspace and settings.
func whaleMCPServer(root, config string) (*acpfront.MCPServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable for the agent's MCP server (use --no-tools to run without it): %w", err)
	}
	args := []string{"mcp", "--root", root}
	if config != "" {
		abs, err := filepath.Abs(config)
		if err != nil {
			return nil, err
		}
		args = append(args, "--config", abs)
	}
	return &acpfront.MCPServer{Name: "whale", Command: exe, Args: args, Env: []acpfront.EnvVar{}}, nil
}
