package terminal

import (
	"path"
	"slices"
	"strings"

	"github.com/whale-ls/whale-ls/shellcmd"
)

// CommandKind is how a command line is classified for the transport and the
// foreground wait. It comes from the text alone, so it is a guess.
type CommandKind struct {
	// Interactive: some part of the command wants a terminal or may ask for
	// credentials (sudo, ssh, an editor, a pager, a REPL, …).
	Interactive bool
	// LongRunning: some part is a dev server or a watcher that normally
	// does not exit.
	LongRunning bool
}

// Classify looks at every simple command of a command line (as package
// shellcmd parses it, also inside $(…) and subshells; split at ;, &, |, &&,
// || and newlines when it does not parse) after leading assignments and
// wrappers such as env, nohup, time and timeout.
func Classify(command string) CommandKind {
	return ClassifyLine(shellcmd.ParseLine(command))
}

// ClassifyLine is Classify of a command line already parsed.
func ClassifyLine(line *shellcmd.Line) CommandKind {
	var k CommandKind
	for _, seg := range simpleCommands(line) {
		words := stripWrappers(seg)
		if len(words) == 0 {
			continue
		}
		prog := path.Base(words[0])
		args := words[1:]
		if isInteractive(prog, args) {
			k.Interactive = true
		}
		if isLongRunning(prog, args) {
			k.LongRunning = true
		}
	}
	return k
}

// simpleCommands are the words of each simple command of a command line;
// text that does not parse (often a command still being written) is split
// by splitSegments.
func simpleCommands(line *shellcmd.Line) [][]string {
	script, err := line.Script, line.Err
	if err != nil {
		return splitSegments(line.Text)
	}
	var out [][]string
	for _, c := range script.Commands {
		if len(c.Args) == 0 {
			continue
		}
		words := make([]string, len(c.Args))
		for i, w := range c.Args {
			words[i] = w.Text
		}
		out = append(out, words)
	}
	return out
}

// splitSegments splits a command line into the words of its simple
// commands. Quotes are honoured; anything else unusual is treated as text.
func splitSegments(s string) [][]string {
	var segs [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	endSeg := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
		}
		words = nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				w.WriteByte(s[i])
				i++
			}
			inWord = true
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
					inWord = true
				}
			}
		case ' ', '\t':
			endWord()
		case ';', '&', '|', '\n', '(', ')', '`':
			endSeg()
		case '$':
			if i+1 < len(s) && s[i+1] == '(' {
				endSeg()
				i++
			} else {
				w.WriteByte(c)
				inWord = true
			}
		case '<', '>':
			// A redirection: skip its target.
			endWord()
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '&' || s[i+1] == '|') {
				i++
			}
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
				i++
			}
			for i+1 < len(s) && !strings.ContainsRune(" \t;&|\n()", rune(s[i+1])) {
				i++
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	endSeg()
	return segs
}

// stripWrappers drops leading NAME=value words and commands that run
// another command (env, nohup, time, nice, timeout, exec, command, …).
func stripWrappers(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		if i := strings.IndexByte(w, '='); i > 0 && !strings.ContainsAny(w[:i], "/-") {
			words = words[1:]
			continue
		}
		switch path.Base(w) {
		case "env", "nohup", "time", "nice", "exec", "command", "builtin", "stdbuf", "setsid", "ionice", "caffeinate", "xargs":
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "/"))) {
				words = words[1:]
			}
			continue
		case "timeout":
			words = words[1:]
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
			if len(words) > 0 {
				words = words[1:] // the duration
			}
			continue
		}
		return words
	}
	return nil
}

// operands are the arguments that are not flags.
func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || (strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=")) {
				return true
			}
			// Combined short flags: -it contains -i and -t.
			if len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

var alwaysInteractive = set("sudo", "su", "doas", "pkexec", "passwd", "ssh", "sftp", "scp", "telnet", "ftp",
	"ssh-keygen", "ssh-add", "ssh-copy-id", "gpg", "mysql", "mariadb", "psql", "mongo", "mongosh", "redis-cli",
	"vim", "vi", "nvim", "view", "nano", "pico", "emacs", "micro", "ed", "less", "more", "most", "man", "info",
	"top", "htop", "btop", "atop", "iotop", "tmux", "screen", "mc", "ranger", "fzf", "tig", "lazygit", "dialog",
	"whiptail", "login", "chsh", "chfn", "visudo", "vipw", "crontab", "expect")

