package shellcmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCommands(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []Command
	}{
		{"ls -la", []Command{{Args: []Word{{Text: "ls"}, {Text: "-la"}}}}},
		{`'r''m' "a b" \; c\ d`, []Command{{Args: []Word{{Text: "rm"}, {Text: "a b"}, {Text: ";"}, {Text: "c d"}}}}},
		{"FOO=1 make", []Command{{Args: []Word{{Text: "make"}}, Assigns: []string{"FOO=1"}}}},
		{"echo $(id -u) | wc", []Command{
			{Args: []Word{{Text: "echo"}, {Text: "$(id -u)", Expands: true}}},
			{Args: []Word{{Text: "id"}, {Text: "-u"}}},
			{Args: []Word{{Text: "wc"}}},
		}},
		{`ls *.go '*.c' \*.h {a,b} ~ =x "$HOME" $'\n' a{b`, []Command{{Args: []Word{
			{Text: "ls"}, {Text: "*.go", Glob: true}, {Text: "*.c"}, {Text: "*.h"}, {Text: "{a,b}", Expands: true},
			{Text: "~", Expands: true}, {Text: "=x", Expands: true}, {Text: "$HOME", Expands: true},
			{Text: `$'\n'`, Expands: true}, {Text: "a{b"},
		}}}},
		{"X=$(git push)", []Command{{Assigns: []string{"X=$(git push)"}}, {Args: []Word{{Text: "git"}, {Text: "push"}}}}},
	} {
		s, err := Parse(tc.command)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.command, err)
		}
		if diff := cmp.Diff(tc.want, s.Commands); diff != "" {
			t.Errorf("Parse(%q).Commands (-want +got):\n%s", tc.command, diff)
		}
	}
}

func TestParseRedirectsAndConstructs(t *testing.T) {
	for _, tc := range []struct {
		command    string
		redirects  []Redirect
		constructs []string
	}{
		{"ls 2>&1 >/dev/null", []Redirect{{Fd: "2", Op: ">&", Target: Word{Text: "1"}}, {Op: ">", Target: Word{Text: "/dev/null"}}}, nil},
		{"{ ls; } > out", []Redirect{{Op: ">", Target: Word{Text: "out"}}}, nil},
		{"cat <<'EOF'\n$x *\nEOF", []Redirect{{Op: "<<", Target: Word{Text: "EOF"}, Body: &Word{Text: "$x *\n"}}}, nil},
		{"cat <<EOF\n$x\nEOF", []Redirect{{Op: "<<", Target: Word{Text: "EOF"}, Body: &Word{Text: "$x\n", Expands: true}}}, nil},
		{"(ls && pwd) | grep x; ! cat a |& wc", nil, nil},
		{"ls & f() { :; }; if a; then b; elif c; then d; else e; fi", nil, []string{"&", "function", "if"}},
		{"for i in a; do :; done; while a; do :; done; until a; do :; done; case x in *) ;; esac", nil, []string{"for", "while", "until", "case"}},
		{"export A=1; [[ -n x ]]; (( 1 )); let x=1; time ls; local y", nil, []string{"export", "[[", "((", "let", "time", "local"}},
	} {
		s, err := Parse(tc.command)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.command, err)
		}
		if diff := cmp.Diff(tc.redirects, s.Redirects); diff != "" {
			t.Errorf("Parse(%q).Redirects (-want +got):\n%s", tc.command, diff)
		}
		if diff := cmp.Diff(tc.constructs, s.Constructs); diff != "" {
			t.Errorf("Parse(%q).Constructs (-want +got):\n%s", tc.command, diff)
		}
	}
}

func TestParseFuncsAndErrors(t *testing.T) {
	s, err := Parse("f() { rm x; }; function g { :; }; f")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"f", "g"}, s.Funcs); diff != "" {
		t.Errorf("Funcs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"ls (", "echo 'unterminated", "a && ", "find '\xf2'"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
