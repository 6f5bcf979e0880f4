// Package hostsetup writes a terminal agent's own configuration so that it
// starts `whale-ls mcp` and, where the agent allows it, no longer offers
// its model its built-in file-editing and shell tools: whale becomes its
// hands. One file per host says where that host reads its configuration
// and which of its settings do it.
//
// Existing files are merged, never replaced: JSON (JSONC where the host
// reads comments) and TOML are edited in place, so that what setup does
// not change keeps its order, comments and layout. A file that does not
// parse is left alone with an error that says so. Setup keeps a record of
// what it added; Undo takes exactly that out again: a file nobody touched
// since comes back byte for byte, a file setup created goes, and a file
// changed since loses only setup's own entries.
package hostsetup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/atomicfile"
)

// Scope says whose configuration setup writes.
type Scope string

const (
	// Project is the project folder's own configuration (the default).
	Project Scope = "project"
	// User is the user's configuration, for every project.
	User Scope = "user"
)

// Options are one run of setup.
type Options struct {
	Scope Scope
	// Root is the project folder (Project scope).
	Root string
	// Home is the user's home folder.
	Home string
	// Getenv reads the environment (CODEX_HOME, XDG_CONFIG_HOME, …); nil
	// means os.Getenv.
	Getenv func(string) string
	// Command starts whale's MCP server: the program and its arguments,
	// for example {"whale-ls", "mcp"}.
	Command []string
	// StateDir holds the records of what setup added (for Undo).
	StateDir string
	// DryRun prints each file setup would write, with its new content,
	// and writes nothing.
	DryRun bool
}

func (o Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// Host is one terminal agent.
type Host struct {
	// Name is what `whale-ls setup NAME` takes.
	Name string
	// Title is the product's name; Tested the version the tests run.
	Title, Tested string
	// Off are the built-in tools setup turns off; Kept those that stay.
	Off, Kept []string
	// Limits says what the host cannot turn off, and why.
	Limits []string
	// Start says how to start the host so that whale is its hands, when
	// that is more than starting it.
	Start string
	plan  func(o Options) ([]change, error)
}

// Hosts are the hosts setup knows, by name.
var Hosts = []*Host{claude, codex, gemini, opencode, copilot, qwen}

// Lookup returns the host named name.
func Lookup(name string) (*Host, error) {
	var names []string
	for _, h := range Hosts {
		if h.Name == name {
			return h, nil
		}
		names = append(names, h.Name)
	}
	return nil, fmt.Errorf("unknown host %q: want one of %s", name, strings.Join(names, ", "))
}

// change is what setup does to one file.
type change struct {
	path   string
	format string // "json", "jsonc", "toml" or "text" (a whole file)
	json   []jsonOp
	toml   []tomlOp
	text   string
}

// jsonOp sets path to value (value non-nil), or adds items to the list
// at path.
type jsonOp struct {
	path  []string
	value any
	add   []string
}

// tomlOp sets table.key to value.
type tomlOp struct {
	table []string
	key   string
	value any
}

// record is what setup added for one host and scope, kept for Undo.
type record struct {
	Host  string       `json:"host"`
	Scope Scope        `json:"scope"`
	Root  string       `json:"root,omitempty"`
	Files []fileRecord `json:"files"`
}

type fileRecord struct {
	Path    string `json:"path"`
	Created bool   `json:"created,omitempty"`
	// Dirs are the folders setup created for the file, outermost first.
	Dirs []string `json:"dirs,omitempty"`
	// Original is the file before setup; Written the file setup left.
	Original []byte      `json:"original,omitempty"`
	Written  []byte      `json:"written"`
	JSON     []undoJSON  `json:"json,omitempty"`
	TOML     []undoTOML  `json:"toml,omitempty"`
	Mode     fs.FileMode `json:"mode,omitempty"`
	// Stale says the file was changed by someone else between two runs of
	// setup: Original is no longer what to restore, only setup's entries go.
	Stale bool `json:"stale,omitempty"`
}

// undoJSON is one JSON edit: Set is the value setup wrote at Path and Prev
// the one it replaced (none: the member was not there); Added the items
// setup added to the list at Path.
type undoJSON struct {
	Path  []string        `json:"path"`
	Set   json.RawMessage `json:"set,omitempty"`
	Prev  json.RawMessage `json:"prev,omitempty"`
	Added []string        `json:"added,omitempty"`
}

// undoTOML is one TOML edit: Line is what setup wrote, PrevLine the line it
// replaced, NewTable whether setup opened the table.
type undoTOML struct {
	Table    []string `json:"table"`
	Key      string   `json:"key"`
	Line     string   `json:"line"`
	PrevLine string   `json:"prev_line,omitempty"`
	NewTable bool     `json:"new_table,omitempty"`
}

// ParseError is a file setup cannot read: it is left as it is.
type ParseError struct {
	Path   string
	Format string
	Err    error
}

func (e *ParseError) Error() string {
	kind := map[string]string{"json": "JSON", "jsonc": "JSON (comments allowed)", "toml": "TOML"}[e.Format]
	return fmt.Sprintf("%s is not valid %s (%v). whale-ls setup left it untouched: fix it (or move it away) and run the command again", e.Path, kind, e.Err)
}

// DefaultStateDir is where setup keeps its records: $XDG_STATE_HOME/whale-ls
// (~/.local/state/whale-ls), or the user's config folder on Windows and
// macOS.
func DefaultStateDir(home string, getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "whale-ls")
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "whale-ls", "state")
		}
	}
	return filepath.Join(home, ".local", "state", "whale-ls")
}