// REPLs: interactive when started without a script or code argument.
var repls = set("python", "python2", "python3", "ipython", "node", "deno", "bun", "irb", "pry", "ghci", "lua",
	"luajit", "R", "julia", "scala", "clojure", "clj", "erl", "iex", "racket", "guile", "sbcl", "ocaml", "utop",
	"bash", "sh", "zsh", "fish", "dash", "ksh", "perl", "php", "sqlite3", "bc", "dc", "gdb", "lldb", "pdb")

func isInteractive(prog string, args []string) bool {
	if alwaysInteractive[prog] {
		return true
	}
	if repls[prog] || strings.HasPrefix(prog, "python3.") {
		if hasFlag(args, "-i", "-a") && prog != "bash" {
			return true
		}
		if hasFlag(args, "-c", "-e", "-m", "-p", "--eval", "--print", "-r", "--version", "-V", "-v", "--help", "-h") {
			return false
		}
		if prog == "sqlite3" {
			return len(operands(args)) <= 1
		}
		if prog == "deno" || prog == "bun" {
			return len(args) == 0 || args[0] == "repl"
		}
		return len(operands(args)) == 0
	}
	sub := ""
	if ops := operands(args); len(ops) > 0 {
		sub = ops[0]
	}
	switch prog {
	case "git":
		switch sub {
		case "push", "pull", "fetch", "clone", "ls-remote", "submodule":
			return true
		case "commit", "merge", "tag":
			return !hasFlag(args, "-m", "--message", "-F", "--file", "--no-edit", "-l", "--list", "-d", "--delete") && (sub != "merge" || hasFlag(args, "--edit", "-e"))
		case "rebase", "add", "checkout", "reset", "restore", "stash":
			return hasFlag(args, "-i", "--interactive", "-p", "--patch")
		}
	case "docker", "podman", "kubectl", "nerdctl":
		if sub == "exec" || sub == "run" || sub == "attach" {
			return hasFlag(args, "-t", "--tty", "-it", "-ti") || sub == "attach"
		}
		if sub == "login" {
			return true
		}
	case "npm", "pnpm", "yarn":
		return sub == "login" || sub == "adduser" || sub == "init" && !hasFlag(args, "-y", "--yes")
	case "gh":
		return sub == "auth"
	}
	return false
}

// devScripts are package scripts that by convention start a dev server or
// a watcher.
var devScripts = set("dev", "start", "watch", "serve", "server", "preview", "develop")

// invocation is one simple command as the long-running rules see it.
type invocation struct {
	prog string   // the program's base name
	args []string // its arguments
	ops  []string // the arguments that are not flags
	sub  string   // the first operand (usually a subcommand), or ""
}

func (c invocation) flag(flags ...string) bool { return hasFlag(c.args, flags...) }

// subIn is a rule: the first operand is one of subs ("" for none).
func subIn(subs ...string) func(invocation) bool {
	return func(c invocation) bool {
		for _, s := range subs {
			if c.sub == s {
				return true
			}
		}
		return false
	}
}

// withFlag is a rule: one of flags is given.
func withFlag(flags ...string) func(invocation) bool {
	return func(c invocation) bool { return c.flag(flags...) }
}

