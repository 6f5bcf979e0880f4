//go:build linux

package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/internal/probe"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/terminal"
)

const (
	gateArg       = "whale-test-exec-gate"
	supervisorArg = "whale-test-supervisor"
)

func TestMain(m *testing.M) {
	// The test binary is the exec gate's helper (with the sandbox) and the
	// task supervisor, as whale-ls is.
	if len(os.Args) > 1 && os.Args[1] == gateArg {
		os.Exit(execboundary.RunHelper(os.Args[2:], sandbox.Apply))
	}
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(terminal.Supervise(os.Args[2:]))
	}
	_ = terminal.BecomeSubreaper()
	os.Exit(m.Run())
}

// gateAdapter makes the execboundary gate a terminal.Gate, as the catalog's
// does.
type gateAdapter struct{ g *execboundary.Gate }

func (a gateAdapter) Start(cmd *exec.Cmd, t terminal.GateTask) (func(), error) {
	return a.g.Start(cmd, t)
}

// needSandbox skips the test where the kernel gives no way to confine
// writes (Landlock) or the network (a namespace), as probed independently
// of whale; where it does, whale's sandbox must apply.
func needSandbox(t *testing.T, p sandbox.Policy) {
	t.Helper()
	if err := sandbox.Check(p); err != nil {
		if r := probe.Landlock(sandbox.MinABI); r.Present {
			t.Fatalf("the sandbox cannot be applied although the kernel has %s: %v", r.Reason, err)
		}
		t.Skipf("skipped: the sandbox cannot be applied here: %v (Linux 6.2 or later with Landlock is needed)", err)
	}
	if p.Network != sandbox.NetOn {
		if err := sandbox.Probe([]string{os.Args[0], gateArg, "--probe"}); err != nil {
			if r := probe.NetNamespace(); r.Present {
				t.Fatalf("the sandbox cannot cut the network although this process %s: %v", r.Reason, err)
			}
			t.Skipf("skipped: %v", err)
		}
	}
}

func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing in CI", p)
			}
			t.Skipf("%s is not installed; install it to run this test", p)
		}
	}
}

// box is a workspace, a temp folder and a folder outside both, with a
// gate and a task table that confine to them.
type box struct {
	ws, tmp, out string
	policy       sandbox.Policy
	table        *terminal.Table
	gate         *execboundary.Gate
	env          []string
}

