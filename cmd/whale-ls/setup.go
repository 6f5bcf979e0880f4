package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/whale-ls/whale-ls/hostsetup"
)

const setupUsage = `Usage: whale-ls setup HOST [--scope project|user] [--root DIR] [--command PATH] [--dry-run] [--undo]
       whale-ls setup --list

Writes HOST's own configuration so that it starts "whale-ls mcp" and, where
HOST allows it, no longer offers its model its built-in file-editing and
shell tools. HOST is claude, codex, gemini, opencode, copilot or qwen.
Existing files are merged, never replaced; --undo takes out exactly what
setup added.

`

// setupCommand is `whale-ls setup`.
func setupCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, setupUsage); fs.PrintDefaults() }
	list := fs.Bool("list", false, "list the hosts, the files setup writes for each and what it turns off")
	scope := fs.String("scope", "project", "whose configuration: project (the project folder's) or user (yours, for every project)")
	root := fs.String("root", "", "the project folder (default: the current folder)")
	command := fs.String("command", "", `the whale-ls the host starts (default: "whale-ls" when that is this program on PATH, else this program's path)`)
	dryRun := fs.Bool("dry-run", false, "print the files setup would write and their new content; write nothing")
	undo := fs.Bool("undo", false, "take out what setup added (a file untouched since comes back byte for byte)")
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		return exitUsage
	}
	if *list {
		hostsetup.List(stdout)
		return exitOK
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	host, err := hostsetup.Lookup(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls setup:", err)
		return exitUsage
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls setup:", err)
		return exitFailure
	}
	o := hostsetup.Options{Scope: hostsetup.Scope(*scope), Home: home, DryRun: *dryRun,
		StateDir: hostsetup.DefaultStateDir(home, os.Getenv)}
	if o.Scope != hostsetup.Project && o.Scope != hostsetup.User {
		fmt.Fprintf(stderr, "whale-ls setup: --scope must be project or user, not %q\n", *scope)
		return exitUsage
	}
	if *root == "" {
		*root, err = os.Getwd()
	} else {
		*root, err = filepath.Abs(*root)
	}
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls setup:", err)
		return exitFailure
	}
	if st, err := os.Stat(*root); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "whale-ls setup: the project folder %s is not a folder\n", *root)
		return exitUsage
	}
	o.Root = *root
	program := *command
	if program == "" {
		program = selfCommand()
	}
	o.Command = []string{program, "mcp"}
	if *undo {
		err = host.Undo(o, stdout)
	} else {
		err = host.Setup(o, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "whale-ls setup:", err)
		return exitFailure
	}
	return exitOK
}

// selfCommand is how a host should start this program: "whale-ls" when
// that name on PATH is this very program, else its absolute path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "whale-ls"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath("whale-ls"); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil && real == exe {
			return "whale-ls"
		}
	}
	return exe
}
