package toolbridge

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed list_dir.md
var listDirDoc string

const (
	listDefaultDepth = 2
	listMaxEntries   = 1000
	// listCountLimit bounds how far list_dir keeps walking to count what it
	// did not show.
	listCountLimit = 100000
)

type listDirInput struct {
	Path           string `json:"path"`
	Depth          int    `json:"depth"`
	IncludeIgnored bool   `json:"include_ignored"`
}

func listDirTool(d *Deps) Tool {
	spec := Spec{
		Name:        "list_dir",
		Description: listDirDoc,
		ReadOnly:    true,
		Group:       GroupFiles,
		InputSchema: Object(nil, map[string]*Schema{
			"path":            PathStr("Folder to list (default: the workspace root)."),
			"depth":           Int("How many levels to show (default 2; 1 = only the folder's own entries).", 1),
			"include_ignored": Bool("Also show what .gitignore and .ignore files exclude (default false)."),
		}),
	}
	return Define(spec, func(ctx context.Context, in listDirInput) (Result, error) {
		p := in.Path
		if p == "" {
			p = "."
		}
		t, err := d.Resolve(p, workspace.Read)
		if err != nil {
			return Result{}, err
		}
		fi, err := t.Root.FS.Stat(t.Rel)
		if err != nil {
			return Result{}, statFailure(d, t, p, err)
		}
		if !fi.IsDir() {
			return Result{}, Fail(CodeInvalidInput, "%s is a file, not a folder; use read_file to read it", p)
		}
		depth := in.Depth
		if depth <= 0 {
			depth = listDefaultDepth
		}
		return listTree(ctx, t, p, depth, in.IncludeIgnored)
	})
}

// listTree renders the folder as an indented tree, folders first-class with
// a trailing slash, capped at listMaxEntries.
func listTree(ctx context.Context, t workspace.Target, shown string, depth int, includeIgnored bool) (Result, error) {
	var b strings.Builder
	base := t.Rel
	header := shown
	if !strings.HasSuffix(header, "/") {
		header += "/"
	}
	b.WriteString(header + "\n")
	shownN, more, dirs, files := 0, 0, 0, 0
	ig := workspace.NewIgnorer(t.Root.FS)
	err := workspace.Walk(ctx, t.Root.FS, ig, base, workspace.WalkOptions{IncludeIgnored: includeIgnored, MaxDepth: depth}, func(rel string, e fs.DirEntry) error {
		if rel == base {
			return nil
		}
		if shownN >= listMaxEntries {
			more++
			if more >= listCountLimit {
				return fs.SkipAll
			}
			return nil
		}
		sub := strings.TrimPrefix(rel, base+"/")
		if base == "." {
			sub = rel
		}
		level := strings.Count(sub, "/")
		name := path.Base(rel)
		switch {
		case e.IsDir():
			name += "/"
			dirs++
		case e.Type()&fs.ModeSymlink != 0:
			name += " -> (symlink)"
			files++
		default:
			files++
		}
		b.WriteString(strings.Repeat("  ", level+1) + name + "\n")
		shownN++
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, err
	}
	if shownN == 0 {
		b.WriteString("  (empty folder)\n")
	}
	summary := fmt.Sprintf("(%d folders, %d files shown, depth %d", dirs, files, depth)
	if !includeIgnored {
		summary += "; ignored files hidden"
	}
	summary += ")"
	if more > 0 {
		count := fmt.Sprintf("%d", more)
		if more >= listCountLimit {
			count = fmt.Sprintf("at least %d", more)
		}
		summary += fmt.Sprintf("\n… %s more entries not shown; list a subfolder with path, or use a smaller depth", count)
	}
	b.WriteString(summary)
	data := map[string]any{"path": shown, "folders": dirs, "files": files, "more": more}
	return Result{Text: b.String(), Data: data, MoreHint: "list a subfolder with path, or use a smaller depth"}, nil
}