func newBox(t *testing.T, mode sandbox.Mode, network sandbox.Network) *box {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &box{ws: filepath.Join(base, "ws"), tmp: filepath.Join(base, "tmp"), out: filepath.Join(base, "outside")}
	for _, d := range []string{b.ws, b.tmp, b.out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b.resetOutside(t)
	b.policy, err = sandbox.Plan(sandbox.Options{Mode: string(mode), Network: string(network), Workspace: []string{b.ws}, Temp: []string{b.tmp}, NoCaches: true})
	if err != nil {
		t.Fatal(err)
	}
	needSandbox(t, b.policy)
	b.gate = execboundary.NewGate(execboundary.Options{Helper: []string{os.Args[0], gateArg}, Audit: execboundary.NewAuditLog(t.TempDir())})
	if err := b.gate.Configure("enforce", json.RawMessage(`[]`), 0); err != nil {
		t.Fatal(err)
	}
	b.table = terminal.NewTable(terminal.Options{Supervisor: []string{os.Args[0], supervisorArg}})
	t.Cleanup(func() { _ = b.table.Close() })
	b.env = []string{"TMPDIR=" + b.tmp, "OUT=" + b.out, "WS=" + b.ws}
	return b
}

// run runs command in the workspace and returns its output and exit code.
func (b *box) run(t *testing.T, mode terminal.Mode, command string) (string, int) {
	t.Helper()
	task, err := b.table.Start(terminal.StartOptions{Command: command, Dir: b.ws, Mode: mode, Env: b.env, Gate: gateAdapter{b.gate}, Sandbox: &b.policy})
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	if !task.Wait(context.Background(), 3*time.Minute) {
		t.Fatalf("%q did not finish: %s", command, task.ReadOutput())
	}
	return task.ReadOutput(), task.Status().ExitCode
}

// resetOutside empties the folder outside and writes its victim file.
func (b *box) resetOutside(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(b.out); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b.out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.out, "victim"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// outside lists the folder outside the allowed ones and the victim's text.
func (b *box) outside(t *testing.T) string {
	t.Helper()
	var names []string
	_ = filepath.Walk(b.out, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != b.out {
			names = append(names, strings.TrimPrefix(p, b.out+"/"))
		}
		return nil
	})
	sort.Strings(names)
	victim, _ := os.ReadFile(filepath.Join(b.out, "victim"))
	return strings.Join(names, ",") + " victim=" + strings.TrimSpace(string(victim))
}

// bypasses try to change the folder outside; each must fail.
var bypasses = []struct{ name, command string }{
	{"redirection", `echo pwned > "$OUT/new"; echo pwned >> "$OUT/victim"; echo pwned > "$OUT/victim"`},
	{"cp", `cp /etc/hostname "$OUT/cp"; cp /etc/hostname "$OUT/victim"`},
	{"mv rename out of the workspace", `echo x > moved && mv moved "$OUT/moved"; mv "$OUT/victim" here`},
	{"ln", `ln -s /etc/hostname "$OUT/sym"; ln "$OUT/victim" "$OUT/hard"`},
	{"python3", `python3 -c 'import os,sys
for f in (lambda: open(os.environ["OUT"]+"/py","w"), lambda: open(os.environ["OUT"]+"/victim","a"), lambda: os.truncate(os.environ["OUT"]+"/victim",0), lambda: os.rename(os.environ["OUT"]+"/victim","stolen"), lambda: os.mkdir(os.environ["OUT"]+"/d"), lambda: os.unlink(os.environ["OUT"]+"/victim")):
    try: f(); print("WROTE")
    except OSError as e: print("refused", e)'`},
	{"perl", `perl -e 'open(my $f, ">", "$ENV{OUT}/pl") or print "refused $!\n"; open(my $g, ">>", "$ENV{OUT}/victim") or print "refused $!\n"; unlink("$ENV{OUT}/victim") or print "refused $!\n"'`},
	{"symlink in the workspace", `ln -s "$OUT/viasym" link1; echo x > link1; ln -s "$OUT/victim" link2; echo x >> link2`},
	{"hard link in the workspace", `ln "$OUT/victim" hard && echo x >> hard`},
	{"/proc/self/root", `echo x > "/proc/self/root$OUT/proc"; echo x >> "/proc/self/root$OUT/victim"`},
	{"dot-dot", `echo x > ../outside/dots; echo x >> ./../outside/victim; cd .. && echo x > outside/dots2`},
	{"truncate and rm", `truncate -s 0 "$OUT/victim"; rm -f "$OUT/victim"; mkdir "$OUT/dir"; touch "$OUT/touched"`},
	{"find -exec", `find . -maxdepth 0 -exec sh -c 'echo x > "$OUT/find"' \;`},
	{"xargs", `echo "$OUT/xargs" | xargs touch; echo "$OUT/victim" | xargs rm -f`},
	{"background process", `(sleep 0.5; echo x > "$OUT/bg"; echo x >> "$OUT/victim"; echo done > bgdone) > /dev/null 2>&1 &
echo started`},
}

// TestBypassesAreRefused runs every bypass in pipe and PTY mode under
// workspace-write: each is refused and nothing outside changes, while the
// same kind of write inside the workspace and the temp folder works.
func TestBypassesAreRefused(t *testing.T) {
	need(t, "python3", "perl")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	before := b.outside(t)
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		for _, tc := range bypasses {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				_ = os.Remove(filepath.Join(b.ws, "bgdone"))
				b.resetOutside(t)
				out, _ := b.run(t, mode, tc.command)
				if tc.name == "background process" {
					deadline := time.Now().Add(time.Minute)
					for {
						if _, err := os.Stat(filepath.Join(b.ws, "bgdone")); err == nil {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("the background process never finished; output: %s", out)
						}
						time.Sleep(50 * time.Millisecond)
					}
				}
				if strings.Contains(out, "WROTE") {
					t.Errorf("output of %q says a write went through:\n%s", tc.command, out)
				}
				if got := b.outside(t); got != before {
					t.Errorf("after %q the folder outside is %q, want %q unchanged; output:\n%s", tc.command, got, before, out)
				}
			})
		}
		t.Run(string(mode)+"/inside works", func(t *testing.T) {
			out, code := b.run(t, mode, `echo in > inside && mkdir -p sub/.git && echo c > sub/.git/config && mv inside sub/ && ln -s sub l && f=$(mktemp) && echo t > "$f" && cat sub/inside /dev/null && echo > /dev/null && echo ok`)
			if code != 0 || !strings.Contains(out, "ok") {
				t.Errorf("writes inside: exit %d, output:\n%s", code, out)
			}
		})
	}
}

