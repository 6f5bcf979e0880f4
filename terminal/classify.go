package terminal

import (
	"path"
	"strings"
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

// Classify looks at every simple command of a command line (split at ;, &,
// |, &&, || and newlines) after leading assignments and wrappers such as env,
// nohup, time and timeout.
func Classify(command string) CommandKind {
	var k CommandKind
	for _, seg := range splitSegments(command) {
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

var devScripts = set("dev", "start", "watch", "serve", "server", "preview", "develop")

func isLongRunning(prog string, args []string) bool {
	ops := operands(args)
	sub := ""
	if len(ops) > 0 {
		sub = ops[0]
	}
	switch prog {
	case "npm", "pnpm", "yarn", "bun":
		if sub == "run" || sub == "run-script" {
			return len(ops) > 1 && (devScripts[ops[1]] || strings.HasSuffix(ops[1], ":watch") || strings.HasSuffix(ops[1], ":dev"))
		}
		return sub == "start" || (prog != "npm" && devScripts[sub])
	case "npx", "pnpx", "bunx":
		if len(ops) > 0 {
			return isLongRunning(path.Base(ops[0]), args[1:])
		}
	case "vite":
		return sub == "" || sub == "dev" || sub == "serve" || sub == "preview"
	case "next", "nuxt", "nuxi", "astro", "remix", "gatsby", "svelte-kit", "ng":
		return sub == "dev" || sub == "start" || sub == "develop" || sub == "serve" || sub == "preview"
	case "webpack", "webpack-dev-server":
		return sub == "serve" || prog == "webpack-dev-server" || hasFlag(args, "--watch", "-w")
	case "tsc", "rollup", "esbuild", "babel", "sass", "tailwindcss", "jest", "vitest":
		return hasFlag(args, "--watch", "-w", "--serve", "--servedir") || (prog == "vitest" && sub != "run")
	case "nodemon", "air", "reflex", "entr", "http-server", "live-server", "serve", "browser-sync",
		"uvicorn", "gunicorn", "hypercorn", "daphne", "puma", "unicorn", "caddy", "watch", "watchexec", "modd":
		return true
	case "go":
		if sub == "run" {
			for _, a := range ops[1:] {
				l := strings.ToLower(a)
				if strings.Contains(l, "serv") || strings.Contains(l, "api") || strings.Contains(l, "web") || strings.Contains(l, "daemon") {
					return true
				}
			}
		}
	case "python", "python3", "python2":
		if i := indexOf(args, "-m"); i >= 0 && i+1 < len(args) {
			switch args[i+1] {
			case "http.server", "SimpleHTTPServer", "uvicorn", "gunicorn", "flask", "streamlit", "jupyter", "celery", "mkdocs", "django":
				return true
			}
		}
		for _, a := range ops {
			if a == "runserver" {
				return true
			}
		}
	case "flask", "streamlit", "jupyter", "jupyter-lab", "jupyter-notebook", "celery":
		return true
	case "rails", "bin/rails":
		return sub == "server" || sub == "s"
	case "php":
		return hasFlag(args, "-S") || (len(ops) > 1 && ops[0] == "artisan" && ops[1] == "serve")
	case "hugo":
		return sub == "server" || sub == "serve"
	case "jekyll", "mkdocs", "zola", "eleventy":
		return sub == "serve" || hasFlag(args, "--serve", "--watch")
	case "tail":
		return hasFlag(args, "-f", "-F", "--follow")
	case "journalctl":
		return hasFlag(args, "-f", "--follow")
	case "docker", "podman", "docker-compose", "podman-compose", "kubectl":
		switch {
		case sub == "compose" && len(ops) > 1 && ops[1] == "up", prog == "docker-compose" && sub == "up", prog == "podman-compose" && sub == "up":
			return !hasFlag(args, "-d", "--detach")
		case sub == "logs":
			return hasFlag(args, "-f", "--follow")
		case sub == "run":
			return hasFlag(args, "-p", "--publish") && !hasFlag(args, "-d", "--detach")
		case sub == "port-forward", sub == "proxy":
			return true
		}
	case "cargo":
		return sub == "watch"
	case "dotnet":
		return sub == "watch" || sub == "run"
	case "ping":
		return !hasFlag(args, "-c", "-w")
	case "inotifywait":
		return hasFlag(args, "-m", "--monitor")
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
