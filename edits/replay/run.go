package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/session"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// Outcome is how a case ended.
type Outcome int

const (
	// Applied: the call succeeded and left exactly the wanted bytes.
	Applied Outcome = iota
	// Refused: the call failed and wrote nothing (right for a case that
	// must be refused, a miss for the others).
	Refused
	// Wrong: the call succeeded where it had to be refused, or left other
	// bytes than wanted, or failed and still changed a file.
	Wrong
)

func (o Outcome) String() string {
	return [...]string{"applied", "refused", "wrong"}[o]
}

// Result is one case's outcome, the tool's envelope and, for a wrong case,
// what differed.
type Result struct {
	Case     Case
	Outcome  Outcome
	Envelope toolbridge.Envelope
	Detail   string
	// NoNextStep: a refusal whose text names no next step.
	NoNextStep bool
}

// Runner runs cases through the real tools, in workspaces it makes under
// Dir (which must exist).
type Runner struct {
	Dir string
}

// Workspace is a workspace folder and a session over it, as `whale-ls
// call` opens one; each case it runs gets the folder emptied and filled
// with the case's files, and its call goes through the session's registry.
type Workspace struct {
	root string
	sess *session.Session
}

type denyPrompter struct{}

func (denyPrompter) Prompt(context.Context, toolbridge.Prompt) (toolbridge.PromptAnswer, error) {
	return toolbridge.PromptAnswer{}, toolbridge.ErrNoOneToAsk
}

// Open makes a workspace folder and opens a session over it.
func (r Runner) Open() (*Workspace, error) {
	root, err := os.MkdirTemp(r.Dir, "replay-")
	if err != nil {
		return nil, err
	}
	sess, err := session.New(session.Options{Roots: []string{root}, Prompter: denyPrompter{}, Terminal: terminal.Options{Ephemeral: true}})
	if err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("open a session: %w", err)
	}
	return &Workspace{root: root, sess: sess}, nil
}

// Close closes the session and removes the folder.
func (w *Workspace) Close() {
	w.sess.Close()
	os.RemoveAll(w.root)
}

// Run runs one case.
func (w *Workspace) Run(ctx context.Context, c Case) (Result, error) {
	root, sess := w.root, w.sess
	if err := emptyFolder(root); err != nil {
		return Result{}, err
	}
	first := c.Files
	if c.Read != nil {
		first = c.Read
	}
	if err := writeFiles(root, first); err != nil {
		return Result{}, err
	}
	if c.Read != nil {
		for _, p := range sortedPaths(c.Read) {
			in, _ := json.Marshal(map[string]any{"file_path": p})
			if env := sess.Registry.Dispatch(ctx, toolbridge.Call{Name: "read_file", Input: in}); !env.OK {
				return Result{}, fmt.Errorf("read_file %s: %s", p, env.Text)
			}
		}
		if err := writeFiles(root, c.Files); err != nil {
			return Result{}, err
		}
	}
	in, err := json.Marshal(c.Input)
	if err != nil {
		return Result{}, err
	}
	env := sess.Registry.Dispatch(ctx, toolbridge.Call{Name: c.Tool, Input: in})
	after, err := readFiles(root)
	if err != nil {
		return Result{}, err
	}
	res := Result{Case: c, Envelope: env}
	unchanged := diffFiles(c.Files, after)
	switch {
	case !env.OK && unchanged == "":
		res.Outcome = Refused
		res.NoNextStep = !namesNextStep(env.Text)
	case !env.OK:
		res.Outcome, res.Detail = Wrong, "failed ("+env.Code+") but changed files: "+unchanged
	case c.Refuse():
		res.Outcome, res.Detail = Wrong, "succeeded where it had to be refused"
	default:
		want := map[string][]byte{}
		for p, b := range c.Files {
			want[p] = b
		}
		for p, b := range c.Want {
			want[p] = b
		}
		if d := diffFiles(want, after); d != "" {
			res.Outcome, res.Detail = Wrong, d
		} else {
			res.Outcome = Applied
		}
	}
	return res, nil
}

// nextStepRE finds the step a refusal tells the model to take: an
// imperative after the account of what happened.
var nextStepRE = regexp.MustCompile(`(?i)(?:;|:|—|\.|,|\bor|\bthen|\band)\s+(?:add|copy|put|check|remove|use|give|split|leave|retry|set|delete|close|create|correct|write|read|re-read|include|drop|move|choose|name|start|follow|make|fix|pass|send|try|call|change|rename|quote|widen|narrow|open|wait|edit)\b`)

// namesNextStep reports whether a refusal's text tells what to do next.
func namesNextStep(text string) bool {
	return nextStepRE.MatchString(text)
}

func emptyFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func writeFiles(root string, files map[string][]byte) error {
	for p, b := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readFiles(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return out, err
}

// diffFiles says how got differs from want ("" when it does not): the
// first differing file, and where.
func diffFiles(want, got map[string][]byte) string {
	for _, p := range sortedPaths(want, got) {
		w, wok := want[p]
		g, gok := got[p]
		switch {
		case wok && !gok:
			return p + " is missing"
		case !wok && gok:
			return p + " was created"
		case !bytes.Equal(w, g):
			return p + ": " + firstDifference(w, g)
		}
	}
	return ""
}

// firstDifference names the first line where two texts differ.
func firstDifference(want, got []byte) string {
	wl, gl := strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d is %q, want %q", i+1, g, w)
		}
	}
	return "they differ"
}

func sortedPaths(ms ...map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for p := range m {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}