// TestReadOnlyAllowsTempOnly: read-only refuses writes in the workspace and
// allows them in the temp folder.
func TestReadOnlyAllowsTempOnly(t *testing.T) {
	b := newBox(t, sandbox.ReadOnly, sandbox.NetOn)
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, code := b.run(t, mode, `echo x > inws; f=$(mktemp) && echo t > "$f" && echo tmp-ok`)
		if _, err := os.Stat(filepath.Join(b.ws, "inws")); err == nil {
			t.Errorf("mode %s: read-only let the task write in the workspace", mode)
		}
		if code != 0 || !strings.Contains(out, "tmp-ok") {
			t.Errorf("mode %s: temp folder write: exit %d, output:\n%s", mode, code, out)
		}
		if refused := b.policy.Explain(out, b.ws); len(refused) != 1 || refused[0].Path != filepath.Join(b.ws, "inws") {
			t.Errorf("mode %s: Explain = %+v, want the refused write to %s", mode, refused, filepath.Join(b.ws, "inws"))
		}
	}
}

// TestRefusalIsExplained: a refused write is found in the output with its
// path, and the hint names the way out.
func TestRefusalIsExplained(t *testing.T) {
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	out, code := b.run(t, terminal.ModePipe, `echo x > "$OUT/hosts"`)
	if code == 0 {
		t.Fatalf("the write outside succeeded: %s", out)
	}
	refused := b.policy.Explain(out, b.ws)
	if len(refused) != 1 || refused[0].Path != filepath.Join(b.out, "hosts") {
		t.Fatalf("Explain(%q) = %+v, want the write to %s", out, refused, filepath.Join(b.out, "hosts"))
	}
	hint := b.policy.Hint(refused)
	for _, want := range []string{"refused a write to " + filepath.Join(b.out, "hosts"), b.ws, "shell.writableRoots", "shell.sandbox to off"} {
		if !strings.Contains(hint, want) {
			t.Errorf("Hint = %q, want it to contain %q", hint, want)
		}
	}
}

// netProbe is a python3 program that tries TCP and UDP to each address
// given (host:port) and prints one line per try.
const netProbe = `import socket, sys
for a in sys.argv[1:]:
    host, port = a.rsplit(":", 1)
    try:
        s = socket.create_connection((host, int(port)), timeout=5); s.sendall(b"tcp"); s.close(); print("TCP-OK", a)
    except OSError as e: print("TCP-FAIL", a, e)
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b"udp", (host, int(port))); print("UDP-SENT", a)
    except OSError as e: print("UDP-FAIL", a, e)
`

// hostListeners listens on TCP and UDP at addr and counts what arrives.
func hostListeners(t *testing.T, ip string) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	pc, err := net.ListenPacket("udp", net.JoinHostPort(ip, fmt.Sprint(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	got := make(chan struct{}, 16)
	go countAccepts(ln, got)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			got <- struct{}{}
		}
	}()
	return net.JoinHostPort(ip, fmt.Sprint(port)), func() int {
		time.Sleep(200 * time.Millisecond)
		return len(got)
	}
}

// otherLocalIP is an address of this machine that is not loopback, or "".
func otherLocalIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			return ipn.IP.String()
		}
	}
	return ""
}

// unixEcho listens on a Unix socket and counts connections.
func unixEcho(t *testing.T, path string) func() int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 16)
	go countAccepts(ln, got)
	return func() int { return len(got) }
}

// countAccepts sends on got for every connection ln accepts, reads what
// the client sends first (so that its write does not fail) and closes it.
func countAccepts(ln net.Listener, got chan<- struct{}) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		got <- struct{}{}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 8)
		_, _ = c.Read(buf)
		c.Close()
	}
}

const unixProbe = `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"hi"); print("UNIX-OK")' `

