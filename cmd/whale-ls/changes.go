package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// changesCommand is `whale-ls changes`: the workspace's journal of changes
// from the command line — list, one entry's diff, revert — through the
// same tools a model calls (changes_list, changes_revert), so it sees what
// every whale-ls of the workspace journaled.
func changesCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("changes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace folder (default: the current folder)")
	config := fs.String("config", "", "settings file: the same JSON object as initializationOptions")
	asJSON := fs.Bool("json", false, "print the whole Envelope as JSON")
	to := fs.String("to", "", "revert: this entry and every later one")
	since := fs.String("since", "", "list: only entries newer than this id")
	limit := fs.Int("limit", 0, "list: at most this many entries (default 20)")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		return exitUsage
	}
	rest := fs.Args()
	verb := "list"
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	var tool string
	input := map[string]any{}
	switch {
	case verb == "list" && len(rest) == 0:
		tool = "changes_list"
		if *since != "" {
			input["since"] = *since
		}
		if *limit > 0 {
			input["limit"] = *limit
		}
	case verb == "diff" && len(rest) == 1:
		tool, input["id"] = "changes_list", rest[0]
	case verb == "revert" && len(rest) == 1 && *to == "":
		tool, input["id"] = "changes_revert", rest[0]
	case verb == "revert" && len(rest) == 0 && *to != "":
		tool, input["to"] = "changes_revert", *to
	default:
		fmt.Fprintf(stderr, "whale-ls changes: give list, diff ID, revert ID or revert --to ID\n\n%s", usage)
		return exitUsage
	}
	log := newLogger(stderr)
	sess, err := newSession(*root, *config, "deny", log)
	if err != nil {
		fmt.Fprintf(stderr, "whale-ls changes: %v\n", err)
		return exitUsage
	}
	defer within(stopCloseBudget, sess.Close)
	ctx, stop := stopSignals()
	defer stop()
	raw, _ := json.Marshal(input)
	// The user runs this command themselves: a revert is not put up for review.
	env := dispatchUntilStopped(ctx, sess.Registry, toolbridge.Call{Name: tool, Input: raw, ByUser: true})
	data, _ := env.Data.(map[string]any)
	switch {
	case *asJSON:
		stdout.Write(toolbridge.MarshalEnvelope(env))
		fmt.Fprintln(stdout)
	case env.OK && verb == "list":
		fmt.Fprint(stdout, historyText(data))
	case env.OK:
		fmt.Fprintln(stdout, env.Text)
	case data["message"] != nil:
		// A refused revert: what stopped it and what resolves it, for the
		// person who ran the command.
		fmt.Fprintf(stdout, "%s: %v\n", env.Code, data["message"])
	default:
		fmt.Fprintf(stdout, "%s: %s\n", env.Code, env.Text)
	}
	if !env.OK {
		return exitFailure
	}
	return exitOK
}

// historyText is changes_list's entries for the person who ran `whale-ls
// changes list`: per entry its id (for diff and revert), its local time and
// its title (files relative to the workspace, a shell task's command), and
// what reverted it.
func historyText(data map[string]any) string {
	entries, _ := data["entries"].([]map[string]any)
	if len(entries) == 0 {
		return "No changes are journaled in this workspace yet.\n"
	}
	var b strings.Builder
	for _, e := range entries {
		when := ""
		if t, ok := e["time"].(time.Time); ok {
			when = t.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(&b, "%v  %s  %v", e["id"], when, e["title"])
		if by, ok := e["reverted_by"].(string); ok {
			fmt.Fprintf(&b, "  (reverted by %s)", by)
		}
		b.WriteString("\n")
	}
	if n, ok := data["dropped"].(int); ok && n > 0 {
		fmt.Fprintf(&b, "(%d older entries were dropped to keep the journal within changes.maxBytes.)\n", n)
	}
	return b.String()
}
