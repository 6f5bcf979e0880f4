// Package shellcmd parses a shell command line once, with a real parser
// (mvdan.cc/sh/v3, Bash syntax), into what its callers judge: the simple
// commands the line runs, their words after quote removal, every
// redirection, and the constructs beyond plain lists and pipelines. The exec
// boundary lists the programs a line names from it (execboundary's
// ParseCommandLine) and the terminal decides from it whether a line only
// reads (terminal's IsReadOnlyCommand), so both see the same commands.
//
// Guarantees:
//   - Commands holds every simple command of the text in source order,
//     outer before inner: also those inside $(…), backticks, <(…),
//     subshells, groups, function bodies, loops, conditions, assignments and
//     here-documents.
//   - A Word is Literal only when its value is fixed by the text: no
//     parameter, command, arithmetic or process substitution, no $'…', no
//     unquoted glob or extglob, no brace expansion, no leading tilde and no
//     leading = (zsh runs =cmd as the path of cmd).
//   - Redirects holds every redirection, on simple commands and on compound
//     ones alike ({ …; } > f), with here-document bodies.
//   - Parse runs nothing and reads no file; it is safe on untrusted text.
//
// Not guaranteed:
//   - The syntax is Bash's. A line for another shell (zsh, fish) that Bash
//     reads differently is described as Bash would run it; text Bash cannot
//     parse is an error, which callers treat as "cannot judge".
//   - What a word that is not Literal becomes, and what aliases, exported
//     functions, PATH and the programs themselves do, is unknown here.
//   - The text given to sh -c, eval or a script is not parsed: a caller
//     that follows it calls Parse again.
package shellcmd