// TestNetworkOff: TCP and UDP to loopback and to another local address are
// refused; a Unix socket still works.
func TestNetworkOff(t *testing.T) {
	need(t, "python3")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOff)
	if err := os.WriteFile(filepath.Join(b.ws, "probe.py"), []byte(netProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := []string{}
	var counts []func() int
	lo, loCount := hostListeners(t, "127.0.0.1")
	targets, counts = append(targets, lo), append(counts, loCount)
	if ip := otherLocalIP(); ip != "" {
		other, otherCount := hostListeners(t, ip)
		targets, counts = append(targets, other), append(counts, otherCount)
	} else {
		t.Log("no non-loopback address on this machine: only loopback is tried")
	}
	sock := filepath.Join(b.tmp, "s.sock")
	unixCount := unixEcho(t, sock)
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, _ := b.run(t, mode, "python3 probe.py "+strings.Join(targets, " ")+"; "+unixProbe+sock)
		for _, a := range targets {
			if !strings.Contains(out, "TCP-FAIL "+a) || !strings.Contains(out, "UDP-FAIL "+a) {
				t.Errorf("mode %s: TCP or UDP to %s was not refused:\n%s", mode, a, out)
			}
		}
		for i, c := range counts {
			if n := c(); n != 0 {
				t.Errorf("mode %s: %s received %d connections or datagrams, want none", mode, targets[i], n)
			}
		}
		if !strings.Contains(out, "UNIX-OK") {
			t.Errorf("mode %s: the Unix socket did not work:\n%s", mode, out)
		}
		if refused := b.policy.Explain(out, b.ws); len(refused) == 0 || refused[0].Address == "" {
			t.Errorf("mode %s: Explain = %+v, want a refused connection with its address", mode, refused)
		}
	}
	if unixCount() != 2 {
		t.Errorf("the Unix socket got %d connections, want 2", unixCount())
	}
}

