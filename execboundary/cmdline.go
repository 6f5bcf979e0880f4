package execboundary

import (
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// NamedProgram is one program a command line names, as a real shell parser
// (package shellcmd: mvdan.cc/sh/v3, Bash syntax) sees it before anything
// runs.
type NamedProgram struct {
	// Argv is the program and its arguments as written, unquoted; argv[0]
	// is the program ("rm", "./build.sh", "/usr/bin/git"). A word that is
	// not a literal (it holds $VAR, $(…), a glob, {a,b}, a leading ~) keeps
	// its source text.
	Argv []string
	// Via is how the command line reaches the program when it is not a
	// plain command: "sh -c", "xargs", "find -exec", "env", "eval" … ("" for
	// a plain command, a pipeline element or a command substitution).
	Via string
}

// Unjudged is a part of a command line whose program cannot be known before
// it runs: a program name built at run time ($CMD, $(…)), eval of a
// non-literal, a script sourced or run by path.
type Unjudged struct {
	// Text is the source text of the word or command.
	Text string
	// Why says what is not known.
	Why string
}

// CommandLine is what a command line names.
type CommandLine struct {
	Programs []NamedProgram
	Unjudged []Unjudged
	// ParseError is set when the text is not valid Bash syntax; Programs
	// then holds the first word of each part a simple split finds (between
	// |, ;, &&, ||, & and newlines), which is a guess.
	ParseError string
}

// maxNesting bounds sh -c / eval recursion.
const maxNesting = 8

// ParseCommandLine lists every program a command line names, through
// pipelines, lists, subshells, functions, $(…), backticks, process
// substitution, here-documents and redirections, the arguments of sh/bash
// -c and eval (parsed again, recursively), xargs, find -exec/-execdir/-ok,
// and the wrappers env, nice, nohup, time, command, exec, timeout, stdbuf,
// setsid, sudo and doas (the wrapper is named too). Shell builtins and
// functions the line defines are not programs and are left out.
//
// It does not see what runs later: programs a script, a Makefile or an
// interpreter starts, a program whose name is computed at run time (those
// are in Unjudged), or PATH changes the line itself makes.
func ParseCommandLine(command string) CommandLine {
	return ParseLine(shellcmd.ParseLine(command))
}

// ParseLine is ParseCommandLine of a command line already parsed (the
// command lines it finds inside, such as sh -c's, are parsed here).
func ParseLine(line *shellcmd.Line) CommandLine {
	var cl CommandLine
	w := &cmdWalker{out: &cl, funcs: map[string]bool{}}
	if line.Err != nil {
		cl.ParseError = line.Err.Error()
		cl.Programs = append(cl.Programs, splitGuess(line.Text)...)
		return cl
	}
	w.walk(line.Script, "", 0)
	return cl
}

type cmdWalker struct {
	out   *CommandLine
	funcs map[string]bool
}

func (w *cmdWalker) parse(src, via string, depth int) error {
	if depth > maxNesting {
		w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: src, Why: "nested too deeply to follow"})
		return nil
	}
	script, err := shellcmd.Parse(src)
	if err != nil {
		return err
	}
	w.walk(script, via, depth)
	return nil
}

// walk judges the programs of a parsed script found at depth (see parse).
func (w *cmdWalker) walk(script *shellcmd.Script, via string, depth int) {
	// Functions first, so that a call before its definition in the text is
	// still known as one.
	for _, name := range script.Funcs {
		w.funcs[name] = true
	}
	for _, c := range script.Commands {
		if len(c.Args) == 0 {
			continue
		}
		argv := make([]string, len(c.Args))
		lit := make([]bool, len(c.Args))
		for i, word := range c.Args {
			argv[i], lit[i] = word.Text, word.Literal()
		}
		w.argv(argv, lit, via, depth)
	}
}

// argv judges one argument vector: a builtin, a wrapper, a shell with -c,
// or a program.
func (w *cmdWalker) argv(argv []string, lit []bool, via string, depth int) {
	if len(argv) == 0 {
		return
	}
	if !lit[0] {
		w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: strings.Join(argv, " "), Why: "the program name is computed when the command runs"})
		return
	}
	name := argv[0]
	if w.funcs[name] {
		return
	}
	switch name {
	case "eval":
		src := strings.Join(argv[1:], " ")
		if !allTrue(lit[1:]) {
			w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: strings.Join(argv, " "), Why: "eval of text computed when the command runs"})
			return
		}
		w.nested(src, "eval", depth)
		return
	case "source", ".":
		if len(argv) > 1 {
			w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: strings.Join(argv, " "), Why: "a sourced script's commands are not checked"})
		}
		return
	case "exec", "command", "builtin":
		rest, ok := skipOptions(argv[1:], wrapperOptions[name])
		if name == "command" && hasAny(argv[1:len(argv)-len(rest)], "-v", "-V") {
			return // lookup only
		}
		if ok && len(rest) > 0 {
			w.argv(rest, lit[len(argv)-len(rest):], name, depth)
		}
		return
	}
	if shellBuiltins[name] {
		return
	}
	w.out.Programs = append(w.out.Programs, NamedProgram{Argv: argv, Via: via})
	base := filepath.Base(name)
	switch {
	case shellNames[base]:
		if script, ok := dashC(argv[1:]); ok {
			if !lit[len(argv)-len(script.rest)-1] {
				w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: strings.Join(argv, " "), Why: base + " -c of text computed when the command runs"})
				return
			}
			w.nested(script.text, base+" -c", depth)
		} else if len(argv) > 1 && !strings.HasPrefix(argv[1], "-") {
			w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: strings.Join(argv, " "), Why: "the commands of a script run by " + base + " are not checked"})
		}
	case base == "xargs":
		rest, ok := skipOptions(argv[1:], wrapperOptions["xargs"])
		if ok {
			if len(rest) == 0 {
				rest = []string{"echo"}
				w.argv(rest, []bool{true}, "xargs", depth)
				return
			}
			w.argv(rest, lit[len(argv)-len(rest):], "xargs", depth)
		}
	case base == "find":
		for i := 1; i < len(argv); i++ {
			switch argv[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(argv) && argv[j] != ";" && argv[j] != "+" {
					j++
				}
				w.argv(argv[i+1:j], lit[i+1:j], "find "+argv[i], depth)
				i = j
			}
		}
	default:
		if opts, ok := wrapperOptions[base]; ok {
			rest, ok := skipOptions(argv[1:], opts)
			if !ok || len(rest) == 0 {
				return
			}
			off := len(argv) - len(rest)
			if base == "env" {
				for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
					rest, off = rest[1:], off+1
				}
			}
			if base == "timeout" && len(rest) > 0 {
				rest, off = rest[1:], off+1 // the duration
			}
			w.argv(rest, lit[off:], base, depth)
		}
	}
}