import (
	"errors"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Script is one parsed command line.
type Script struct {
	// Commands are the simple commands, in source order, outer before
	// inner (the command before the substitutions in its words).
	Commands []Command
	// Redirects are all redirections in source order.
	Redirects []Redirect
	// Funcs are the names of the functions the line defines.
	Funcs []string
	// Constructs names, in source order, what the line holds beyond simple
	// commands joined by ;, &, &&, ||, |, |&, newlines, ! and grouped by
	// ( … ) or { …; }: "if", "while", "until", "for", "select", "case",
	// "function", "((", "[[", "let", "time", "coproc", a declaration
	// builtin ("export", "declare", "local", …), "&" for a background job
	// and "|&"/"&!" for mksh coprocesses and zsh's disown.
	Constructs []string
}

// Command is one simple command.
type Command struct {
	// Args are the program and its arguments; empty when the command only
	// assigns variables.
	Args []Word
	// Assigns are the NAME=value words before the program, as source text.
	Assigns []string
}

// Word is one word of a command or redirection.
type Word struct {
	// Text is the value after quote removal; the parts that expand keep
	// their source text ("a$(b)c" for a$(b)c, "$1" for "$1").
	Text string
	// Expands: some part is computed when the line runs ($VAR, $(…), `…`,
	// $((…)), <(…), $'…', an extglob, {a,b}, a leading ~ or =).
	Expands bool
	// Glob: an unquoted *, ? or [ may make the shell replace the word with
	// file names (or drop it).
	Glob bool
}

// Literal reports whether the word's value is fixed by the text.
func (w Word) Literal() bool { return !w.Expands && !w.Glob }

// Redirect is one redirection.
type Redirect struct {
	// Fd is the descriptor written before the operator ("2" in 2>&1, "{fd}"
	// in {fd}>f); "" when none is written.
	Fd string
	// Op is the operator: ">", ">>", "<", "<>", "<&", ">&", ">|", "<<",
	// "<<-", "<<<", "&>", "&>>".
	Op string
	// Target is the file, the descriptor ("1" in 2>&1, "-" to close), the
	// here-string, or a here-document's delimiter.
	Target Word
	// Body is a here-document's body (never Glob: bodies are not globbed);
	// nil for other operators.
	Body *Word
}

// Line is a command line with its one parse, handed from the tool that
// runs it to each of its readers (the read-only classifier, the terminal's
// kind, the exec boundary's pre-check), so that one shell_run parses its
// command once.
type Line struct {
	// Text is the command line as parsed.
	Text string
	// Script is Parse's result; nil when Err is set.
	Script *Script
	// Err is Parse's error.
	Err error
}

// ParseLine parses text (Parse) and keeps the text and the result.
func ParseLine(text string) *Line {
	s, err := Parse(text)
	return &Line{Text: text, Script: s, Err: err}
}

// Of returns l's parse when l is a parse of text, else a new parse of text:
// a reader given a parse of another text does not trust it.
func Of(l *Line, text string) *Line {
	if l != nil && l.Text == text {
		return l
	}
	return ParseLine(text)
}

// Parse parses command as Bash. A command with a NUL byte is refused: no
// program can be given one in its arguments, and the parser's reading of
// it (it drops the byte) is not what a shell would run.
func Parse(command string) (*Script, error) {
	if strings.IndexByte(command, 0) >= 0 {
		return nil, errors.New("the command line holds a NUL byte")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, err
	}
	s := &Script{}
	elses := map[syntax.Node]bool{} // the elif and else parts of an if
	syntax.Walk(f, func(n syntax.Node) bool {
		if name := construct(n); name != "" && !elses[n] {
			s.Constructs = append(s.Constructs, name)
		}
		switch n := n.(type) {
		case *syntax.IfClause:
			if n.Else != nil {
				elses[n.Else] = true
			}
		case *syntax.CallExpr:
			var c Command
			for _, w := range n.Args {
				c.Args = append(c.Args, word(w))
			}
			for _, a := range n.Assigns {
				c.Assigns = append(c.Assigns, nodeText(a))
			}
			s.Commands = append(s.Commands, c)
		case *syntax.Redirect:
			r := Redirect{Op: n.Op.String(), Target: word(n.Word)}
			if n.N != nil {
				r.Fd = n.N.Value
			}
			if n.Hdoc != nil {
				body := word(n.Hdoc)
				body.Glob = false
				body.Text = hdocText(n.Hdoc)
				r.Body = &body
			}
			s.Redirects = append(s.Redirects, r)
		case *syntax.FuncDecl:
			if n.Name != nil {
				s.Funcs = append(s.Funcs, n.Name.Value)
			}
		}
		return true
	})
	return s, nil
}

// construct names the construct n is (see Script.Constructs), or "" for
// a simple command, a list, a pipeline, a subshell, a group and the rest.
func construct(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.Stmt:
		switch {
		case n.Background:
			return "&"
		case n.Coprocess:
			return "|&"
		case n.Disown:
			return "&!"
		}
	case *syntax.FuncDecl:
		return "function"
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		if n.Until {
			return "until"
		}
		return "while"
	case *syntax.ForClause:
		if n.Select {
			return "select"
		}
		return "for"
	case *syntax.CaseClause:
		return "case"
	case *syntax.ArithmCmd:
		return "(("
	case *syntax.TestClause:
		return "[["
	case *syntax.DeclClause:
		return n.Variant.Value
	case *syntax.LetClause:
		return "let"
	case *syntax.TimeClause:
		return "time"
	case *syntax.CoprocClause:
		return "coproc"
	case *syntax.TestDecl:
		return "@test"
	}
	return ""
}

// word describes w: its value after quote removal when that is fixed, and
// what may change it when the line runs.
func word(w *syntax.Word) Word {
	var out Word
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && len(p.Value) > 0 && (p.Value[0] == '~' || p.Value[0] == '=' && len(p.Value) > 1) {
				out.Expands = true
			}
			if hasGlob(p.Value) {
				out.Glob = true
			}
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				out.Expands = true
				b.WriteString("$'" + p.Value + "'")
				continue
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
					continue
				}
				out.Expands = true
				b.WriteString(nodeText(q))
			}
		default:
			out.Expands = true
			b.WriteString(nodeText(p))
		}
	}
	braces := *w
	braces.Parts = slices.Clone(w.Parts) // SplitBraces replaces the parts
	if syntax.SplitBraces(&braces) && slices.ContainsFunc(braces.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	}) {
		out.Expands = true
	}
	out.Text = b.String()
	return out
}

// hasGlob reports whether an unquoted literal holds an unescaped *, ? or [.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescape removes the backslashes of an unquoted (or double-quoted) literal.
func unescape(s string, dq bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			if n == '\n' {
				i++
				continue
			}
			if !dq || strings.IndexByte("$`\"\\", n) >= 0 {
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// hdocText is a here-document body as the command reads it when it holds
// no expansion: the text as written (a quoted delimiter keeps backslashes).
func hdocText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		b.WriteString(nodeText(p))
	}
	return b.String()
}

func nodeText(n syntax.Node) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, n)
	return b.String()
}