// TestAbstractSocketsOutsideAreRefused: with the network on, a task
// cannot connect to an abstract Unix socket a process outside it listens
// on (such a socket has no path for the write rules to judge: a D-Bus bus,
// X11, a program's private server), while one the task made itself works,
// and a socket named by a path still does.
func TestAbstractSocketsOutsideAreRefused(t *testing.T) {
	need(t, "python3")
	if r := probe.Landlock(6); !r.Present {
		t.Skipf("skipped: Landlock scopes abstract Unix sockets from ABI 6: %s", r.Reason)
	}
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	name := fmt.Sprintf("whale-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 16)
	go countAccepts(ln, got)
	sock := filepath.Join(b.tmp, "s.sock")
	unixCount := unixEcho(t, sock)
	probe := `import socket, sys
def connect(addr, what):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(addr); s.sendall(b"hi"); print(what, "OK")
    except OSError as e:
        print(what, "FAIL", e.errno)
connect("\0" + sys.argv[1], "OUTSIDE")
own = socket.socket(socket.AF_UNIX); own.bind("\0" + sys.argv[1] + "-own"); own.listen(1)
connect("\0" + sys.argv[1] + "-own", "OWN")
connect(sys.argv[2], "PATH")
`
	if err := os.WriteFile(filepath.Join(b.ws, "abstract.py"), []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, _ := b.run(t, mode, "python3 abstract.py "+name+" "+sock)
		for _, want := range []string{"OUTSIDE FAIL", "OWN OK", "PATH OK"} {
			if !strings.Contains(out, want) {
				t.Errorf("mode %s: output lacks %q:\n%s", mode, want, out)
			}
		}
	}
	if n := len(got); n != 0 {
		t.Errorf("the abstract socket outside accepted %d connections, want none", n)
	}
	if n := unixCount(); n != 2 {
		t.Errorf("the path socket got %d connections, want 2", n)
	}
}

// TestNetworkLoopback: the task reaches a server it started on loopback
// (TCP and UDP); the host's loopback services and other addresses are not
// reached.
func TestNetworkLoopback(t *testing.T) {
	need(t, "python3")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetLoopback)
	own := `import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); port = s.getsockname()[1]
c = socket.create_connection(("127.0.0.1", port), timeout=5); a, _ = s.accept(); c.sendall(b"x"); print("OWN-TCP", a.recv(1))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); v.sendto(b"y", u.getsockname()); print("OWN-UDP", u.recv(1))
`
	for name, text := range map[string]string{"probe.py": netProbe, "own.py": own} {
		if err := os.WriteFile(filepath.Join(b.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lo, loCount := hostListeners(t, "127.0.0.1")
	targets, counts := []string{lo}, []func() int{loCount}
	if ip := otherLocalIP(); ip != "" {
		other, otherCount := hostListeners(t, ip)
		targets, counts = append(targets, other), append(counts, otherCount)
	}
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, _ := b.run(t, mode, "python3 own.py; python3 probe.py "+strings.Join(targets, " ")+"; grep CapEff /proc/self/status")
		if os.Geteuid() != 0 && !strings.Contains(out, "CapEff:\t0000000000000000") {
			t.Errorf("mode %s: the task kept capabilities from its user namespace:\n%s", mode, out)
		}
		if !strings.Contains(out, "OWN-TCP b'x'") || !strings.Contains(out, "OWN-UDP b'y'") {
			t.Errorf("mode %s: the task's own loopback server did not work:\n%s", mode, out)
		}
		for _, a := range targets {
			if !strings.Contains(out, "TCP-FAIL "+a) {
				t.Errorf("mode %s: TCP to %s was not refused:\n%s", mode, a, out)
			}
		}
		for i, c := range counts {
			if n := c(); n != 0 {
				t.Errorf("mode %s: %s received %d connections or datagrams, want none", mode, targets[i], n)
			}
		}
	}
}

// TestControlsWorkSandboxed: what a normal build does works under
// workspace-write with the toolchains' caches: go build and go test of a
// small module, npm pack and npm install of the tarball into the
// workspace, git init/add/commit, mktemp, make.
func TestControlsWorkSandboxed(t *testing.T) {
	need(t, "go", "npm", "node", "git", "make")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, tmp := filepath.Join(base, "ws"), filepath.Join(base, "tmp")
	for _, d := range []string{ws, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	policy, err := sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), Workspace: []string{ws}, Temp: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	needSandbox(t, policy)
	t.Log(policy.Describe())
	gate := execboundary.NewGate(execboundary.Options{Helper: []string{os.Args[0], gateArg}, Audit: execboundary.NewAuditLog(t.TempDir())})
	if err := gate.Configure("enforce", json.RawMessage(`[]`), 0); err != nil {
		t.Fatal(err)
	}
	table := terminal.NewTable(terminal.Options{Supervisor: []string{os.Args[0], supervisorArg}})
	t.Cleanup(func() { _ = table.Close() })
	files := map[string]string{
		"mod/go.mod":       "module example.com/control\n\ngo 1.22\n",
		"mod/main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(Answer()) }\n\nfunc Answer() int { return 42 }\n",
		"mod/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestAnswer(t *testing.T) {\n\tif Answer() != 42 {\n\t\tt.Fatal(Answer())\n\t}\n}\n",
		"dep/package.json": `{"name": "local-dep", "version": "1.0.0", "main": "index.js"}`,
		"dep/index.js":     "module.exports = () => 'from the tarball';\n",
		"Makefile":         "out.txt: in.txt\n\tcp in.txt out.txt\n\techo made >> out.txt\n",
		"in.txt":           "input\n",
	}
	for name, text := range files {
		path := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"TMPDIR=" + tmp, "GOFLAGS=-count=1", "npm_config_update_notifier=false"}
	for _, tc := range []struct {
		name, command, want string
		modes               []terminal.Mode
	}{
		{"go build and go test", `cd mod && go build -o control . && ./control && go test ./...`, "ok  \texample.com/control", []terminal.Mode{terminal.ModePipe}},
		{"npm pack and install", `cd dep && npm pack --silent && mkdir -p ../app && cd ../app && npm init -y >/dev/null && npm install --no-audit --no-fund ../dep/local-dep-1.0.0.tgz >/dev/null && node -e "console.log(require('local-dep')())"`, "from the tarball", []terminal.Mode{terminal.ModePipe}},
		{"git", `rm -rf repo && mkdir repo && cd repo && git init -q && echo hi > f && git add f && git -c user.name=T -c user.email=t@example.com commit -qm first && git log --oneline | wc -l`, "1", []terminal.Mode{terminal.ModePipe, terminal.ModePTY}},
		{"mktemp", `f=$(mktemp) && d=$(mktemp -d) && echo x > "$f" && echo y > "$d/y" && cat "$f" "$d/y" && echo temp-ok`, "temp-ok", []terminal.Mode{terminal.ModePipe, terminal.ModePTY}},
		{"make", `rm -f out.txt && make -s && cat out.txt`, "made", []terminal.Mode{terminal.ModePipe, terminal.ModePTY}},
	} {
		for _, mode := range tc.modes {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				task, err := table.Start(terminal.StartOptions{Command: tc.command, Dir: ws, Mode: mode, Env: env, Gate: gateAdapter{gate}, Sandbox: &policy})
				if err != nil {
					t.Fatal(err)
				}
				if !task.Wait(context.Background(), 5*time.Minute) {
					t.Fatalf("%q did not finish", tc.command)
				}
				out := task.ReadOutput()
				if st := task.Status(); st.ExitCode != 0 || !strings.Contains(out, tc.want) {
					t.Errorf("%q: exit %d, want 0 and %q in the output:\n%s", tc.command, st.ExitCode, tc.want, out)
				}
			})
		}
	}
}

