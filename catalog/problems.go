package catalog

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed problems.md
var problemsDoc string

type problemsInput struct {
	Path string `json:"path"`
}

// Problems is problems: the editor's diagnostics of a file or of the
// workspace, grouped by file, errors first.
func Problems(l Lang) toolbridge.Tool {
	spec := toolbridge.Spec{Name: "problems", Description: problemsDoc, ReadOnly: true, Group: toolbridge.GroupSearch,
		InputSchema: toolbridge.Object(nil, map[string]*toolbridge.Schema{"path": toolbridge.PathStr("Optional: one file; without it, the whole workspace.")})}
	return toolbridge.Define(spec, func(ctx context.Context, in problemsInput) (toolbridge.Result, error) {
		var paths []string
		if strings.TrimSpace(in.Path) != "" {
			t, err := resolve(l.Workspace, in.Path, workspace.Read)
			if err != nil {
				return toolbridge.Result{}, err
			}
			paths = []string{t.Abs}
		}
		ds, err := l.Language.Diagnostics(ctx, paths)
		if err != nil {
			return toolbridge.Result{}, languageFailure(ctx, "problems", err)
		}
		if len(ds.Items) == 0 {
			return toolbridge.Result{Text: "No problems."}, nil
		}
		return toolbridge.Result{Text: l.renderProblems(ds.Items, languageResultLimit)}, nil
	})
}

var severityNames = map[int]string{toolbridge.SeverityError: "error", toolbridge.SeverityWarning: "warning", toolbridge.SeverityInformation: "info", toolbridge.SeverityHint: "hint"}

// problemLine is one problem as `path:line: severity: message (source)`.
func (l Lang) problemLine(d toolbridge.Diagnostic) string {
	sev := severityNames[d.Severity]
	if sev == "" {
		sev = "problem"
	}
	src := d.Source
	if d.Code != "" {
		src = strings.TrimSpace(src + " " + d.Code)
	}
	if src != "" {
		src = " (" + src + ")"
	}
	return fmt.Sprintf("%s:%d: %s: %s%s", l.shownPath(d.Path), d.Start.Line+1, sev, strings.TrimSpace(d.Message), src)
}

// sortProblems orders errors first, then by file and line.
func sortProblems(ds []toolbridge.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		si, sj := severityRank(ds[i].Severity), severityRank(ds[j].Severity)
		if si != sj {
			return si < sj
		}
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Start.Line < ds[j].Start.Line
	})
}

func severityRank(s int) int {
	if s < 1 || s > 4 {
		return 5
	}
	return s
}

// renderProblems groups problems by file (files with errors first), at
// most limit of them.
func (l Lang) renderProblems(ds []toolbridge.Diagnostic, limit int) string {
	sortProblems(ds)
	byFile := map[string][]toolbridge.Diagnostic{}
	var order []string
	for _, d := range ds {
		if _, ok := byFile[d.Path]; !ok {
			order = append(order, d.Path)
		}
		byFile[d.Path] = append(byFile[d.Path], d)
	}
	var b strings.Builder
	n := 0
	for _, p := range order {
		errs := 0
		for _, d := range byFile[p] {
			if d.Severity == toolbridge.SeverityError {
				errs++
			}
		}
		fmt.Fprintf(&b, "%s: %d %s, %d other\n", l.shownPath(p), errs, editPlural(errs, "error", "errors"), len(byFile[p])-errs)
		for _, d := range byFile[p] {
			if n == limit {
				fmt.Fprintf(&b, "… and %d more\n", len(ds)-limit)
				return strings.TrimRight(b.String(), "\n")
			}
			n++
			b.WriteString("  " + l.problemLine(d) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
