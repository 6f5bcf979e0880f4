// Command changes measures the change journal (package changes) the way the
// tools use it, printing medians and ratios against a baseline measured in
// the same run:
//
//   - a snapshot before a shell task on a tree (default: Go's src), the first
//     one (empty journal; the tree is read once beforehand so the page cache
//     is warm) and later ones (goal: at most 150 ms), and the journal's size;
//   - a revert of one entry (plan, write, journal) of a 2,000-line file the
//     user edited elsewhere;
//   - Begin+Commit around a small edit's write, against the same write
//     without the journal (goal: at most 1.3×), with and without Options.Sync;
//   - the case: Begin+Commit of a one-line change of a 2,000-line
//     file around atomicfile.WriteFile of it, against the bare WriteFile of
//     the same file, the two alternating run by run so that both see the same
//     load (printed before and after).
//
// Usage:
//
//	go run ./bench/changes [-tree DIR] [-runs N]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/whale-ls/whale-ls/atomicfile"
	"github.com/whale-ls/whale-ls/bench/internal/benchserver"
	"github.com/whale-ls/whale-ls/catalog"
	"github.com/whale-ls/whale-ls/changes"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

func main() {
	tree := flag.String("tree", benchserver.GoSrc(), "tree to snapshot")
	runs := flag.Int("runs", 15, "timed runs per case (median reported)")
	flag.Parse()
	if err := run(*tree, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/changes:", err)
		os.Exit(1)
	}
}

func run(tree string, runs int) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "bench-changes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Printf("machine: %d CPUs, load average %s\n", runtime.NumCPU(), benchserver.LoadAvg())

	// Snapshots.
	root, err := os.OpenRoot(tree)
	if err != nil {
		return err
	}
	defer root.Close()
	files, size := warm(ctx, root)
	jdir := filepath.Join(work, "journal")
	j, err := changes.Open(jdir, changes.Options{})
	if err != nil {
		return err
	}
	defer j.Close()
	t0 := time.Now()
	if _, err := j.Snapshot(ctx, root, tree, workspace.NewIgnorer(root)); err != nil {
		return err
	}
	first := time.Since(t0)
	stored := du(jdir)
	later, err := median(runs, func() (time.Duration, error) {
		_, err := j.Snapshot(ctx, root, tree, workspace.NewIgnorer(root))
		return 0, err
	})
	if err != nil {
		return err
	}
	snap, err := j.Snapshot(ctx, root, tree, workspace.NewIgnorer(root))
	if err != nil {
		return err
	}
	t0 = time.Now()
	fcs, _, err := snap.Changes(ctx)
	if err != nil {
		return err
	}
	changesTime := time.Since(t0)
	goal := "ok"
	if later > 150*time.Millisecond {
		goal = "OVER GOAL"
	}
	fmt.Printf("tree: %s (%d files, %.0f MiB)\n", tree, files, float64(size)/(1<<20))
	fmt.Printf("snapshot, first:               %8.1f ms  (journal then %.1f MiB)\n", ms(first), float64(stored)/(1<<20))
	fmt.Printf("snapshot, later:               %8.1f ms  goal <= 150 ms: %s\n", ms(later), goal)
	fmt.Printf("changes after an idle task:    %8.1f ms  (%d files changed)\n", ms(changesTime), len(fcs))
	fmt.Printf("journal growth over %d later snapshots of an unchanged tree: %d bytes\n", runs+1, du(jdir)-stored)

	// Revert of one entry.
	dir := filepath.Join(work, "w")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "big.txt")
	var text bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&text, "line %d of a file\n", i)
	}
	orig := text.Bytes()
	whale := bytes.Replace(orig, []byte("line 100 of"), []byte("LINE 100 of"), 1)
	user := bytes.Replace(whale, []byte("line 1900 of"), []byte("USER 1900 of"), 1)
	rj, err := changes.Open(filepath.Join(work, "revert-journal"), changes.Options{})
	if err != nil {
		return err
	}
	defer rj.Close()
	revert, err := median(runs, func() (time.Duration, error) {
		if err := os.WriteFile(path, user, 0o644); err != nil {
			return 0, err
		}
		p, err := rj.Begin(changes.Meta{Tool: "edit"}, []changes.FileChange{{Path: path, Before: orig, After: whale, BeforeExists: true, AfterExists: true, Where: changes.WhereDisk}})
		if err != nil {
			return 0, err
		}
		e, err := p.Commit()
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		plan, err := rj.PlanRevert(ctx, []string{e.ID}, readDisk)
		if err != nil {
			return 0, err
		}
		if len(plan.Conflicts) > 0 || len(plan.Files) != 1 {
			return 0, fmt.Errorf("revert planned %d files, %d conflicts", len(plan.Files), len(plan.Conflicts))
		}
		rp, err := rj.Begin(changes.Meta{Tool: "changes_revert", RevertOf: []string{e.ID}}, plan.Changes(func(string) string { return changes.WhereDisk }))
		if err != nil {
			return 0, err
		}
		if err := atomicfile.WriteFile(path, plan.Files[0].Content, 0o644); err != nil {
			rp.Abort()
			return 0, err
		}
		_, err = rp.Commit()
		return time.Since(t0), err
	})
	if err != nil {
		return err
	}
	fmt.Printf("revert of one entry (2,000-line file, plan + write + journal): %.2f ms\n", ms(revert))

	// Journaling overhead on one small edit.
	small := filepath.Join(dir, "small.go")
	content := []byte("package p\n\nfunc F() int {\n\treturn 1\n}\n")
	os.WriteFile(small, content, 0o644)
	n := 0
	edit := func() ([]byte, []byte) {
		n++
		before, _ := os.ReadFile(small)
		return before, bytes.Replace(content, []byte("return 1"), fmt.Appendf(nil, "return %d", n), 1)
	}
	plain, err := median(runs*4, func() (time.Duration, error) {
		_, after := edit()
		return 0, atomicfile.WriteFile(small, after, 0o644)
	})
	if err != nil {
		return err
	}
	fmt.Printf("small edit, write only:        %8.3f ms\n", ms(plain))
	for _, sync := range []bool{false, true} {
		ej, err := changes.Open(filepath.Join(work, fmt.Sprintf("edit-journal-%v", sync)), changes.Options{Sync: sync})
		if err != nil {
			return err
		}
		journaled, err := median(runs*4, func() (time.Duration, error) {
			before, after := edit()
			return 0, journaledWrite(ej, small, before, after)
		})
		ej.Close()
		if err != nil {
			return err
		}
		verdict := "ok"
		if ratio := float64(journaled) / float64(plain); ratio > 1.3 {
			verdict = "OVER GOAL"
		}
		fmt.Printf("small edit, journaled (Sync=%-5v): %8.3f ms  ratio %.2fx  goal <= 1.3x: %s\n", sync, ms(journaled), float64(journaled)/float64(plain), verdict)
	}
	if err := bigEdit(work, runs*8); err != nil {
		return err
	}
	return editTool(work, runs*8)
}