// TestNetworkAsUnprivilegedUser runs the network, metadata and git tests
// again as the user nobody, where the namespaces come with a user namespace
// of their own (and the capabilities the helper needs there must not reach
// the task). It needs root to switch users.
func TestNetworkAsUnprivilegedUser(t *testing.T) {
	if os.Getenv("WHALE_SANDBOX_CHILD") != "" {
		t.Skip("this is the run as nobody already")
	}
	probe.Need(t, probe.Root()) // to switch users
	need(t, "python3")
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "sandbox.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^(TestNetwork(Off|Loopback)|TestGitHooksStayReadOnly|TestMetadataOutsideIsRefused)$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + os.TempDir(), "CI=" + os.Getenv("CI"), "WHALE_SANDBOX_CHILD=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "skipped: ") {
		// The probes said nobody has no network namespace here: whale
		// cannot confine, and the child skipped for that reason only.
		for line := range strings.Lines(string(out)) {
			if _, why, ok := strings.Cut(line, "skipped: "); ok {
				t.Skipf("skipped as nobody: %s", strings.TrimSpace(why))
			}
		}
	}
	if err != nil || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("the tests as nobody: %v\n%s", err, out)
	}
	for _, name := range []string{"TestNetworkLoopback", "TestNetworkOff", "TestGitHooksStayReadOnly", "TestMetadataOutsideIsRefused"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Errorf("%s did not pass as nobody:\n%s", name, out)
		}
	}
}

