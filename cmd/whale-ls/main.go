// Command whale-ls is the language server that gives an editor's AI chat its
// hands: run with no arguments (or "serve") it speaks LSP on stdio; "call"
// runs one tool from the command line; "tools" prints the catalog and
// "settings" the settings it understands.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/lsp"
	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Exit codes of the command line.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != supervisorCommand && os.Args[1] != execGateCommand) {
		// What started whale may have left descriptors open; tasks must not
		// get them. The two hidden helpers pass on what whale gave them.
		terminal.CloseInheritedOnExec()
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `whale-ls — the hands of an AI assistant inside a code editor

Usage:
  whale-ls [serve] [--log-level debug|info|warn|error]
                                   run the language server on stdio
  whale-ls call [--root DIR] [--config FILE.json] [--approve allow|deny] [--standalone] [--json] TOOL [INPUT_JSON|-]
                                   run one tool and print its text (or the whole Envelope with --json),
                                   through the language server running for DIR when there is one
  whale-ls mcp [--root DIR] [--config FILE.json] [--approve allow|deny] [--standalone] [--structured] [--agent NAME]
               [--http HOST:PORT [--token-file FILE] [--allow-remote] [--allow-origin ORIGINS]]
                                   serve the tools over MCP on stdio (or Streamable HTTP with
                                   --http), through the workspace's running language server when
                                   there is one
  whale-ls acp [--root DIR] [--config FILE.json] [--no-tools] [--keep-agent-tools] [--standalone] [--files whale|editor] -- AGENT [ARGS...]
                                   run an Agent Client Protocol agent for the editor on stdio, serving
                                   its file reads and writes and its terminals with whale, and
                                   offering it whale's tools over MCP (unless --no-tools) in place
                                   of Gemini CLI's and claude-agent-acp's own edit, write and shell
                                   tools (unless --keep-agent-tools)
  whale-ls tools [--root DIR] [--config FILE.json] [--json | --long [TOOL...]]
                                   list the tools (their whole descriptions and long help with --long)
  whale-ls changes [--root DIR] [--json] list [--since ID] [--limit N] | diff ID | revert ID | revert --to ID
                                   what whale changed in the workspace, newest first; one change's
                                   diff; take a change (or it and every later one) back
  whale-ls settings [--folder DIR | --json]
                                   list the settings with their defaults, then the status of the
                                   language server running for DIR (their JSON schemas with --json)
  whale-ls setup HOST [--scope project|user] [--root DIR] [--command PATH] [--dry-run] [--undo]
                                   make a terminal agent (claude, codex, gemini, opencode, copilot,
                                   qwen) start whale-ls mcp and turn off its built-in edit and
                                   shell tools; --list lists them
  whale-ls version [--json]        print the version, commit and date (as JSON with --json)
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "call":
		return call(args, stdin, stdout, stderr)
	case "tools":
		return tools(args, stdout, stderr)
	case "settings":
		return listSettings(args, stdout, stderr)
	case "mcp":
		return mcpCommand(args, stderr)
	case "acp":
		return acpCommand(args, stdin, stdout, stderr)
	case "changes":
		return changesCommand(args, stdout, stderr)
	case "setup":
		return setupCommand(args, stdout, stderr)
	case supervisorCommand:
		// Hidden: the per-task supervisor the server runs in front of each
		// shell, so task trees die with the server.
		return terminal.Supervise(args)
	case execGateCommand:
		// Hidden: installs the exec boundary in front of a task's shell.
		return execGate(args)
	case "version":
		return versionCommand(args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "whale-ls: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// newLogger logs to w (stderr) at level: "debug", "info", "warn" or
// "error"; WHALE_LS_DEBUG set forces debug.
func newLogger(w io.Writer, level ...string) *slog.Logger {
	l := slog.LevelInfo
	if len(level) > 0 {
		_ = l.UnmarshalText([]byte(level[0]))
	}
	if os.Getenv("WHALE_LS_DEBUG") != "" {
		l = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted for editors that pass it)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the session to this file")
	logLevel := fs.String("log-level", "info", "least important log lines written to stderr: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "whale-ls serve: --log-level must be debug, info, warn or error, not %q\n", *logLevel)
		return exitUsage
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "whale-ls serve:", err)
			return exitUsage
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "whale-ls serve:", err)
			return exitUsage
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := stopSignals()
	defer stop()
	log := newLogger(stderr, *logLevel)
	if os.Getenv("GOGC") == "" {
		// The server's live heap is usually small and its calls allocate per
		// call: collecting at 3x the live heap instead of 2x halves GC work;
		// a large file index holds more, and then the heap's room is bounded
		// (tuneGC). The soft limit keeps a large session from growing far
		// past that.
		tuneGC()
		debug.SetMemoryLimit(512 << 20)
	}
	if err := terminal.BecomeSubreaper(); err != nil {
		log.Warn("cannot become a child subreaper; orphaned task processes may escape", "err", err)
	}
	return lsp.Run(ctx, lsp.Options{
		Supervisor: supervisorArgv(),
		In:         stdin,
		Out:        stdout,
		Log:        log,
		Version:    versionString(),
		ExtraTools: testTools,
	})
}

// supervisorCommand is the hidden subcommand that runs terminal.Supervise.
const supervisorCommand = "task-supervisor"

// supervisorArgv is how the server starts a task supervisor: this very
// executable with the hidden subcommand. Nil when the executable cannot be
// found (shells then run without a supervisor).
func supervisorArgv() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, supervisorCommand}
}

// stopSignals returns a context that SIGTERM or SIGINT ends, with the
// signal as its cause. After the first of them the default action is back,
// so a second one kills the process at once. It also makes a write to a
// closed stdout fail with EPIPE instead of killing the process with
// SIGPIPE, so that a front sees its client leave and stops in order (ending
// its shell tasks). Signal handlers do not survive exec: tasks start with
// the default SIGPIPE action.
func stopSignals() (context.Context, func()) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(fmt.Errorf("received %v", sig))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(context.Canceled)
	}
}

// How long a command-line front waits for the pieces that are still
// running once it stops: for ending the session's shell tasks and
// releasing the rest, clientGoneCloseBudget after the MCP server's client
// left and stopCloseBudget otherwise (a stop signal, the end of a `call`);
// callStopGrace for the tool `whale-ls call` runs to return after a stop
// signal canceled it. With the MCP server's own grace (mcpfront) they keep
// the exit within 1 s of the client leaving and 2 s of a signal.
const (
	clientGoneCloseBudget = 600 * time.Millisecond
	stopCloseBudget       = 1200 * time.Millisecond
	callStopGrace         = 500 * time.Millisecond
)

// within runs f and waits at most d for it to return; it reports whether f
// returned in time. A late f goes on running until the process exits.
func within(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// dispatchUntilStopped runs call; once ctx ends (a stop signal) it waits at
// most callStopGrace for the canceled tool to return and answers canceled
// if it has not.
func dispatchUntilStopped(ctx context.Context, r *toolbridge.Registry, call toolbridge.Call) toolbridge.Envelope {
	res := make(chan toolbridge.Envelope, 1)
	go func() { res <- r.Dispatch(ctx, call) }()
	select {
	case env := <-res:
		return env
	case <-ctx.Done():
	}
	select {
	case env := <-res:
		return env
	case <-time.After(callStopGrace):
		return toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: fmt.Sprintf("whale-ls was stopped (%v) before %s finished", context.Cause(ctx), call.Name)}
	}
}

// cliPrompter answers approvals, and reviews of changes (edits.review), with
// the --approve flag: allow allows once or accepts the whole change. No one
// is there to answer anything else, so a question, or an approval or review
// under --approve deny, says so (ErrNoOneToAsk; the change is not applied)
// rather than passing for the user's own answer.
type cliPrompter struct{ approve string }

func (c cliPrompter) Prompt(_ context.Context, p toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	if p.Kind == toolbridge.PromptApproval && c.approve == "allow" {
		return toolbridge.PromptAnswer{OptionID: toolbridge.ApproveOnce}, nil
	}
	if p.Kind == toolbridge.PromptReview && c.approve == "allow" {
		return toolbridge.PromptAnswer{OptionID: toolbridge.ReviewAccept}, nil
	}
	return toolbridge.PromptAnswer{}, toolbridge.ErrNoOneToAsk
}

// newSession opens the session of a one-shot run (whale-ls call): its tasks
// end with the process, and results say so.
func newSession(root, config, approve string, log *slog.Logger) (*session.Session, error) {
	return openSession(root, config, approve, true, log)
}

// openSession opens a session of this process; ephemeral says that its
// tasks end when the call that started them returns (a one-shot run),
// not when the session closes (whale-ls mcp).
func openSession(root, config, approve string, ephemeral bool, log *slog.Logger) (*session.Session, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		root = wd
	}
	cfg, err := loadConfig(config, log)
	if err != nil {
		return nil, err
	}
	return session.New(session.Options{
		Roots:      []string{root},
		Prompter:   cliPrompter{approve},
		Terminal:   terminal.Options{Ephemeral: ephemeral, Supervisor: supervisorArgv()},
		Settings:   cfg,
		ExtraTools: testTools,
		Log:        log,
		FileIndex:  !ephemeral,
	})
}

// loadConfig reads a --config file: the same settings object as
// initializationOptions; none when config is "". Unknown keys are logged.
func loadConfig(config string, log *slog.Logger) (settings.Settings, error) {
	var cfg settings.Settings
	if config == "" {
		return cfg, nil
	}
	raw, err := os.ReadFile(config)
	if err != nil {
		return cfg, fmt.Errorf("read --config: %w", err)
	}
	var unknown []string
	cfg, unknown, err = settings.Parse(raw)
	if err != nil {
		return cfg, fmt.Errorf("--config %s: %w", config, err)
	}
	if len(unknown) > 0 {
		log.Warn("unknown settings ignored", "keys", strings.Join(unknown, ", "))
	}
	return cfg, nil
}

func tools(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the catalog as JSON, with input schemas")
	root := fs.String("root", "", "workspace folder (default: the current folder)")
	config := fs.String("config", "", "settings file (e.g. with mcp.servers, whose tools then appear too)")
	long := fs.Bool("long", false, "print each tool's description and its long help (examples and limits, never sent to models); only the TOOLs named, if any")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	sess, err := newSession(*root, *config, "deny", slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintf(stderr, "whale-ls tools: %v\n", err)
		return exitUsage
	}
	defer sess.Close()
	specs := sess.Registry.Specs()
	if *long {
		return toolsLong(specs, fs.Args(), stdout, stderr)
	}
	if *asJSON {
		b, err := json.MarshalIndent(map[string]any{"tools": specs}, "", "  ")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitFailure
		}
		stdout.Write(append(b, '\n'))
		return exitOK
	}
	for _, s := range specs {
		first, _, _ := strings.Cut(s.Description, "\n")
		mode := "writes"
		if s.ReadOnly {
			mode = "read-only"
		}
		fmt.Fprintf(stdout, "%-14s %-7s %-9s %s\n", s.Name, s.Group, mode, first)
	}
	return exitOK
}

// toolsLong prints the description and long help of the tools named, or of
// every tool when names is empty.
func toolsLong(specs []toolbridge.Spec, names []string, stdout, stderr io.Writer) int {
	byName := map[string]toolbridge.Spec{}
	for _, s := range specs {
		byName[s.Name] = s
	}
	if len(names) == 0 {
		for _, s := range specs {
			names = append(names, s.Name)
		}
	}
	for i, name := range names {
		s, ok := byName[name]
		if !ok {
			fmt.Fprintf(stderr, "whale-ls tools: there is no tool named %q; `whale-ls tools` lists them\n", name)
			return exitUsage
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "# %s\n\n%s\n", s.Name, strings.TrimRight(s.Description, "\n"))
		if help := catalog.LongHelp(s.Name); help != "" {
			fmt.Fprintf(stdout, "\n%s", help)
		}
	}
	return exitOK
}

// listSettings prints settings.Table: a table for people, followed by the
// status of the language server running for the folder; or with --json
// the {"settings": [{key, schema}]} list the editors' setting
// contributions are generated from.
func listSettings(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("settings", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print every setting's key and JSON schema as JSON")
	folder := fs.String("folder", "", "show the status of the language server running for this folder (default: the current folder)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "whale-ls settings: unexpected argument %q; run `whale-ls settings` or `whale-ls settings --json`\n", fs.Arg(0))
		return exitUsage
	}
	if *asJSON && *folder != "" {
		fmt.Fprintln(stderr, "whale-ls settings: --json lists the settings' schemas only; run `whale-ls settings --folder DIR` for the status of that folder's language server")
		return exitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"settings": settings.Table}); err != nil {
			fmt.Fprintf(stderr, "whale-ls settings: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if *folder == "" {
		*folder = "."
	}
	if fi, err := os.Stat(*folder); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "whale-ls settings: --folder %s is not a folder; give a workspace folder or one inside it\n", *folder)
		return exitUsage
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tTYPE\tDEFAULT\tWHAT IT DOES")
	for _, s := range settings.Table {
		def := strings.ReplaceAll(s.DefaultText(), "`", "")
		for i, line := range wrapWords(firstSentence(s.Schema.MarkdownDescription), 70) {
			if i == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, s.Schema.Type, def, line)
			} else {
				fmt.Fprintf(tw, "\t\t\t%s\n", line)
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\n"+sandboxSummary())
	fmt.Fprintln(stdout, "\n"+serverStatus(*folder))
	fmt.Fprintln(stdout, "\nwhale-ls settings --json has each setting's full description and JSON schema.")
	return exitOK
}

