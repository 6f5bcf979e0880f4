package execboundary

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// names renders what ParseCommandLine found as "via:argv" strings.
func names(cl CommandLine) []string {
	var out []string
	for _, p := range cl.Programs {
		s := strings.Join(p.Argv, " ")
		if p.Via != "" {
			s = p.Via + ": " + s
		}
		out = append(out, s)
	}
	return out
}

func TestParseCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		want          []string
		unjudged      int
	}{
		{"plain", "go test ./...", []string{"go test ./..."}, 0},
		{"pipeline", "cat a | grep x | rm -rf /tmp/y", []string{"cat a", "grep x", "rm -rf /tmp/y"}, 0},
		{"lists", "make && git push || npm publish; ls & wait", []string{"make", "git push", "npm publish", "ls"}, 0},
		{"command substitution", "echo $(rm -rf x)", []string{"rm -rf x"}, 0},
		{"backticks", "echo `dd if=/dev/zero of=x`", []string{"dd if=/dev/zero of=x"}, 0},
		{"nested substitution", `echo "$(ls $(git rev-parse --show-toplevel))"`, []string{"ls $(git rev-parse --show-toplevel)", "git rev-parse --show-toplevel"}, 0},
		{"process substitution", "diff <(sort a) <(sort b)", []string{"diff <(sort a) <(sort b)", "sort a", "sort b"}, 0},
		{"sh -c", `sh -c 'rm -rf build; make'`, []string{"sh -c rm -rf build; make", "sh -c: rm -rf build", "sh -c: make"}, 0},
		{"bash -lc nested", `bash -lc "sh -c 'sudo reboot'"`, []string{"bash -lc sh -c 'sudo reboot'", "bash -c: sh -c sudo reboot", "sh -c: sudo reboot", "sudo: reboot"}, 0},
		{"sh -c with variable", `sh -c "$CMD"`, []string{`sh -c $CMD`}, 1},
		{"xargs", "find . -name '*.o' | xargs -n 1 rm -f", []string{"find . -name *.o", "xargs -n 1 rm -f", "xargs: rm -f"}, 0},
		{"xargs default echo", "ls | xargs", []string{"ls", "xargs"}, 0},
		{"xargs -I", "ls | xargs -I{} cp {} /tmp", []string{"ls", "xargs -I{} cp {} /tmp", "xargs: cp {} /tmp"}, 0},
		{"find -exec", `find . -type f -exec rm {} \; -execdir shred -u {} +`, []string{"find . -type f -exec rm {} ; -execdir shred -u {} +", "find -exec: rm {}", "find -execdir: shred -u {}"}, 0},
		{"env prefix", "env -i FOO=1 PATH=/bin rm -r x", []string{"env -i FOO=1 PATH=/bin rm -r x", "env: rm -r x"}, 0},
		{"nice time command", "nice -n 5 time -p command rm -r x", []string{"nice -n 5 time -p command rm -r x", "nice: time -p command rm -r x", "command: rm -r x"}, 0},
		{"time keyword", "time git push", []string{"git push"}, 0},
		{"command -v is a lookup", "command -v rm", nil, 0},
		{"exec", "exec sudo ls", []string{"exec: sudo ls", "sudo: ls"}, 0},
		{"timeout", "timeout -s KILL 5 dd if=a", []string{"timeout -s KILL 5 dd if=a", "timeout: dd if=a"}, 0},
		{"quoting", `'r''m' "-rf" \/tmp/x`, []string{"rm -rf /tmp/x"}, 0},
		{"escaped name", `\rm -r x`, []string{"rm -r x"}, 0},
		{"redirections", "sort < in > out 2>&1; cat <<EOF\n$(rm -rf y)\nEOF", []string{"sort", "cat", "rm -rf y"}, 0},
		{"assignments", "FOO=$(id -u) BAR=1 make install", []string{"make install", "id -u"}, 0},
		{"assignment only", "X=$(git push)", []string{"git push"}, 0},
		{"functions", "f() { rm -rf \"$1\"; }; f build", []string{"rm -rf $1"}, 0},
		{"subshell and group", "(cd x && make) ; { ls; }", []string{"make", "ls"}, 0},
		{"if while for", "if test -f x; then rm x; fi; while false; do sleep 1; done; for f in *; do shred $f; done", []string{"rm x", "sleep 1", "shred $f"}, 0},
		{"builtins only", "cd /tmp && echo hi && export A=1", nil, 0},
		{"dynamic program", "$EDITOR file; $(which rm) -rf x", []string{"which rm"}, 2},
		{"eval literal", `eval "sudo ls"`, []string{"eval: sudo ls", "sudo: ls"}, 0},
		{"eval dynamic", `eval "$X"`, nil, 1},
		{"source", ". ./env.sh; source x", nil, 2},
		{"script by shell", "bash build.sh", []string{"bash build.sh"}, 1},
		{"path program", "./scripts/deploy --prod", []string{"./scripts/deploy --prod"}, 0},
		{"sudo", "sudo -u root rm -rf /", []string{"sudo -u root rm -rf /", "sudo: rm -rf /"}, 0},
		{"glob program is dynamic", "/usr/bin/r? x", nil, 1},
		{"brace expansion program is dynamic", "{rm,-rf,x}; r{m,} y", nil, 2},
		{"tilde program is dynamic", "~/bin/deploy --prod", nil, 1},
		{"zsh =cmd program is dynamic", "=rm x", nil, 1},
		{"escaped glob is literal", `\r\? x; xargs \rm`, []string{"r? x", "xargs rm", "xargs: rm"}, 0},
		{"quoted braces are literal", `'{rm,x}' a`, []string{"{rm,x} a"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := ParseCommandLine(tc.command)
			if cl.ParseError != "" {
				t.Fatalf("ParseCommandLine(%q) parse error %s", tc.command, cl.ParseError)
			}
			if diff := cmp.Diff(tc.want, names(cl)); diff != "" {
				t.Errorf("ParseCommandLine(%q) programs (-want +got):\n%s", tc.command, diff)
			}
			if len(cl.Unjudged) != tc.unjudged {
				t.Errorf("ParseCommandLine(%q) unjudged = %+v, want %d", tc.command, cl.Unjudged, tc.unjudged)
			}
		})
	}
}

func TestParseCommandLineInvalidFallsBack(t *testing.T) {
	cl := ParseCommandLine("git push ) | rm -rf x")
	if cl.ParseError == "" {
		t.Fatalf("ParseCommandLine: no parse error for invalid syntax")
	}
	got := names(cl)
	want := []string{"guess: git push )", "guess: rm -rf x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fallback programs (-want +got):\n%s", diff)
	}
}

// FuzzParseCommandLine checks that no text makes the parse panic or hang,
// and that every program it lists has a name and every unjudged part a
// reason.
func FuzzParseCommandLine(f *testing.F) {
	for _, s := range []string{"go test ./...", "cat a | xargs -n1 rm", `sh -c 'eval "bash -c \"ls\""'`, "find . -exec rm {} +",
		"f() { rm $1; }; f x", "cat <<EOF\n$(id)\nEOF", "env -i A=1 timeout 5 nice sudo ls", "git push ) |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		cl := ParseCommandLine(command)
		for _, p := range cl.Programs {
			if len(p.Argv) == 0 {
				t.Fatalf("ParseCommandLine(%q) lists a program without argv: %+v", command, cl.Programs)
			}
		}
		for _, u := range cl.Unjudged {
			if u.Why == "" {
				t.Fatalf("ParseCommandLine(%q) leaves %q unjudged without a reason", command, u.Text)
			}
		}
	})
}