func (o Options) recordPath(h *Host) string {
	where := o.Home
	if o.Scope == Project {
		where = o.Root
	}
	sum := sha256.Sum256([]byte(where))
	return filepath.Join(o.StateDir, "setup", fmt.Sprintf("%s-%s-%s.json", h.Name, o.Scope, hex.EncodeToString(sum[:8])))
}

func (o Options) check() error {
	if o.Scope != Project && o.Scope != User {
		return fmt.Errorf("the scope is project or user, not %q", o.Scope)
	}
	if o.Scope == Project && !filepath.IsAbs(o.Root) {
		return fmt.Errorf("the project folder must be an absolute path, not %q", o.Root)
	}
	if o.Home == "" {
		return errors.New("no home folder")
	}
	if len(o.Command) == 0 {
		return errors.New("no command for whale's MCP server")
	}
	if o.StateDir == "" {
		return errors.New("no folder for setup's records")
	}
	return nil
}

// pending is one file's new content, before it is written.
type pending struct {
	rec     fileRecord
	changed bool
	summary []string
}

// Setup writes h's configuration for o and reports to w what it did.
func (h *Host) Setup(o Options, w io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	changes, err := h.plan(o)
	if err != nil {
		return err
	}
	var files []*pending
	for _, c := range changes {
		p, err := prepare(c)
		if err != nil {
			return err
		}
		files = append(files, p)
	}
	where := "the project " + o.Root
	if o.Scope == User {
		where = "the user " + o.Home
	}
	fmt.Fprintf(w, "whale-ls setup %s: %s, configuration of %s\n", h.Name, h.Title, where)
	any := false
	for _, p := range files {
		if !p.changed {
			fmt.Fprintf(w, "  %s: already in place\n", p.rec.Path)
			continue
		}
		any = true
		verb := "changes"
		if p.rec.Created {
			verb = "creates"
		}
		if o.DryRun {
			fmt.Fprintf(w, "  would %s\n", strings.TrimSuffix(verb, "s")+" "+p.rec.Path+": "+strings.Join(p.summary, "; "))
		} else {
			fmt.Fprintf(w, "  %s %s: %s\n", strings.TrimSuffix(verb, "s")+"d", p.rec.Path, strings.Join(p.summary, "; "))
		}
	}
	if o.DryRun {
		for _, p := range files {
			if p.changed {
				fmt.Fprintf(w, "\n--- %s (new content)\n%s", p.rec.Path, p.rec.Written)
				if !bytes.HasSuffix(p.rec.Written, []byte("\n")) {
					fmt.Fprintln(w)
				}
			}
		}
		fmt.Fprintln(w, "\n(dry run: nothing was written)")
		h.describe(w)
		return nil
	}
	if any {
		if err := h.write(o, files); err != nil {
			return err
		}
	}
	h.describe(w)
	if any {
		fmt.Fprintf(w, "Undo: whale-ls setup %s --undo%s\n", h.Name, o.flags())
	}
	return nil
}

func (o Options) flags() string {
	s := ""
	if o.Scope == User {
		s += " --scope user"
	}
	return s
}

