package terminal

import (
	"strings"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// IsReadOnlyCommand reports whether command is, beyond doubt from its text,
// made only of commands that only read. It is parsed by package shellcmd
// (the parser the exec boundary lists programs with) and true only when
//   - it parses as Bash, and is nothing but simple commands joined by ;,
//     &&, ||, |, |& and newlines, maybe negated with ! or grouped in ( … )
//     or { …; } (no background job, loop, condition, function, [[ ]] …);
//   - every simple command is a program on a fixed read-only list, given as
//     a bare name, without NAME=value prefixes, with arguments that do not
//     make it write or run other programs;
//   - no word expands ($VAR, $(…), `…`, <(…), $'…', {a,b}, ~, extglobs),
//     and an unquoted glob is only given to programs whose options could
//     not come from file names;
//   - every redirection only reads a file (<), duplicates or closes a
//     descriptor (2>&1, >&-), writes to /dev/null, or is a here-string or
//     here-document without expansions.
//
// Anything else (a parse error, a redirection to a file, an unknown
// program, eval, a variable as the command name, …) makes it false. It is a
// conservative hint for policies and confirmations, never a sandbox: false
// does not mean the command writes.
func IsReadOnlyCommand(command string) bool {
	return IsReadOnly(shellcmd.ParseLine(command))
}

// IsReadOnly is IsReadOnlyCommand of a command line already parsed.
func IsReadOnly(line *shellcmd.Line) bool {
	script, err := line.Script, line.Err
	if err != nil || len(script.Commands) == 0 || len(script.Constructs) > 0 || len(script.Funcs) > 0 {
		return false
	}
	for _, r := range script.Redirects {
		if !readOnlyRedirect(r) {
			return false
		}
	}
	for _, c := range script.Commands {
		if !readOnlySimpleCommand(c) {
			return false
		}
	}
	return true
}

// readOnlySimpleCommand judges one simple command.
func readOnlySimpleCommand(c shellcmd.Command) bool {
	if len(c.Args) == 0 || len(c.Assigns) > 0 {
		return false
	}
	prog := c.Args[0]
	if !prog.Literal() || strings.ContainsAny(prog.Text, "/=") {
		return false
	}
	check, known := readOnlyPrograms[prog.Text]
	if !known {
		return false
	}
	args := make([]string, len(c.Args)-1)
	for i, w := range c.Args[1:] {
		if w.Expands || w.Glob && !globSafe[prog.Text] {
			return false
		}
		args[i] = w.Text
	}
	return check == nil || check(args)
}

// readOnlyRedirect: a redirection that reads, duplicates or closes a
// descriptor, discards output, or feeds fixed text.
func readOnlyRedirect(r shellcmd.Redirect) bool {
	if r.Fd != "" && !allDigits(r.Fd) {
		return false // {var}>… assigns a variable
	}
	if !r.Target.Literal() {
		return false
	}
	switch r.Op {
	case "<":
		// bash opens /dev/tcp/HOST/PORT and /dev/udp/… itself: a connection
		return !strings.HasPrefix(r.Target.Text, "/dev/tcp/") && !strings.HasPrefix(r.Target.Text, "/dev/udp/")
	case "<&", ">&":
		return r.Target.Text == "-" || allDigits(r.Target.Text)
	case ">", ">>", ">|", "&>", "&>>":
		return r.Target.Text == "/dev/null"
	case "<<", "<<-":
		return r.Body != nil && !r.Body.Expands
	case "<<<":
		return true
	}
	return false // <> opens the file for writing too
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// globSafe programs take no option that could write or run something, so
// file names from a glob cannot hurt.
var globSafe = set("ls", "cat", "head", "wc", "stat", "du", "md5sum", "sha1sum", "sha256sum",
	"sha512sum", "b2sum", "cksum", "nl", "basename", "dirname", "realpath", "readlink", "echo", "tac", "rev")

func noOperands(args []string) bool { return len(operands(args)) == 0 }

func noneOf(flags ...string) func([]string) bool {
	return func(args []string) bool { return !hasFlag(args, flags...) }
}

// readOnlyPrograms maps each program to a check of its arguments; nil
// accepts any arguments.
var readOnlyPrograms = map[string]func([]string) bool{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil, "echo": nil,
	"basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "stat": nil,
	"du": nil, "df": nil, "whoami": nil, "id": nil, "groups": nil, "uname": nil, "uptime": nil,
	"nproc": nil, "free": nil, "which": nil, "true": nil, "false": nil, "diff": nil, "cmp": nil,
	"comm": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil, "b2sum": nil,
	"cksum": nil, "nl": nil, "od": nil, "hexdump": nil, "strings": nil, "column": nil, "fold": nil,
	"expand": nil, "ps": nil, "printenv": nil, "locale": nil, "tty": nil, "arch": nil, "cut": nil,
	"paste": nil, "rev": nil, "tac": nil, "seq": nil, "jq": nil, "grep": nil, "egrep": nil,
	"fgrep": nil, "test": nil, "lsblk": nil, "type": nil,
	"tree":     noneOf("-o"),
	"file":     noneOf("-C", "--compile"), // -C writes a compiled magic file
	"rg":       noneOf("--pre", "--search-zip", "-z"),
	"sort":     noneOf("-o", "--output", "--compress-program"),
	"uniq":     func(a []string) bool { return len(operands(a)) <= 1 },
	"xxd":      func(a []string) bool { return len(operands(a)) <= 1 && !hasFlag(a, "-r", "-revert") },
	"env":      func(a []string) bool { return len(a) == 0 },
	"hostname": func(a []string) bool { return noOperands(a) && !hasFlag(a, "-F", "--file", "-b", "--boot") },
	"date": func(a []string) bool {
		if hasFlag(a, "-s", "--set") {
			return false
		}
		for _, op := range operands(a) {
			if !strings.HasPrefix(op, "+") {
				return false
			}
		}
		return true
	},
	"find": noneOf("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
	"git":  gitReadOnly,
	"go": func(a []string) bool {
		if len(a) == 0 {
			return false
		}
		switch a[0] {
		case "version", "list", "doc":
			return true
		case "env":
			return !hasFlag(a[1:], "-w", "-u")
		}
		return false
	},
}

var gitReadOnlySubcommands = set("status", "log", "diff", "show", "blame", "ls-files", "ls-tree", "rev-parse",
	"describe", "shortlog", "grep", "cat-file", "rev-list", "version", "whatchanged", "show-ref", "merge-base")

func gitReadOnly(args []string) bool {
	// Global options: only -C DIR and --no-pager; -c could set a pager or
	// an external diff program.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "--no-pager", "-P":
			args = args[1:]
		case "-C":
			if len(args) < 2 {
				return false
			}
			args = args[2:]
		default:
			return false
		}
	}
	if len(args) == 0 {
		return false
	}
	sub, rest := args[0], args[1:]
	if hasFlag(rest, "--output", "--ext-diff", "--textconv", "--open-files-in-pager", "-O") {
		return false
	}
	switch {
	case gitReadOnlySubcommands[sub]:
		return true
	case sub == "branch":
		return noOperands(rest) && !hasFlag(rest, "-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u",
			"--delete", "--move", "--copy", "--force", "--set-upstream-to", "--unset-upstream", "--edit-description", "--track")
	case sub == "tag":
		return len(rest) == 0 || (hasFlag(rest, "-l", "--list") && !hasFlag(rest, "-d", "--delete", "-a", "-s", "-f"))
	case sub == "remote":
		return len(rest) == 0 || (len(rest) == 1 && (rest[0] == "-v" || rest[0] == "--verbose"))
	case sub == "stash":
		return len(rest) > 0 && (rest[0] == "list" || rest[0] == "show")
	case sub == "worktree":
		return len(rest) > 0 && rest[0] == "list"
	case sub == "reflog":
		return len(rest) == 0 || rest[0] == "show" || strings.HasPrefix(rest[0], "-")
	case sub == "config":
		return len(rest) > 0 && (rest[0] == "--get" || rest[0] == "--get-all" || rest[0] == "--list" || rest[0] == "-l" || rest[0] == "--get-regexp")
	}
	return false
}