// TestRootTaskLosesDevicesAndPowers runs as root what a root task could do
// with the full capability set: make a block device in the workspace (which
// writes wherever its disk is), keep CAP_SYS_ADMIN (TIOCSTI into another
// terminal, mounts), CAP_MKNOD or CAP_LINUX_IMMUTABLE (chattr +i). Each must
// be gone, while the controls keep working (TestControlsWorkSandboxed).
func TestRootTaskLosesDevicesAndPowers(t *testing.T) {
	probe.Need(t, probe.Root())
	need(t, "python3")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	// Another terminal, as the user's own shell would have: a task that
	// could push bytes into its input with TIOCSTI would type commands
	// there.
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal for the victim terminal: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	script := `
import fcntl, os, termios
def attempt(name, f):
    try:
        f(); print(name, "WROTE")
    except OSError as e:
        print(name, "refused", e.errno)
attempt("mknod-block", lambda: os.mknod("blk", 0o600 | 0o060000, os.makedev(7, 0)))
attempt("mknod-char", lambda: os.mknod("chr", 0o600 | 0o020000, os.makedev(1, 3)))
def sti():
    fd = os.open(os.environ["VICTIM_TTY"], os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(fd, termios.TIOCSTI, b"x")
attempt("tiocsti", sti)
caps = int([l for l in open("/proc/self/status") if l.startswith("CapBnd:")][0].split()[1], 16)
for name, bit in (("sys_admin", 21), ("mknod", 27), ("linux_immutable", 9), ("sys_module", 16), ("setfcap", 31)):
    print("cap", name, "KEPT" if caps >> bit & 1 else "gone")
print("cap chown", "kept" if caps & 1 else "GONE")
`
	if err := os.WriteFile(filepath.Join(b.ws, "powers.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	b.env = append(b.env, "VICTIM_TTY="+tty.Name())
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, _ := b.run(t, mode, "python3 powers.py")
		for _, want := range []string{"mknod-block refused", "mknod-char refused", "tiocsti refused", "cap sys_admin gone", "cap mknod gone", "cap linux_immutable gone", "cap chown kept"} {
			if !strings.Contains(out, want) {
				t.Errorf("mode %s: %q missing; output:\n%s", mode, want, out)
			}
		}
		if strings.Contains(out, "WROTE") || strings.Contains(out, "KEPT") {
			t.Errorf("mode %s: a device or a power got through:\n%s", mode, out)
		}
	}
}

// TestMetadataOutsideIsRefused changes what Landlock has no right for —
// modes, times, extended attributes, owners, flags — on a file outside:
// each must fail (the task's filesystem is read-only outside its folders)
// and the file's metadata stay as it was, while the same inside works.
func TestMetadataOutsideIsRefused(t *testing.T) {
	need(t, "python3")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	victim := filepath.Join(b.out, "victim")
	meta := func() string {
		var st syscall.Stat_t
		if err := syscall.Stat(victim, &st); err != nil {
			t.Fatal(err)
		}
		x := make([]byte, 256)
		n, _ := syscall.Listxattr(victim, x)
		return fmt.Sprintf("mode=%o uid=%d mtime=%d xattrs=%q", st.Mode, st.Uid, st.Mtim.Sec, x[:max(n, 0)])
	}
	script := `
import os, subprocess
v = os.environ["OUT"] + "/victim"
def attempt(name, f):
    try:
        f(); print(name, "WROTE")
    except OSError as e:
        print(name, "refused", e.errno)
attempt("chmod", lambda: os.chmod(v, 0o777))
attempt("utime", lambda: os.utime(v, (978307200, 978307200)))
attempt("setxattr", lambda: os.setxattr(v, "user.whale", b"x"))
if os.geteuid() == 0:
    attempt("chown", lambda: os.chown(v, 65534, 65534))
open("inside", "w").write("x")
os.chmod("inside", 0o700); os.utime("inside", (978307200, 978307200))
print("inside ok")
`
	if err := os.WriteFile(filepath.Join(b.ws, "meta.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		b.resetOutside(t)
		before := meta()
		out, _ := b.run(t, mode, "python3 meta.py; chattr +i \"$OUT/victim\" 2>&1 || true")
		if strings.Contains(out, "WROTE") || !strings.Contains(out, "chmod refused") || !strings.Contains(out, "inside ok") {
			t.Errorf("mode %s: metadata outside changed, or inside did not:\n%s", mode, out)
		}
		if after := meta(); after != before {
			t.Errorf("mode %s: the file outside went from %s to %s:\n%s", mode, before, after, out)
		}
		if fl, err := exec.Command("lsattr", victim).Output(); err == nil && strings.Contains(strings.Fields(string(fl))[0], "i") {
			exec.Command("chattr", "-i", victim).Run()
			t.Errorf("mode %s: chattr +i reached the file outside", mode)
		}
	}
}

// TestGitHooksStayReadOnly: in a workspace that is a git repository, a task
// cannot plant a hook or a command in .git/config for the user's next git
// command to run outside the sandbox — while commits still work.
func TestGitHooksStayReadOnly(t *testing.T) {
	need(t, "git")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	if out, err := exec.Command("git", "-C", b.ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var err error
	b.policy, err = sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), Network: string(sandbox.NetOn), Workspace: []string{b.ws}, Temp: []string{b.tmp}, NoCaches: true})
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(b.ws, ".git", "config")
	configBefore, _ := os.ReadFile(config)
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, code := b.run(t, mode, `echo 'touch "$OUT/hooked"' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
git config core.fsmonitor 'touch "$OUT/fsmonitor"'
mv .git/hooks .git/hooks-moved
echo x > f-`+string(mode)+` && git add f-`+string(mode)+` && git -c user.name=t -c user.email=t@e commit -qm c && echo COMMITTED`)
		if !strings.Contains(out, "COMMITTED") {
			t.Errorf("mode %s: a commit failed under the sandbox (exit %d):\n%s", mode, code, out)
		}
		if _, err := os.Stat(filepath.Join(b.ws, ".git", "hooks", "pre-commit")); err == nil {
			t.Errorf("mode %s: the task planted .git/hooks/pre-commit:\n%s", mode, out)
		}
		if _, err := os.Stat(filepath.Join(b.ws, ".git", "hooks-moved")); err == nil {
			t.Errorf("mode %s: the task moved .git/hooks away:\n%s", mode, out)
		}
		if after, _ := os.ReadFile(config); string(after) != string(configBefore) {
			t.Errorf("mode %s: .git/config changed:\n%s", mode, after)
		}
		if got := b.outside(t); strings.Contains(got, "hooked") || strings.Contains(got, "fsmonitor") {
			t.Errorf("mode %s: a planted command ran: %s", mode, got)
		}
	}
}