func (h *Host) describe(w io.Writer) {
	if len(h.Off) > 0 {
		fmt.Fprintf(w, "Built-in tools turned off: %s\n", strings.Join(h.Off, ", "))
	}
	for _, l := range h.Limits {
		fmt.Fprintf(w, "Cannot turn off: %s\n", l)
	}
	if len(h.Kept) > 0 {
		fmt.Fprintf(w, "Still built in: %s\n", strings.Join(h.Kept, ", "))
	}
	if h.Start != "" {
		fmt.Fprintf(w, "Start: %s\n", h.Start)
	}
}

// prepare reads c's file and computes its new content.
func prepare(c change) (*pending, error) {
	p := &pending{rec: fileRecord{Path: c.path}}
	src, err := os.ReadFile(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.rec.Created = true
	case err != nil:
		return nil, err
	default:
		p.rec.Original = src
		if st, err := os.Stat(c.path); err == nil {
			p.rec.Mode = st.Mode().Perm()
		}
	}
	switch c.format {
	case "json", "jsonc":
		doc, err := newJSONDoc(src, c.format == "jsonc")
		if err != nil {
			return nil, &ParseError{Path: c.path, Format: c.format, Err: err}
		}
		for _, op := range c.json {
			name := strings.Join(op.path, ".")
			if op.value != nil {
				at, prev, changed, err := doc.set(op.path, op.value)
				if err != nil {
					return nil, fmt.Errorf("%s: cannot set %s: %v; whale-ls setup left the file untouched", c.path, name, err)
				}
				if changed {
					p.rec.JSON = append(p.rec.JSON, undoJSON{Path: at, Set: rawAt(doc, at), Prev: prev})
					p.summary = append(p.summary, name)
				}
				continue
			}
			added, created, err := doc.addToArray(op.path, op.add)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot add to %s: %v; whale-ls setup left the file untouched", c.path, name, err)
			}
			if created != nil {
				p.rec.JSON = append(p.rec.JSON, undoJSON{Path: created, Set: rawAt(doc, created)})
				p.summary = append(p.summary, name+" = "+strings.Join(added, ", "))
			} else if len(added) > 0 {
				p.rec.JSON = append(p.rec.JSON, undoJSON{Path: op.path, Added: added})
				p.summary = append(p.summary, name+" += "+strings.Join(added, ", "))
			}
		}
		p.rec.Written = doc.src
		p.changed = len(p.rec.JSON) > 0
	case "toml":
		doc, err := newTOMLDoc(src)
		if err != nil {
			return nil, &ParseError{Path: c.path, Format: "toml", Err: err}
		}
		for _, op := range c.toml {
			prevLine, changed, newTable, err := doc.set(op.table, op.key, op.value)
			if err != nil {
				return nil, fmt.Errorf("%s: %v; whale-ls setup left the file untouched", c.path, err)
			}
			if changed {
				line := tomlKey(op.key) + " = " + tomlValue(op.value)
				p.rec.TOML = append(p.rec.TOML, undoTOML{Table: op.table, Key: op.key, Line: line, PrevLine: prevLine, NewTable: newTable})
				p.summary = append(p.summary, tomlTable(op.table)+"."+tomlKey(op.key))
			}
		}
		p.rec.Written = doc.bytes()
		p.changed = len(p.rec.TOML) > 0
	case "text":
		p.rec.Written = []byte(c.text)
		switch {
		case p.rec.Created:
			p.changed = true
			p.summary = []string{"whole file"}
		case !bytes.Equal(src, p.rec.Written):
			return nil, fmt.Errorf("%s already exists with other content: whale-ls setup left it untouched; move it away (or merge by hand) and run the command again", c.path)
		}
	default:
		panic("hostsetup: format " + c.format)
	}
	return p, nil
}

// rawAt is the compact JSON of the value at path.
func rawAt(doc *jsonDoc, path []string) json.RawMessage {
	v, _ := doc.get(path)
	data, _ := json.Marshal(v)
	return data
}

