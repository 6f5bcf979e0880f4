// Package tasks is the task set of bench/tokens: seven everyday steps of a
// coding assistant, each run through whale-ls's real tools (`whale-ls call
// --json`) and rendered in the result formats of the peers' own tools for
// the same work (peers.go says where each format comes from).
//
// It produces texts only. Counting their tokens is the command's job, so
// that this package and its test need no tokenizer data. What it does not
// do: run any peer or model; the peers' texts are built from the same facts
// (file contents, matches, command output) that whale's tools worked on.
package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The peers, in the table's column order.
const (
	PeerClaudeCode = "Claude Code"
	PeerCodex      = "Codex CLI"
	PeerGemini     = "Gemini CLI"
)

// Peers lists the peers in the table's column order.
var Peers = []string{PeerClaudeCode, PeerCodex, PeerGemini}

// Row is one task: what whale's tool returned and what each peer's tool
// returns for the same work, as the model reads them.
type Row struct {
	Task  string
	Whale string
	Peers map[string]string
}

// Options says where the task set runs.
type Options struct {
	// Whale is the whale-ls binary.
	Whale string
	// GoSrc is Go's source tree ($(go env GOROOT)/src): the grep and
	// listing corpus, and strings/strings.go the file that is read and
	// edited.
	GoSrc string
	// Work is an empty folder the task set may fill (the workspace of the
	// read, edit and shell tasks, and whale's state folder).
	Work string
	// Cache is the folder that stands for the user's cache folder in the
	// `go test` task (Go's build cache in it), so that what other programs
	// build at the same time is not in the shell result's line about
	// caches; kept between runs, it makes a second run fast. Empty: in
	// Work.
	Cache string
}

// KeptCache is the Options.Cache kept between runs, in the user's cache
// folder; "" when there is none.
func KeptCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "whale-ls", "bench-tokens")
}

// Fixed inputs of the task set.
const (
	// readFile is the workspace's copy of the first 300 lines of
	// strings/strings.go.
	readFile  = "strings300.go"
	readLines = 300
	rangeFrom = 100
	rangeTo   = 160
	// grepSymbol is searched in the whole of Go's src: 34 lines in 21
	// files as of Go 1.26.
	grepSymbol = "ErrShortWrite"
	// The edit changes one line of readFile; the failing edit looks for a
	// line that is not there.
	editSearch  = "func Count(s, substr string) int {"
	editReplace = "func Count(s, substr string) (n int) {"
	missSearch  = "func Count(s string, substr string) int {"
	// listDir is listed one level deep.
	listDir = "net/http"
	// testCommand prints about 200 lines, one test failing at the end.
	testCommand = "go test -count=1 -v ./calc"
)

// Run builds the fixtures in o.Work, runs each task through whale and
// renders the peers' results for the same work.
func Run(ctx context.Context, o Options) ([]Row, error) {
	ws := filepath.Join(o.Work, "ws")
	if err := writeFixtures(ws, o.GoSrc); err != nil {
		return nil, err
	}
	cache := o.Cache
	if cache == "" {
		cache = filepath.Join(o.Work, "cache")
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOCACHE="+filepath.Join(cache, "go-build"))
	w := whale{bin: o.Whale, env: append(env, "XDG_STATE_HOME="+filepath.Join(o.Work, "state"))}
	src, err := os.ReadFile(filepath.Join(ws, readFile))
	if err != nil {
		return nil, err
	}
	content := string(src)
	var rows []Row
	add := func(task, text string, peers map[string]string) {
		rows = append(rows, Row{Task: task, Whale: text, Peers: peers})
	}

	text, err := w.call(ctx, ws, "read_file", map[string]any{"file_path": readFile})
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("read a %d-line file", readLines), text, readWholePeers(content))

	text, err = w.call(ctx, ws, "read_file", map[string]any{"file_path": readFile, "offset": rangeFrom, "limit": rangeTo - rangeFrom + 1})
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("read lines %d–%d", rangeFrom, rangeTo), text, readRangePeers(content, rangeFrom, rangeTo))

	matches, err := grepTree(ctx, o.GoSrc, grepSymbol)
	if err != nil {
		return nil, err
	}
	text, err = w.call(ctx, o.GoSrc, "grep", map[string]any{"pattern": grepSymbol})
	if err != nil {
		return nil, err
	}
	if n := strings.Count(text, grepSymbol); n < len(matches) {
		return nil, fmt.Errorf("whale's grep shows %d lines with %s, the bench's own search %d:\n%s", n, grepSymbol, len(matches), text)
	}
	add(fmt.Sprintf("grep `%s` in Go's src (%d lines)", grepSymbol, len(matches)), text, grepPeers(grepSymbol, matches))

	text, err = w.call(ctx, ws, "edit", map[string]any{"file_path": readFile, "search": editSearch, "replace": editReplace})
	if err != nil {
		return nil, err
	}
	after, err := os.ReadFile(filepath.Join(ws, readFile))
	if err != nil {
		return nil, err
	}
	if string(after) != strings.Replace(content, editSearch, editReplace, 1) {
		return nil, fmt.Errorf("the edit did not change %s as asked: %s", readFile, text)
	}
	add("one edit", text, editPeers(peerWorkspace+"/"+readFile, readFile, content, string(after)))

	text, err = w.call(ctx, ws, "edit", map[string]any{"file_path": readFile, "search": missSearch, "replace": editReplace})
	if err != nil {
		return nil, err
	}
	add("a failing edit (search text not found)", text, missPeers(peerWorkspace+"/"+readFile, missSearch))

	out, exit, err := runTests(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	text, err = w.call(ctx, ws, "shell_run", map[string]any{"command": testCommand})
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("`go test -v`, %d lines of output", strings.Count(out, "\n")), text, shellPeers(out, exit))

	entries, err := listEntries(filepath.Join(o.GoSrc, filepath.FromSlash(listDir)))
	if err != nil {
		return nil, err
	}
	text, err = w.call(ctx, o.GoSrc, "list_dir", map[string]any{"path": listDir, "depth": 1})
	if err != nil {
		return nil, err
	}
	add(fmt.Sprintf("list a folder (%s, %d entries)", listDir, len(entries)), text, listPeers(peerGoSrc+"/"+listDir, entries))
	return rows, nil
}

