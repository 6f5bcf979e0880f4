package execboundary

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cmdTask is a CommandTask that records notes and events.
type cmdTask struct {
	command string
	mu      sync.Mutex
	notes   []string
	events  []Event
}

func (c *cmdTask) ID() string      { return "t1" }
func (c *cmdTask) Command() string { return c.command }
func (c *cmdTask) Hold() func()    { return func() {} }
func (c *cmdTask) Note(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes = append(c.notes, line)
}
func (c *cmdTask) ExecEvent(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
}

// askLog answers every approval with answer and records what was asked.
type askLog struct {
	answer Answer
	mu     sync.Mutex
	asked  []string
}

func (a *askLog) Approve(ctx context.Context, ap Approval) (Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, strings.Join(ap.Argv, " "))
	return a.answer, nil
}

func TestPrecheck(t *testing.T) {
	for _, tc := range []struct {
		name, command, rules string
		answer               Answer
		wantAsked            []string
		wantErr              bool
	}{
		{"nothing to ask", "go build ./... | tee log", "", DenyOnce, nil, false},
		{"xargs rm asked, denied", "ls | xargs rm -rf x", "", DenyOnce, []string{"rm -rf x"}, true},
		{"xargs rm asked, allowed", "ls | xargs rm -rf x", "", AllowOnce, []string{"rm -rf x"}, false},
		{"sh -c git push", `sh -c 'git push origin main'`, "", AllowOnce, []string{"git push origin main"}, false},
		{"find -exec rm", `find . -name '*.tmp' -exec rm -f {} +`, "", DenyOnce, []string{"rm -f {}"}, true},
		{"substitution", "echo $(sudo id)", "", DenyOnce, []string{"sudo id"}, true},
		{"deny rule, no question", "env FOO=1 curl -s example.com", `[{"program":"curl","decision":"deny"}]`, AllowOnce, nil, true},
		{"session answer asks once", "sudo ls; sudo ls", "", AllowSession, []string{"sudo ls"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := &askLog{answer: tc.answer}
			g := NewGate(Options{Approver: ap, Audit: NewAuditLog(t.TempDir())})
			var rules []byte
			if tc.rules != "" {
				rules = []byte(tc.rules)
			}
			if err := g.Configure("enforce", rules, 0); err != nil {
				t.Fatal(err)
			}
			task := &cmdTask{command: tc.command}
			err := g.precheck(exec.Command("sh", "-c", tc.command), task, "test")
			if (err != nil) != tc.wantErr {
				t.Errorf("precheck(%q) = %v, want error %v", tc.command, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantAsked, ap.asked); diff != "" {
				t.Errorf("precheck(%q) asked (-want +got):\n%s", tc.command, diff)
			}
			notes := strings.Join(task.notes, "\n")
			if tc.wantErr && !strings.Contains(notes, "whale: policy denied") {
				t.Errorf("precheck(%q) notes = %q, want a denial line", tc.command, notes)
			}
			if !tc.wantErr && !strings.Contains(notes, "programs started later by scripts") {
				t.Errorf("precheck(%q) notes = %q, want the not-checked note", tc.command, notes)
			}
		})
	}
}

func TestPrecheckSaysWhatIsNotChecked(t *testing.T) {
	g := NewGate(Options{Audit: NewAuditLog(t.TempDir())})
	task := &cmdTask{command: "$CC -o x x.c && bash build.sh"}
	if err := g.precheck(exec.Command("sh"), task, "test"); err != nil {
		t.Fatalf("precheck = %v, want nil", err)
	}
	if len(task.events) != 1 || task.events[0].Kind != "unchecked" {
		t.Fatalf("events = %+v, want one unchecked event", task.events)
	}
	for _, want := range []string{"$CC -o x x.c", "bash build.sh", "not checked"} {
		if !strings.Contains(task.events[0].Text, want) {
			t.Errorf("unchecked text = %q, want it to name %q", task.events[0].Text, want)
		}
	}
}

func TestJudge(t *testing.T) {
	g := NewGate(Options{Audit: NewAuditLog(t.TempDir()), Helper: []string{os.Args[0]}})
	if err := g.Configure("enforce", []byte(`[{"program":"curl","decision":"deny"},{"program":"touch","decision":"ask"}]`), 0); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if runtime.GOOS == "linux" && !g.State().Available {
		// Mode enforce refuses every command where the gate cannot be installed.
		if got := g.Judge("ls", dir); got != OutlookDeny {
			t.Errorf("Judge(ls) without the gate in mode enforce = %s, want deny", got)
		}
	} else {
		for _, tc := range []struct {
			command string
			want    Outlook
		}{
			{"ls -la && go build ./...", OutlookAllow},
			{"touch a.txt", OutlookAsk},
			{"echo $(touch a.txt)", OutlookAsk},
			{"ls | xargs touch", OutlookAsk},
			{"touch a; curl -s example.com", OutlookDeny},
			{"env FOO=1 curl -s example.com", OutlookDeny},
		} {
			if got := g.Judge(tc.command, dir); got != tc.want {
				t.Errorf("Judge(%q) = %s, want %s", tc.command, got, tc.want)
			}
		}
	}
	if err := g.Configure("off", nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := g.Judge("touch a.txt", dir); got != OutlookUnchecked {
		t.Errorf("Judge(touch) in mode off = %s, want unchecked", got)
	}
}