// write writes the files and the record (merged with an earlier one).
func (h *Host) write(o Options, files []*pending) error {
	rp := o.recordPath(h)
	rec, err := loadRecord(rp)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &record{Host: h.Name, Scope: o.Scope}
		if o.Scope == Project {
			rec.Root = o.Root
		}
	}
	// The record is written first, so that a file written is never one
	// that Undo does not know about.
	for _, p := range files {
		if !p.changed {
			continue
		}
		if p.rec.Created {
			p.rec.Dirs = missingDirs(filepath.Dir(p.rec.Path))
		}
		merged := false
		for i := range rec.Files {
			f := &rec.Files[i]
			if f.Path != p.rec.Path {
				continue
			}
			// Setup ran before: the first original stays, the edits add up;
			// a file changed since the last run can no longer come back
			// whole.
			if p.rec.Created || !bytes.Equal(p.rec.Original, f.Written) {
				f.Stale = true
			}
			f.Written = p.rec.Written
			f.JSON = append(f.JSON, p.rec.JSON...)
			f.TOML = append(f.TOML, p.rec.TOML...)
			if !f.Created && p.rec.Created {
				f.Created, f.Original, f.Dirs = true, nil, p.rec.Dirs
			}
			merged = true
		}
		if !merged {
			rec.Files = append(rec.Files, p.rec)
		}
	}
	if err := saveRecord(rp, rec); err != nil {
		return err
	}
	for _, p := range files {
		if !p.changed {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p.rec.Path), 0o755); err != nil {
			return err
		}
		mode := p.rec.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := atomicfile.WriteFile(p.rec.Path, p.rec.Written, mode); err != nil {
			return err
		}
	}
	return nil
}

// missingDirs lists dir and its parents that do not exist, outermost first.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		out = append([]string{dir}, out...)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return out
}

func loadRecord(path string) (*record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("setup's record %s is unreadable (%v)", path, err)
	}
	return &rec, nil
}

func saveRecord(path string, rec *record) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o600)
}

// Undo takes out what Setup added for o and reports to w what it did.
func (h *Host) Undo(o Options, w io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	rp := o.recordPath(h)
	rec, err := loadRecord(rp)
	if err != nil {
		return err
	}
	if rec == nil {
		where := o.Root
		if o.Scope == User {
			where = "the user " + o.Home
		}
		return fmt.Errorf("nothing to undo: whale-ls setup %s has not changed the configuration of %s (no record at %s)", h.Name, where, rp)
	}
	verb := func(s string) string {
		if o.DryRun {
			return "would " + s
		}
		return s
	}
	fmt.Fprintf(w, "whale-ls setup %s --undo:\n", h.Name)
	for i := len(rec.Files) - 1; i >= 0; i-- {
		f := rec.Files[i]
		cur, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "  %s: gone already\n", f.Path)
			continue
		}
		if err != nil {
			return err
		}
		if bytes.Equal(cur, f.Written) && !f.Stale {
			if f.Created {
				fmt.Fprintf(w, "  %s %s (setup created it)\n", verb("removed"), f.Path)
				if !o.DryRun {
					if err := os.Remove(f.Path); err != nil {
						return err
					}
					for j := len(f.Dirs) - 1; j >= 0; j-- {
						os.Remove(f.Dirs[j]) // only when empty
					}
				}
				continue
			}
			fmt.Fprintf(w, "  %s %s as it was before setup\n", verb("restored"), f.Path)
			if !o.DryRun {
				mode := f.Mode
				if mode == 0 {
					mode = 0o644
				}
				if err := atomicfile.WriteFile(f.Path, f.Original, mode); err != nil {
					return err
				}
			}
			continue
		}
		// Changed since setup: only setup's own entries go.
		out, err := takeOut(f, cur)
		if err != nil {
			fmt.Fprintf(w, "  %s: changed since setup and %v; left as it is: take whale's entries out by hand\n", f.Path, err)
			continue
		}
		if f.Created && isEmptyDoc(out) {
			fmt.Fprintf(w, "  %s %s (setup created it; nothing else is in it)\n", verb("removed"), f.Path)
			if !o.DryRun {
				os.Remove(f.Path)
				for j := len(f.Dirs) - 1; j >= 0; j-- {
					os.Remove(f.Dirs[j])
				}
			}
			continue
		}
		fmt.Fprintf(w, "  %s whale's entries from %s (changed since setup; the rest stays)\n", verb("took"), f.Path)
		if !o.DryRun {
			st, _ := os.Stat(f.Path)
			mode := fs.FileMode(0o644)
			if st != nil {
				mode = st.Mode().Perm()
			}
			if err := atomicfile.WriteFile(f.Path, out, mode); err != nil {
				return err
			}
		}
	}
	if o.DryRun {
		fmt.Fprintln(w, "(dry run: nothing was changed)")
		return nil
	}
	return os.Remove(rp)
}

func isEmptyDoc(b []byte) bool {
	t := strings.TrimSpace(string(b))
	return t == "" || t == "{}"
}