// editTool measures what the goal is about: one call of the real
// edit tool (lock, read, plan, stage, verify, rename) on a 2,000-line file
// with the journal, against the same call without it, alternating.
func editTool(work string, runs int) error {
	ctx := context.Background()
	var lines bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&lines, "\tx%d := compute(%d, \"line %d of a file\")\n", i, i, i)
	}
	j, err := changes.Open(filepath.Join(work, "edit-tool-journal"), changes.Options{})
	if err != nil {
		return err
	}
	defer j.Close()
	registry := func(name string, journal *changes.Journal) (*toolbridge.Registry, error) {
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "big.go"), lines.Bytes(), 0o644); err != nil {
			return nil, err
		}
		ws, err := workspace.NewSet([]string{dir})
		if err != nil {
			return nil, err
		}
		c := catalog.NewCommitter(catalog.CommitOptions{Workspace: ws, Journal: journal})
		r := toolbridge.NewRegistry(nil)
		return r, r.Register(catalog.Edit(c))
	}
	var regs [2]*toolbridge.Registry
	for k, name := range []string{"edit-plain", "edit-journaled"} {
		journal := j
		if k == 0 {
			journal = nil
		}
		if regs[k], err = registry(name, journal); err != nil {
			return err
		}
	}
	cur := [2]int{1000, 1000}
	edit := func(k int) (time.Duration, error) {
		input, _ := json.Marshal(map[string]any{"file_path": "big.go", "search": fmt.Sprintf("x1000 := compute(%d,", cur[k]), "replace": fmt.Sprintf("x1000 := compute(%d,", cur[k]+1)})
		cur[k]++
		t0 := time.Now()
		env := regs[k].Dispatch(ctx, toolbridge.Call{Name: "edit", Input: input})
		d := time.Since(t0)
		if !env.OK {
			return 0, fmt.Errorf("edit: %s %s", env.Code, env.Text)
		}
		return d, nil
	}
	loadBefore := benchserver.LoadAvg()
	p, jd, err := alternate(runs, func() (time.Duration, error) { return edit(0) }, func() (time.Duration, error) { return edit(1) })
	if err != nil {
		return err
	}
	verdict := "ok"
	if ratio := float64(jd) / float64(p); ratio > 1.3 {
		verdict = "OVER GOAL"
	}
	fmt.Printf("the edit tool on a 2,000-line file, %d alternating calls (load %s, then %s):\n", runs, loadBefore, benchserver.LoadAvg())
	fmt.Printf("  without the journal:            %8.3f ms\n", ms(p))
	fmt.Printf("  with the journal:               %8.3f ms  ratio %.2fx  goal <= 1.3x: %s\n", ms(jd), float64(jd)/float64(p), verdict)
	return nil
}

