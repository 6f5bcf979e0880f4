package execboundary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	rules, err := ParseRules(json.RawMessage(`[
		{"program":"rm","argsAny":["-*[rf]*"],"decision":"ask"},
		{"program":"git","argsPrefix":["push"],"decision":"ask"},
		{"program":"mkfs*","decision":"deny"},
		{"program":"/usr/bin/rm","argsPrefix":["-rf","/"],"decision":"deny"}]`))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := NewPolicy(rules)
	if err != nil {
		t.Fatal(err)
	}
	rm := Program{Path: "/usr/bin/rm", Given: "rm"}
	for _, tc := range []struct {
		prog Program
		argv []string
		want Decision
	}{
		{rm, []string{"rm", "a"}, Allow},
		{rm, []string{"rm", "-v", "-rf", "a"}, Ask},
		{rm, []string{"rm", "-rf", "/"}, Deny}, // strictest wins
		{Program{Path: "/usr/bin/git", Given: "git"}, []string{"git", "push", "origin"}, Ask},
		{Program{Path: "/usr/bin/git", Given: "git"}, []string{"git", "status"}, Allow},
		{Program{Path: "/sbin/mkfs.ext4", Given: "mkfs.ext4"}, []string{"mkfs.ext4", "/dev/x"}, Deny},
		{Program{Path: "/bin/busybox", Given: "/bin/busybox"}, []string{"busybox", "rm", "-f", "x"}, Ask}, // multi-call by argv[1]
		{Program{Path: "/bin/busybox", Given: "/usr/bin/rm"}, []string{"rm", "-f", "x"}, Ask},             // by the executed name
	} {
		if got := pol.Decide(tc.prog, tc.argv).Decision; got != tc.want {
			t.Errorf("Decide(%s, %q) = %s, want %s", tc.prog.Path, tc.argv, got, tc.want)
		}
	}
}

// TestDenyMatchesCopiesAndLinks: a deny rule by name also matches a copy
// (content hash) and a hard link (identity) under another name.
func TestDenyMatchesCopiesAndLinks(t *testing.T) {
	if _, err := os.Stat("/usr/bin/rm"); err != nil {
		t.Skip("no /usr/bin/rm")
	}
	pol, err := NewPolicy([]Rule{{Program: "rm", Decision: Deny}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, _ := os.ReadFile("/usr/bin/rm")
	copyPath := filepath.Join(dir, "zap")
	os.WriteFile(copyPath, raw, 0o755)
	linkPath := filepath.Join(dir, "hl")
	paths := []string{copyPath}
	if os.Link("/usr/bin/rm", linkPath) == nil {
		paths = append(paths, linkPath)
	}
	for _, p := range paths {
		prog, err := ProgramFromPath(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := pol.Decide(prog, []string{filepath.Base(p)}).Decision; got != Deny {
			t.Errorf("Decide(%s) = %s, want deny", p, got)
		}
	}
	other, _ := ProgramFromPath("/bin/sh")
	if got := pol.Decide(other, []string{"sh"}).Decision; got != Allow {
		t.Errorf("Decide(/bin/sh) = %s, want allow", got)
	}
}

func TestParseRulesErrors(t *testing.T) {
	for _, in := range []string{`{}`, `[{"decision":"deny"}]`, `[{"program":"rm","decision":"maybe"}]`, `[{"program":"bin/rm","decision":"deny"}]`, `[{"program":"rm","argsAny":["[x"],"decision":"ask"}]`, `[{"program":"rm","decision":"ask","extra":1}]`} {
		if _, err := ParseRules(json.RawMessage(in)); err == nil {
			t.Errorf("ParseRules(%s) = nil error, want one", in)
		}
	}
	if r, err := ParseRules(nil); err != nil || len(r) != len(DefaultRules()) {
		t.Errorf("ParseRules(nil) = %d rules, %v; want the defaults", len(r), err)
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, s string
		want    bool
	}{{"-*[rRf]*", "-rf", true}, {"-*[rRf]*", "-v", false}, {"/tmp/*", "/tmp/a/b", true}, {"mkfs*", "mkfs.ext4", true}, {"a?c", "abc", true}, {"[!a]b", "ab", false}} {
		re, err := globRegexp(tc.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(tc.s); got != tc.want {
			t.Errorf("glob %q on %q = %v, want %v", tc.glob, tc.s, got, tc.want)
		}
	}
}

func TestStateText(t *testing.T) {
	for _, tc := range []struct {
		st   State
		want string
	}{
		{State{Mode: ModeEnforce, Available: true, Active: true}, "active"},
		{State{Mode: ModeEnforce, Reason: "EBUSY"}, "refused"},
		{State{Mode: ModeBestEffort, Reason: "EBUSY"}, "unchecked"},
		{State{Mode: ModeOff, Available: true}, "off"},
	} {
		if got := tc.st.Text(); !strings.Contains(got, tc.want) {
			t.Errorf("%+v.Text() = %q, want it to contain %q", tc.st, got, tc.want)
		}
	}
}