// longRunningRules say which programs are dev servers or watchers that
// normally do not exit: progs is a space-separated list of program names,
// when the arguments that make them so (nil: any arguments). A program
// stands in one row at most. The package runners (npx, pnpx, bunx) are
// judged by the program they run.
var longRunningRules = []struct {
	progs string
	when  func(invocation) bool
}{
	{"nodemon air reflex entr http-server live-server serve browser-sync watch watchexec modd", nil},
	{"uvicorn gunicorn hypercorn daphne puma unicorn caddy webpack-dev-server", nil},
	{"flask streamlit jupyter jupyter-lab jupyter-notebook celery", nil},
	{"npm pnpm yarn bun", packageScriptRuns},
	{"vite", subIn("", "dev", "serve", "preview")},
	{"next nuxt nuxi astro remix gatsby svelte-kit ng", subIn("dev", "start", "develop", "serve", "preview")},
	{"webpack", func(c invocation) bool { return c.sub == "serve" || c.flag("--watch", "-w") }},
	{"tsc rollup esbuild babel sass tailwindcss jest", withFlag("--watch", "-w", "--serve", "--servedir")},
	{"vitest", func(c invocation) bool { return c.sub != "run" || c.flag("--watch", "-w", "--serve", "--servedir") }},
	{"go", goRunsServer},
	{"python python3 python2", pythonServes},
	{"rails", subIn("server", "s")},
	{"php", func(c invocation) bool {
		return c.flag("-S") || (len(c.ops) > 1 && c.ops[0] == "artisan" && c.ops[1] == "serve")
	}},
	{"hugo", subIn("server", "serve")},
	{"jekyll mkdocs zola eleventy", func(c invocation) bool { return c.sub == "serve" || c.flag("--serve", "--watch") }},
	{"tail", withFlag("-f", "-F", "--follow")},
	{"journalctl", withFlag("-f", "--follow")},
	{"docker podman docker-compose podman-compose kubectl", containerRunsInForeground},
	{"cargo", subIn("watch")},
	{"dotnet", subIn("watch", "run")},
	{"ping", func(c invocation) bool { return !c.flag("-c", "-w") }},
	{"inotifywait", withFlag("-m", "--monitor")},
}

// longRunningPrograms indexes longRunningRules by program name.
var longRunningPrograms = func() map[string]func(invocation) bool {
	m := map[string]func(invocation) bool{}
	for _, r := range longRunningRules {
		for _, p := range strings.Fields(r.progs) {
			m[p] = r.when
		}
	}
	return m
}()

// packageRunners run the package named by their first operand.
var packageRunners = set("npx", "pnpx", "bunx")

func isLongRunning(prog string, args []string) bool {
	if packageRunners[prog] {
		ops := operands(args)
		return len(ops) > 0 && isLongRunning(path.Base(ops[0]), args[1:])
	}
	when, ok := longRunningPrograms[prog]
	if !ok {
		return false
	}
	if when == nil {
		return true
	}
	c := invocation{prog: prog, args: args, ops: operands(args)}
	if len(c.ops) > 0 {
		c.sub = c.ops[0]
	}
	return when(c)
}

// packageScriptRuns: npm, pnpm, yarn or bun starts a dev script (npm only
// through run or start; the others also by the script's name alone).
func packageScriptRuns(c invocation) bool {
	if c.sub == "run" || c.sub == "run-script" {
		return len(c.ops) > 1 && (devScripts[c.ops[1]] || strings.HasSuffix(c.ops[1], ":watch") || strings.HasSuffix(c.ops[1], ":dev"))
	}
	return c.sub == "start" || (c.prog != "npm" && devScripts[c.sub])
}

// goRunsServer: go run of something whose name says server, API, web or
// daemon.
func goRunsServer(c invocation) bool {
	if c.sub != "run" {
		return false
	}
	for _, a := range c.ops[1:] {
		l := strings.ToLower(a)
		if strings.Contains(l, "serv") || strings.Contains(l, "api") || strings.Contains(l, "web") || strings.Contains(l, "daemon") {
			return true
		}
	}
	return false
}

// pythonServes: python -m of a server module, or a Django runserver.
func pythonServes(c invocation) bool {
	if i := indexOf(c.args, "-m"); i >= 0 && i+1 < len(c.args) {
		switch c.args[i+1] {
		case "http.server", "SimpleHTTPServer", "uvicorn", "gunicorn", "flask", "streamlit", "jupyter", "celery", "mkdocs", "django":
			return true
		}
	}
	return slices.Contains(c.ops, "runserver")
}

// containerRunsInForeground: compose up without -d, logs -f, run with
// published ports and without -d, port-forward and proxy.
func containerRunsInForeground(c invocation) bool {
	switch {
	case c.sub == "compose" && len(c.ops) > 1 && c.ops[1] == "up", c.prog == "docker-compose" && c.sub == "up", c.prog == "podman-compose" && c.sub == "up":
		return !c.flag("-d", "--detach")
	case c.sub == "logs":
		return c.flag("-f", "--follow")
	case c.sub == "run":
		return c.flag("-p", "--publish") && !c.flag("-d", "--detach")
	case c.sub == "port-forward", c.sub == "proxy":
		return true
	}
	return false
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