// whale runs one tool through `whale-ls call --json`.
type whale struct {
	bin string
	env []string // the cache folders of Options.Cache, the state folder (the journal of the bench's edits) in Work
}

// call returns the tool's text as a model reads it through MCP or
// `whale-ls call`: the text, after "code: " when the call failed.
func (w whale) call(ctx context.Context, root, tool string, input map[string]any) (string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, w.bin, "call", "--json", "--root", root, tool, string(in))
	cmd.Env = w.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) {
		return "", fmt.Errorf("whale-ls call %s: %w\n%s", tool, err, stderr.Bytes())
	}
	var env struct {
		OK   bool   `json:"ok"`
		Code string `json:"code"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return "", fmt.Errorf("whale-ls call %s: %w: %s", tool, err, out)
	}
	if !env.OK {
		return env.Code + ": " + env.Text, nil
	}
	return env.Text, nil
}

// The absolute paths the peers' formats show: fixed, so that the figures
// depend neither on the temporary folder's name nor on where Go is
// installed.
const (
	peerWorkspace = "/home/user/project"
	peerGoSrc     = "/usr/local/go/src"
)

// writeFixtures writes the workspace: the first readLines lines of
// strings/strings.go, and a Go module whose tests print about 200 lines
// with `go test -v`, the last test failing.
func writeFixtures(ws, goSrc string) error {
	src, err := os.ReadFile(filepath.Join(goSrc, "strings", "strings.go"))
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) < readLines {
		return fmt.Errorf("strings/strings.go has %d lines, fewer than %d", len(lines), readLines)
	}
	var tests strings.Builder
	tests.WriteString("package calc\n\nimport \"testing\"\n")
	for i := 1; i <= 96; i++ {
		fmt.Fprintf(&tests, "\nfunc TestAdd%02d(t *testing.T) {\n\tif got := Add(%d, 1); got != %d {\n\t\tt.Fatalf(\"Add(%d, 1) = %%d, want %d\", got)\n\t}\n}\n", i, i, i+1, i, i+1)
	}
	tests.WriteString("\nfunc TestAddOverflow(t *testing.T) {\n\tt.Log(\"adding two halves of the largest int\")\n\tif got := Add(1<<62, 1<<62); got < 0 {\n\t\tt.Errorf(\"Add(1<<62, 1<<62) = %d, want a positive sum\", got)\n\t}\n}\n")
	files := map[string]string{
		readFile:            strings.Join(lines[:readLines], ""),
		"go.mod":            "module example.com/project\n\ngo 1.22\n",
		"calc/calc.go":      "// Package calc adds.\npackage calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
		"calc/calc_test.go": tests.String(),
	}
	for name, text := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runTests runs testCommand in ws outside whale, with env: the output the
// peers' shell tools would show.
func runTests(ctx context.Context, ws string, env []string) (string, int, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", testCommand+" 2>&1")
	cmd.Dir = ws
	cmd.Env = env
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return string(out), exitErr.ExitCode(), nil
	case err != nil:
		return "", 0, err
	}
	return string(out), 0, nil
}

// Match is one line grep found.
type Match struct {
	Path string // slash-separated, relative to the searched folder
	Line int
	Text string
}

// grepTree finds the lines of the text files under root that contain
// pattern, in path and line order: what every peer's search reports.
// Binary files (a NUL in their first 8 KiB) and dot-folders are skipped,
// as whale and ripgrep skip them.
func grepTree(ctx context.Context, root, pattern string) ([]Match, error) {
	re := regexp.MustCompile(regexp.QuoteMeta(pattern))
	var out []Match
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 || !re.Match(b) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(b), "\n") {
			if re.MatchString(line) {
				out = append(out, Match{Path: filepath.ToSlash(rel), Line: i + 1, Text: strings.TrimSuffix(line, "\r")})
			}
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b Match) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

// Entry is one entry of the listed folder.
type Entry struct {
	Name string
	Dir  bool
	Size int64
}

func listEntries(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range des {
		info, err := d.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Name: d.Name(), Dir: d.IsDir(), Size: info.Size()})
	}
	return out, nil
}
