package execboundary

import "testing"

// TestRuleWords: a rule is shown to a person in words — the program, the
// arguments that made it match, what such a command does — never as globs.
func TestRuleWords(t *testing.T) {
	rm := DefaultRules()[len(DefaultRules())-1]
	for _, tc := range []struct {
		rule Rule
		argv []string
		want string
	}{
		{rm, []string{"rm", "-rf", "build"}, "`rm` with `-rf` deletes files recursively or without asking"},
		{rm, []string{"/bin/rm", "build", "--recursive"}, "`rm` with `--recursive` deletes files recursively or without asking"},
		{Rule{Program: "sudo", Decision: Ask}, []string{"sudo", "apt", "install", "x"}, "`sudo` runs a program as another user (such as root)"},
		{Rule{Program: "git", ArgsAny: []string{"push"}, Decision: Ask}, []string{"git", "push", "origin", "main"}, "`git` with `push` publishes commits to another repository"},
		{Rule{Program: "git", ArgsPrefix: []string{"commit"}, Decision: Ask}, []string{"git", "commit", "-m", "x"}, "your execBoundary.rules ask about `git` with `commit`"},
		{Rule{Program: "curl", Decision: Deny}, []string{"curl", "-s", "example.com"}, "your execBoundary.rules refuse `curl`"},
		{Rule{Program: "touch", ArgsAny: []string{"-*d*"}, Decision: Ask, Why: "changes a file's dates"}, []string{"touch", "a", "-d", "x"}, "`touch` with `-d` changes a file's dates"},
	} {
		if got := tc.rule.Words(tc.argv); got != tc.want {
			t.Errorf("%v.Words(%q) = %q, want %q", tc.rule, tc.argv, got, tc.want)
		}
	}
}
