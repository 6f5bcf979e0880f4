package catalog

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed list_dir.md
var listDirDoc string

const (
	listDefaultDepth = 2
	listMaxEntries   = 1000
	listPerFolder    = 100
	// listCountLimit bounds how far list_dir keeps walking to count what it
	// did not show.
	listCountLimit = 100000
)

type listDirInput struct {
	Path           string `json:"path"`
	Depth          int    `json:"depth"`
	IncludeIgnored bool   `json:"include_ignored"`
}

// ListDir is list_dir: a folder's entries as a tree, ignore-aware.
func ListDir(ws *workspace.Set) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "list_dir",
		Description: listDirDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupFiles,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{
			"path":            toolbridge.PathStr("Folder to list (default: the workspace root)."),
			"depth":           toolbridge.Int("How many levels to show (default 2; 1 = only the folder's own entries).", 1),
			"include_ignored": toolbridge.Bool("Also show what .gitignore and .ignore files exclude (default false)."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in listDirInput) (toolbridge.Result, error) {
		p := in.Path
		if p == "" {
			p = "."
		}
		t, err := resolve(ws, p, workspace.Read)
		if err != nil {
			return toolbridge.Result{}, err
		}
		fi, err := t.Root.FS.Stat(t.Rel)
		if err != nil {
			return toolbridge.Result{}, statFailure(t, p, err)
		}
		if !fi.IsDir() {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s is a file, not a folder; use read_file to read it", excerpt.Text(p))
		}
		depth := in.Depth
		if depth <= 0 {
			depth = listDefaultDepth
		}
		return listTree(ctx, t, p, depth, in.IncludeIgnored)
	})
}

// listTree renders the folder as an indented tree, folders with a trailing
// slash. It shows at most listMaxEntries entries in all and, below the top
// level, at most listPerFolder entries per folder, so one huge folder cannot
// hide the rest of the tree; what is left out is counted in "… N more" lines
// at the place it belongs.
func listTree(ctx context.Context, t workspace.Target, shown string, depth int, includeIgnored bool) (toolbridge.Result, error) {
	base := t.Rel
	// The folder's own entries start at the margin, each level below two
	// spaces further in: an indent on every line of a flat listing cost
	// the model a token per entry. The header ends with a colon, as `ls -R`
	// heads a folder's entries.
	header := shown
	if !strings.HasSuffix(header, "/") {
		header += "/"
	}
	lines := []string{header + ":"}
	shownN, dirs, files, more := 0, 0, 0, 0
	perFolder := map[string]int{}
	moreAt := map[string]int{}    // folder -> index of its "… more" line
	moreCount := map[string]int{} // folder -> entries left out
	ig := workspace.NewIgnorer(t.Root.FS)
	err := workspace.Walk(ctx, t.Root.FS, ig, base, workspace.WalkOptions{IncludeIgnored: includeIgnored, MaxDepth: depth}, func(rel string, e fs.DirEntry) error {
		if rel == base {
			return nil
		}
		sub := rel
		if base != "." {
			sub = strings.TrimPrefix(rel, base+"/")
		}
		level := strings.Count(sub, "/")
		parent := path.Dir(rel)
		indent := strings.Repeat("  ", level)
		if shownN >= listMaxEntries || (level > 0 && perFolder[parent] >= listPerFolder) {
			more++
			if more >= listCountLimit {
				return fs.SkipAll
			}
			if _, ok := moreAt[parent]; !ok {
				moreAt[parent] = len(lines)
				lines = append(lines, indent)
			}
			moreCount[parent]++
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		perFolder[parent]++
		name := path.Base(rel)
		switch {
		case e.IsDir():
			name += "/"
			dirs++
		case e.Type()&fs.ModeSymlink != 0:
			name += " (symlink)"
			files++
		default:
			files++
		}
		lines = append(lines, indent+name)
		shownN++
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		if ctx.Err() != nil {
			return toolbridge.Result{}, ctx.Err()
		}
		return toolbridge.Result{}, err
	}
	for folder, i := range moreAt {
		lines[i] += fmt.Sprintf("… %d more entries (list %s to see them)", moreCount[folder], folder)
	}
	if shownN == 0 {
		lines = append(lines, "(empty folder)")
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
		summary += fmt.Sprintf("\n%s more entries not shown (subfolders left out count as one); list a subfolder with path, or use a smaller depth", count)
	}
	lines = append(lines, summary)
	data := map[string]any{"path": shown, "folders": dirs, "files": files, "more": more}
	return toolbridge.Result{Text: strings.Join(lines, "\n"), Data: data, MoreHint: "list a subfolder with path, or use a smaller depth"}, nil
}