// serverStatus is what the language server running for folder (the
// workspace folder holding it) says about itself through the attach
// socket: one line per file index. When none is running it says so.
func serverStatus(folder string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := attach.Dial(ctx, folder, "")
	if err != nil {
		msg := err.Error()
		return strings.ToUpper(msg[:1]) + msg[1:] + "; its status (the file index of each workspace folder) shows here once an editor has started whale-ls on that folder."
	}
	defer c.Close()
	d := c.Discovery
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Sprintf("The whale-ls language server of %s (pid %d, version %s) does not report its status (%v); restart it with the editor to see it here.", d.Root, d.PID, d.Version, err)
	}
	lines := []string{fmt.Sprintf("The whale-ls language server of %s (pid %d):", d.Root, d.PID)}
	for _, l := range st.FileIndexes {
		lines = append(lines, "  "+l)
	}
	if len(st.FileIndexes) == 0 {
		lines = append(lines, "  no file index: searches walk the folders")
	}
	return strings.Join(lines, "\n")
}

// firstSentence is text up to its first ". " (or all of it).
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}

// wrapWords breaks text into lines of at most width runes where it can,
// between words.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// flagsFirst moves flags that follow the positional arguments in front of
// them, so `whale-ls call read_file '{…}' --json` works as well. A lone "-"
// (stdin) and everything after "--" stay positional.
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			if i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return append(append(flags, "--"), positional...)
}