func (w *cmdWalker) nested(src, via string, depth int) {
	if err := w.parse(src, via, depth+1); err != nil {
		w.out.Unjudged = append(w.out.Unjudged, Unjudged{Text: src, Why: via + " text that is not valid shell syntax: " + err.Error()})
	}
}

type shellScript struct {
	text string
	rest []string // the arguments after the script ($0, $1, …)
}

// dashC finds the script of `sh [options] -c SCRIPT [ARG…]`; options may be
// grouped ("-ec", "-lc").
func dashC(args []string) (shellScript, bool) {
	for i, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return shellScript{}, false
		}
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
			continue
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			if i+1 < len(args) {
				return shellScript{text: args[i+1], rest: args[i+2:]}, true
			}
			return shellScript{}, false
		}
	}
	return shellScript{}, false
}

// wrapperOptions lists, per wrapper, the options that take a separate
// value; the wrapper's command starts at its first non-option word.
var wrapperOptions = map[string][]string{
	"env":     {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
	"nice":    {"-n", "--adjustment"},
	"nohup":   {},
	"time":    {"-f", "--format", "-o", "--output"},
	"command": {},
	"builtin": {},
	"exec":    {"-a"},
	"timeout": {"-k", "--kill-after", "-s", "--signal"},
	"stdbuf":  {"-i", "-o", "-e"},
	"setsid":  {},
	"sudo":    {"-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"},
	"doas":    {"-u", "-C"},
	"xargs":   {"-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"},
	"ionice":  {"-c", "--class", "-n", "--classdata", "-p"},
	"chrt":    {},
	"taskset": {},
}

// skipOptions drops leading options (and the values of those in valued);
// ok is false when the words end inside an option's value.
func skipOptions(args []string, valued []string) (rest []string, ok bool) {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return args[1:], true
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return args, true
		}
		args = args[1:]
		if strings.Contains(a, "=") {
			continue
		}
		for _, v := range valued {
			if a == v {
				if len(args) == 0 {
					return nil, false
				}
				args = args[1:]
				break
			}
		}
	}
	return nil, true
}

func hasAny(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o {
				return true
			}
		}
	}
	return false
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// shellNames are the shells whose -c argument is parsed again.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "busybox": false}

// shellBuiltins never execute a program (eval, exec, command, source and
// time are handled apart).
var shellBuiltins = map[string]bool{
	":": true, "true": true, "false": true, "cd": true, "pwd": true, "echo": true, "printf": true,
	"export": true, "unset": true, "set": true, "shift": true, "read": true, "local": true,
	"declare": true, "typeset": true, "readonly": true, "return": true, "exit": true, "break": true,
	"continue": true, "test": true, "[": true, "alias": true, "unalias": true, "type": true,
	"hash": true, "wait": true, "trap": true, "umask": true, "ulimit": true, "jobs": true,
	"bg": true, "fg": true, "kill": true, "let": true, "getopts": true, "pushd": true, "popd": true,
	"dirs": true, "shopt": true, "history": true, "disown": true, "suspend": true, "times": true,
	"caller": true, "enable": true, "help": true, "mapfile": true, "readarray": true, "compgen": true,
	"complete": true, "bind": true,
}

// splitGuess is the fallback for text that does not parse: the first word of
// each part between |, ;, &, && and || and newlines.
func splitGuess(command string) []NamedProgram {
	var out []NamedProgram
	f := func(r rune) bool { return r == '|' || r == ';' || r == '&' || r == '\n' }
	for _, part := range strings.FieldsFunc(command, f) {
		fields := strings.Fields(part)
		for len(fields) > 0 && strings.Contains(fields[0], "=") {
			fields = fields[1:]
		}
		if len(fields) > 0 {
			out = append(out, NamedProgram{Argv: fields, Via: "guess"})
		}
	}
	return out
}
