package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// callVia is what `whale-ls call` adds to the Envelope's data under the
// key "via": which session ran the tool. Mode is "attached" (the language
// server running for the folder ran it, with its file index, its editor's
// buffers and its approvals in the editor) or "standalone" (this process
// ran it, on disk, approvals answered by --approve); Why says why a call
// ran standalone.
type callVia struct {
	Mode   string      `json:"mode"`
	Server *callServer `json:"server,omitempty"`
	Why    string      `json:"why,omitempty"`
}

// callServer names the server an attached call ran in.
type callServer struct {
	PID     int    `json:"pid"`
	Root    string `json:"root"`
	Version string `json:"version,omitempty"`
}

// attachTimeout bounds finding and greeting the running server; past it
// the call runs standalone.
const attachTimeout = 3 * time.Second

func call(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace folder (default: the current folder)")
	config := fs.String("config", "", "settings file: the same JSON object as initializationOptions (the call then runs standalone)")
	approve := fs.String("approve", "deny", `answer to "ask" decisions: allow or deny (the call then runs standalone)`)
	standalone := fs.Bool("standalone", false, "run the tool in this process, never through a running language server")
	asJSON := fs.Bool("json", false, "print the whole Envelope as JSON")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		return exitUsage
	}
	if *approve != "allow" && *approve != "deny" {
		fmt.Fprintf(stderr, "whale-ls call: --approve must be allow or deny, not %q\n", *approve)
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) < 1 || len(rest) > 2 {
		fmt.Fprintf(stderr, "whale-ls call: give a tool name and at most one input (JSON, or - for stdin)\n\n%s", usage)
		return exitUsage
	}
	input := []byte("{}")
	if len(rest) == 2 {
		input = []byte(rest[1])
		if rest[1] == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintf(stderr, "whale-ls call: read stdin: %v\n", err)
				return exitUsage
			}
			input = b
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	ctx, stop := stopSignals()
	defer stop()
	name := rest[0]

	var env toolbridge.Envelope
	var via callVia
	var gateLine string
	if c, why := attachCall(ctx, *root, *standalone, given); c != nil {
		defer c.Close()
		env = callAttached(ctx, c, name, input)
		d := c.Discovery
		via = callVia{Mode: "attached", Server: &callServer{PID: d.PID, Root: d.Root, Version: d.Version}}
	} else {
		log := newLogger(stderr)
		sess, err := newSession(*root, *config, *approve, log)
		if err != nil {
			fmt.Fprintf(stderr, "whale-ls call: %v\n", err)
			return exitUsage
		}
		defer within(stopCloseBudget, sess.Close)
		env = dispatchUntilStopped(ctx, sess.Registry, toolbridge.Call{Name: name, Input: input})
		via = callVia{Mode: "standalone", Why: why}
		gateLine = gateStateLine(sess.Gate, name)
	}
	if *asJSON {
		env.Data = withVia(env.Data, via)
		stdout.Write(toolbridge.MarshalEnvelope(env))
		fmt.Fprintln(stdout)
	} else {
		text := env.Text
		if gateLine != "" {
			text += "\n" + gateLine
		}
		if via.Server != nil {
			// A standalone call prints what it always printed; an attached
			// one says where its changes went (an editor's buffer, maybe
			// not the disk).
			text += fmt.Sprintf("\n[attached: ran in the whale-ls language server of %s (pid %d); files open in its editor are read and edited in their buffers]", via.Server.Root, via.Server.PID)
		}
		if !env.OK {
			text = fmt.Sprintf("%s: %s", env.Code, text)
		}
		fmt.Fprintln(stdout, text)
	}
	if !env.OK {
		return exitFailure
	}
	return exitOK
}

// attachCall connects to the language server running for root when the
// call may run there, or says why it runs standalone. It runs there only
// when nothing asks for this process's own session — --standalone, a
// settings file (--config: the server has its editor's settings, which a
// call cannot swap) or an answer to approvals (--approve: the server asks
// its editor) — and when root is the server's first workspace folder, the
// one relative paths are resolved against (a server of a parent folder
// would read "a.txt" as the parent's). attach.DialRoot checks that the
// server is this user's and the process its discovery file names.
func attachCall(ctx context.Context, root string, standalone bool, given map[string]bool) (*attach.Client, string) {
	switch {
	case standalone:
		return nil, "--standalone"
	case given["config"]:
		return nil, "--config: a settings file is applied to a session of this process; the running language server has its editor's settings"
	case given["approve"]:
		return nil, "--approve: approvals are answered by this process; the running language server asks its editor"
	}
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err.Error()
		}
		root = wd
	}
	actx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	c, err := attach.DialRoot(actx, root, "")
	if err != nil {
		return nil, err.Error()
	}
	// Servers older than Discovery.Roots name the folder found only.
	first := c.Discovery.Root
	if len(c.Discovery.Roots) > 0 {
		first = c.Discovery.Roots[0]
	}
	if want := realDir(root); realDir(first) != want {
		c.Close()
		return nil, fmt.Sprintf("the language server running for %s resolves relative paths against its first folder, %s", want, first)
	}
	return c, ""
}

// realDir is dir absolute, with symlinks resolved where it exists.
func realDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// callAttached runs the tool in the attached server. A stop signal cancels
// it there ($/cancelRequest); a connection that breaks is an internal
// failure that says what to do.
func callAttached(ctx context.Context, c *attach.Client, name string, input json.RawMessage) toolbridge.Envelope {
	env, err := c.Call(ctx, name, input)
	if err == nil {
		return env
	}
	if ctx.Err() != nil {
		return toolbridge.Envelope{Code: toolbridge.CodeCanceled, Text: fmt.Sprintf("whale-ls was stopped (%v) before %s finished; the language server was told to cancel it", context.Cause(ctx), name)}
	}
	return toolbridge.Envelope{Code: toolbridge.CodeInternal, Text: fmt.Sprintf("the language server of %s (pid %d) did not answer the call (%v); whether it ran is unknown: check, then retry, or run it with --standalone", c.Discovery.Root, c.Discovery.PID, err)}
}

// withVia adds via to an Envelope's data under "via": data that is a JSON
// object (or none) gets the key; any other data is left as it is.
func withVia(data any, via callVia) any {
	if data == nil {
		return map[string]any{"via": via}
	}
	b, err := json.Marshal(data)
	if err != nil {
		return data
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		return data
	}
	v, _ := json.Marshal(via) // a struct of strings and numbers always marshals
	obj["via"] = v
	return obj
}