// TestHiddenFolderIsNotThere: a folder the policy hides (whale's runtime
// folder, with its locks and sockets) shows empty and read-only to the task.
func TestHiddenFolderIsNotThere(t *testing.T) {
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	hidden := filepath.Join(b.out, "run")
	if err := os.MkdirAll(filepath.Join(hidden, "locks"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hidden, "locks", "0001"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	b.policy, err = sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), Network: string(sandbox.NetOn), Workspace: []string{b.ws}, Temp: []string{b.tmp}, NoCaches: true, Hide: []string{hidden}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := b.run(t, terminal.ModePipe, `ls -A "$OUT/run" | wc -l; exec 9<"$OUT/run/locks/0001" && echo OPENED || echo NOT-THERE`)
	if !strings.Contains(out, "NOT-THERE") || strings.Contains(out, "OPENED") {
		t.Errorf("the hidden folder's lock file was reachable:\n%s", out)
	}
}

// TestModuleCacheKeepsItsModules: under workspace-write the Go module
// cache takes new modules, but a module already there cannot be changed,
// removed, or swapped by moving its folder aside.
func TestModuleCacheKeepsItsModules(t *testing.T) {
	need(t, "go")
	b := newBox(t, sandbox.WorkspaceWrite, sandbox.NetOn)
	home := filepath.Join(filepath.Dir(b.ws), "home")
	mod := filepath.Join(home, "go", "pkg", "mod")
	module := filepath.Join(mod, "example.com", "m@v1.0.0")
	for _, d := range []string{module, filepath.Join(mod, "cache", "download")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	source := filepath.Join(module, "m.go")
	if err := os.WriteFile(source, []byte("package m\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(module, 0o555) // as Go leaves an extracted module
	t.Cleanup(func() { os.Chmod(module, 0o755) })
	var err error
	b.policy, err = sandbox.Plan(sandbox.Options{Mode: string(sandbox.WorkspaceWrite), Network: string(sandbox.NetOn), Workspace: []string{b.ws}, Temp: []string{b.tmp},
		Env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.policy.ModuleCaches, []string{mod}) {
		t.Fatalf("policy.ModuleCaches = %q, want %q", b.policy.ModuleCaches, mod)
	}
	b.env = append(b.env, "MOD="+mod)
	for _, mode := range []terminal.Mode{terminal.ModePipe, terminal.ModePTY} {
		out, _ := b.run(t, mode, `m="$MOD/example.com/m@v1.0.0"
chmod -R u+w "$m"; echo evil >> "$m/m.go"; rm -rf "$m"; mv "$m" "$MOD/example.com/old"
mv "$MOD/example.com" "$MOD/aside" && mkdir -p "$m" && echo evil > "$m/m.go"
n="$MOD/example.com/n@v1.0.0-`+string(mode)+`"; mkdir -p "$n" && echo 'package n' > "$n/n.go" && echo ADDED
echo dl > "$MOD/cache/download/list-`+string(mode)+`" && echo DOWNLOADED`)
		if b, _ := os.ReadFile(source); string(b) != "package m\n" {
			t.Errorf("mode %s: the module's source is now %q:\n%s", mode, b, out)
		}
		if _, err := os.Stat(filepath.Join(mod, "aside")); err == nil {
			t.Errorf("mode %s: the task moved the modules' folder aside:\n%s", mode, out)
		}
		if !strings.Contains(out, "ADDED") || !strings.Contains(out, "DOWNLOADED") {
			t.Errorf("mode %s: a new module or download could not be written:\n%s", mode, out)
		}
	}
}
