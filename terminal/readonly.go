package terminal

import "strings"

// IsReadOnlyCommand reports whether command is, beyond doubt from its text,
// a single simple command that only reads: a program on a fixed read-only
// list, given as a bare name, with arguments that do not make it write or run
// other programs. Anything the tokenizer cannot judge statically makes it
// false: $, backquotes, ;, |, &, redirections, parentheses, braces, a
// backslash, a leading assignment, a comment, unbalanced quotes, and glob
// characters for programs whose options could come from file names. It is a
// conservative hint for policies and confirmations, never a sandbox: false
// does not mean the command writes.
func IsReadOnlyCommand(command string) bool {
	words, globbed, ok := tokenizeStrict(command)
	if !ok || len(words) == 0 {
		return false
	}
	prog := words[0]
	if strings.ContainsAny(prog, "/=") || globbed[0] {
		return false
	}
	check, known := readOnlyPrograms[prog]
	if !known {
		return false
	}
	if !globSafe[prog] {
		for _, g := range globbed {
			if g {
				return false
			}
		}
	}
	return check == nil || check(words[1:])
}

// tokenizeStrict splits a command into words, refusing every construct whose
// effect is not visible in the text itself. globbed[i] says word i holds an
// unquoted glob character.
func tokenizeStrict(s string) (words []string, globbed []bool, ok bool) {
	var w strings.Builder
	inWord, glob := false, false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			globbed = append(globbed, glob)
			w.Reset()
			inWord, glob = false, false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, nil, false
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, nil, false
			}
			inner := s[i+1 : i+1+j]
			if strings.ContainsAny(inner, "$`\\!") {
				return nil, nil, false
			}
			w.WriteString(inner)
			inWord = true
			i += j + 1
		case strings.IndexByte("$`;|&<>(){}\\\n\r!", c) >= 0:
			return nil, nil, false
		case c == '#' && !inWord:
			return nil, nil, false
		case c == '~' && !inWord:
			return nil, nil, false
		case c == '*' || c == '?' || c == '[':
			glob = true
			w.WriteByte(c)
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, globbed, true
}

// globSafe programs take no option that could write or run something, so
// file names from a glob cannot hurt.
var globSafe = set("ls", "cat", "head", "wc", "stat", "file", "du", "md5sum", "sha1sum", "sha256sum",
	"sha512sum", "b2sum", "cksum", "nl", "basename", "dirname", "realpath", "readlink", "echo", "tac", "rev")

func noOperands(args []string) bool { return len(operands(args)) == 0 }

func noneOf(flags ...string) func([]string) bool {
	return func(args []string) bool { return !hasFlag(args, flags...) }
}

// readOnlyPrograms maps each program to a check of its arguments; nil
// accepts any arguments.
var readOnlyPrograms = map[string]func([]string) bool{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil, "echo": nil,
	"basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "stat": nil, "file": nil,
	"du": nil, "df": nil, "whoami": nil, "id": nil, "groups": nil, "uname": nil, "uptime": nil,
	"nproc": nil, "free": nil, "which": nil, "true": nil, "false": nil, "diff": nil, "cmp": nil,
	"comm": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil, "b2sum": nil,
	"cksum": nil, "nl": nil, "od": nil, "hexdump": nil, "strings": nil, "column": nil, "fold": nil,
	"expand": nil, "ps": nil, "printenv": nil, "locale": nil, "tty": nil, "arch": nil, "cut": nil,
	"paste": nil, "rev": nil, "tac": nil, "seq": nil, "jq": nil, "grep": nil, "egrep": nil,
	"fgrep": nil, "test": nil, "lsblk": nil, "type": nil,
	"tree":     noneOf("-o"),
	"rg":       noneOf("--pre", "--search-zip", "-z"),
	"sort":     noneOf("-o", "--output", "--compress-program"),
	"uniq":     func(a []string) bool { return len(operands(a)) <= 1 },
	"xxd":      func(a []string) bool { return len(operands(a)) <= 1 && !hasFlag(a, "-r", "-revert") },
	"env":      func(a []string) bool { return len(a) == 0 },
	"hostname": noOperands,
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