// bigEdit measures one edit-sized change, one line of a 2,000-line file:
// the bare atomic write against Begin + the same write + Commit, alternating
// the two so that drifting load hits both alike.
func bigEdit(work string, runs int) error {
	dir := filepath.Join(work, "big-edit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "big.go")
	var text bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&text, "\tx%d := compute(%d, \"line %d of a file\")\n", i, i, i)
	}
	orig := text.Bytes()
	content := orig
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return err
	}
	n := 0
	change := func() (before, after []byte) {
		n++
		before = content
		after = bytes.Replace(orig, []byte("x1000 := compute(1000,"), fmt.Appendf(nil, "x1000 := compute(%d,", 1000+n), 1)
		content = after
		return before, after
	}
	bj, err := changes.Open(filepath.Join(work, "big-edit-journal"), changes.Options{})
	if err != nil {
		return err
	}
	defer bj.Close()
	bare := func() (time.Duration, error) {
		_, after := change()
		t0 := time.Now()
		err := atomicfile.WriteFile(path, after, 0o644)
		return time.Since(t0), err
	}
	journaled := func() (time.Duration, error) {
		before, after := change()
		t0 := time.Now()
		err := journaledWrite(bj, path, before, after)
		return time.Since(t0), err
	}
	loadBefore := benchserver.LoadAvg()
	w, jw, err := alternate(runs, bare, journaled)
	if err != nil {
		return err
	}
	verdict := "ok"
	if ratio := float64(jw) / float64(w); ratio > 1.3 {
		verdict = "OVER GOAL"
	}
	fmt.Printf("2,000-line file, one line changed, %d alternating runs (load %s, then %s):\n", runs, loadBefore, benchserver.LoadAvg())
	fmt.Printf("  atomicfile.WriteFile:           %8.3f ms\n", ms(w))
	fmt.Printf("  Begin + WriteFile + Commit:     %8.3f ms  ratio %.2fx  goal <= 1.3x: %s\n", ms(jw), float64(jw)/float64(w), verdict)
	return nil
}

// alternate runs base and with one after the other, runs+1 times (the
// first round warms up), so that drifting load hits both alike, and
// returns the median of each.
func alternate(runs int, base, with func() (time.Duration, error)) (time.Duration, time.Duration, error) {
	var ds [2][]time.Duration
	for i := range runs + 1 {
		for k, fn := range []func() (time.Duration, error){base, with} {
			d, err := fn()
			if err != nil {
				return 0, 0, err
			}
			if i > 0 {
				ds[k] = append(ds[k], d)
			}
		}
	}
	for k := range ds {
		slices.Sort(ds[k])
	}
	return ds[0][len(ds[0])/2], ds[1][len(ds[1])/2], nil
}

// journaledWrite is an edit tool's commit of one file to disk: Begin, the
// atomic write, then Commit (Abort when the write failed).
func journaledWrite(j *changes.Journal, path string, before, after []byte) error {
	p, err := j.Begin(changes.Meta{Tool: "edit"}, []changes.FileChange{{Path: path, Before: before, After: after, BeforeExists: true, AfterExists: true, Where: changes.WhereDisk}})
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, after, 0o644); err != nil {
		p.Abort()
		return err
	}
	_, err = p.Commit()
	return err
}

// median runs fn once to warm up, then runs times, and returns the median
// duration of fn, or of the part fn timed itself when it returns one (its
// setup left out).
func median(runs int, fn func() (time.Duration, error)) (time.Duration, error) {
	if _, err := fn(); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for range runs {
		t0 := time.Now()
		part, err := fn()
		if err != nil {
			return 0, err
		}
		d := time.Since(t0)
		if part > 0 {
			d = part
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// warm reads every file the snapshot will see, so that the first snapshot
// is timed with a warm page cache, and counts them.
func warm(ctx context.Context, root *os.Root) (files int, size int64) {
	workspace.Walk(ctx, root, workspace.NewIgnorer(root), ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if d.Type().IsRegular() {
			if b, err := root.ReadFile(rel); err == nil {
				files++
				size += int64(len(b))
			}
		}
		return nil
	})
	return files, size
}

func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func readDisk(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