// takeOut removes setup's edits from cur, a file changed since setup.
func takeOut(f fileRecord, cur []byte) ([]byte, error) {
	switch {
	case len(f.TOML) > 0:
		doc, err := newTOMLDoc(cur)
		if err != nil {
			return nil, fmt.Errorf("is no longer valid TOML (%v)", err)
		}
		for i := len(f.TOML) - 1; i >= 0; i-- {
			e := f.TOML[i]
			doc.unset(e.Table, e.Key, e.Line, e.PrevLine, e.NewTable)
		}
		return doc.bytes(), nil
	case len(f.JSON) > 0:
		doc, err := newJSONDoc(cur, true)
		if err != nil {
			return nil, fmt.Errorf("is no longer valid JSON (%v)", err)
		}
		for i := len(f.JSON) - 1; i >= 0; i-- {
			e := f.JSON[i]
			if len(e.Added) > 0 {
				if err := doc.removeFromArray(e.Path, e.Added); err != nil {
					return nil, err
				}
				continue
			}
			var set any
			json.Unmarshal(e.Set, &set)
			if e.Prev != nil {
				// A value setup replaced comes back only while it is still
				// the one setup wrote.
				if v, ok := doc.get(e.Path); ok && jsonEqual(v, set) {
					if err := doc.setRaw(e.Path, e.Prev); err != nil {
						return nil, err
					}
				}
				continue
			}
			if err := subtract(doc, e.Path, set); err != nil {
				return nil, err
			}
		}
		return doc.src, nil
	}
	return nil, errors.New("was written whole by setup")
}

// subtract takes out of the value at path what setup put there (set):
// all of it while it is unchanged; else, member by member and item by item,
// what is still as setup wrote it, and the object or list itself when
// nothing else is left in it. A value someone changed stays.
func subtract(doc *jsonDoc, path []string, set any) error {
	cur, ok := doc.get(path)
	if !ok {
		return nil
	}
	if jsonEqual(cur, set) {
		return doc.remove(path)
	}
	switch set := set.(type) {
	case map[string]any:
		if _, ok := cur.(map[string]any); !ok {
			return nil
		}
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := subtract(doc, append(append([]string(nil), path...), k), set[k]); err != nil {
				return err
			}
		}
	case []any:
		if _, ok := cur.([]any); !ok {
			return nil
		}
		var items []string
		for _, it := range set {
			if s, ok := it.(string); ok {
				items = append(items, s)
			}
		}
		if err := doc.removeFromArray(path, items); err != nil {
			return err
		}
	default:
		return nil
	}
	if left, ok := doc.get(path); ok {
		switch l := left.(type) {
		case map[string]any:
			if len(l) == 0 {
				return doc.remove(path)
			}
		case []any:
			if len(l) == 0 {
				return doc.remove(path)
			}
		}
	}
	return nil
}

// List writes the hosts setup knows and what it does for each.
func List(w io.Writer) {
	for _, h := range Hosts {
		fmt.Fprintf(w, "%s — %s (tested: %s)\n", h.Name, h.Title, h.Tested)
		for _, scope := range []Scope{Project, User} {
			o := Options{Scope: scope, Root: "PROJECT", Home: "~", Getenv: func(string) string { return "" }, Command: []string{"whale-ls", "mcp"}}
			changes, _ := h.plan(o)
			var paths []string
			for _, c := range changes {
				paths = append(paths, c.path)
			}
			fmt.Fprintf(w, "  %s: %s\n", scope, strings.Join(paths, ", "))
		}
		if len(h.Off) > 0 {
			fmt.Fprintf(w, "  turns off: %s\n", strings.Join(h.Off, ", "))
		}
		for _, l := range h.Limits {
			fmt.Fprintf(w, "  cannot turn off: %s\n", l)
		}
		if len(h.Kept) > 0 {
			fmt.Fprintf(w, "  still built in: %s\n", strings.Join(h.Kept, ", "))
		}
		if h.Start != "" {
			fmt.Fprintf(w, "  start: %s\n", h.Start)
		}
	}
}

// program and args return the command's program and its arguments.
func (o Options) program() string { return o.Command[0] }
func (o Options) args() []string  { return append([]string{}, o.Command[1:]...) }

// home joins the user's home folder and rel.
func (o Options) home(rel ...string) string {
	return filepath.Join(append([]string{o.Home}, rel...)...)
}

// root joins the project folder and rel.
func (o Options) root(rel ...string) string {
	return filepath.Join(append([]string{o.Root}, rel...)...)
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config.
func (o Options) xdgConfig() string {
	if d := o.getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return o.home(".config")
}
