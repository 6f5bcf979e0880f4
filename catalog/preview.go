package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/terminal"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

// Previews: what a tool call will do, told to a person before it runs, so
// that a host's approval (VS Code's confirmation, CodeCompanion's prompt)
// shows the change instead of the raw input. An edit is planned by the
// same planner as its commit, on the same repaired input, and nothing is
// written, journaled or left locked; a command is judged by the exec
// boundary's own policy (execboundary.Gate.JudgeCommand).

// Preview is what a tool call will do, for a person.
type Preview struct {
	// ReadOnly: the call changes nothing of the user's (it reads, plans, or
	// asks the user itself), so a host need not ask.
	ReadOnly bool
	// WhaleAsks: whale itself will ask the user before the change or the
	// command takes effect (edits.review, or the exec boundary's rules), so
	// a host need not ask again.
	WhaleAsks bool
	// Title is one short line: "Edit src/main.go (+3 −1)".
	Title string
	// Detail is Markdown: the diff in a ```diff fence for a change; the
	// command, its programs, its folder and what the exec boundary will do
	// for a command.
	Detail string
	// Files are the files the change touches, relative to their workspace
	// folder.
	Files []PreviewFile
	// Error, when set, is why the call will fail (the search text is not
	// in the file, the command will be refused); Detail then says so too.
	Error string
}

// PreviewFile is one file of a previewed change.
type PreviewFile struct {
	Path           string
	Added, Removed int
}

// PreviewOptions is what previews are planned with: a session's registry
// (the tools and their input repair), commit path, workspace and exec
// boundary (nil: none).
type PreviewOptions struct {
	Registry  *toolbridge.Registry
	Commits   *Committer
	Workspace *workspace.Set
	Gate      *execboundary.Gate
}

// PreviewCall previews a call of tool with input as the model sent it. A
// call that cannot be prepared (an unknown tool, input that does not fit
// the schema) yields a preview with Error set: the call would fail the same
// way.
func PreviewCall(ctx context.Context, o PreviewOptions, tool string, input json.RawMessage) Preview {
	spec, in, _, err := o.Registry.Prepare(tool, input)
	if err != nil {
		return failedPreview(fmt.Sprintf("Call whale %s", tool), err)
	}
	switch spec.Name {
	case "edit", "multi_edit", "write", "apply_patch", "changes_revert":
		if o.Commits != nil {
			return o.Commits.previewChange(ctx, spec.Name, in)
		}
	case "shell_run":
		return previewShell(o.Workspace, o.Gate, in)
	}
	p := Preview{ReadOnly: spec.ReadOnly, Title: fmt.Sprintf("Call whale %s", spec.Name)}
	switch spec.Group {
	case toolbridge.GroupPlan, toolbridge.GroupTodo, toolbridge.GroupInput:
		// The plan, the todo list and questions to the user change nothing
		// of the user's.
		p.ReadOnly = true
	}
	p.Detail = "Input:\n\n" + fenced("json", indentJSON(in))
	return p
}

// failedPreview is the preview of a call that will fail with err.
func failedPreview(title string, err error) Preview {
	text := err.Error()
	var f *toolbridge.Failure
	if errors.As(err, &f) {
		text = f.Text
	}
	return Preview{Title: title, Error: text, Detail: "This call will fail: " + text}
}

// previewChange plans an edit tool's call as its commit would, without
// committing it.
func (c *Committer) previewChange(ctx context.Context, tool string, input json.RawMessage) Preview {
	var shown []string
	var plan planner
	var patch *patchPlan
	title := "Edit"
	switch tool {
	case "edit":
		var in editInput
		if err := json.Unmarshal(input, &in); err != nil {
			return failedPreview("Edit", err)
		}
		shown, plan = []string{in.FilePath}, c.editPlanner(ctx, in.FilePath, []edits.Edit{{Search: in.Search, Replace: in.Replace, All: in.All}})
		title = "Edit " + in.FilePath
	case "multi_edit":
		var in multiEditInput
		if err := json.Unmarshal(input, &in); err != nil {
			return failedPreview("Edit", err)
		}
		steps := make([]edits.Edit, len(in.Edits))
		for i, e := range in.Edits {
			steps[i] = edits.Edit{Search: e.Search, Replace: e.Replace, All: e.All}
		}
		shown, plan = []string{in.FilePath}, c.editPlanner(ctx, in.FilePath, steps)
		title = "Edit " + in.FilePath
	case "write":
		var in writeInput
		if err := json.Unmarshal(input, &in); err != nil {
			return failedPreview("Write", err)
		}
		shown, plan = []string{in.FilePath}, writePlanner(in)
		title = "Write " + in.FilePath
	case "apply_patch":
		var in applyPatchInput
		if err := json.Unmarshal(input, &in); err != nil {
			return failedPreview("Apply a patch", err)
		}
		pp, err := parsePatchPlan(in.Patch)
		if err != nil {
			return failedPreview("Apply a patch", err)
		}
		shown, plan, patch = pp.paths, pp.plan, pp
		title = "Apply a patch"
	case "changes_revert":
		var in changesRevertInput
		if err := json.Unmarshal(input, &in); err != nil {
			return failedPreview("Revert", err)
		}
		title = "Revert"
		ids, err := c.revertIDs(strings.TrimSpace(in.ID), strings.TrimSpace(in.To))
		if err == nil {
			shown, err = c.revertPaths(ids)
		}
		if err != nil {
			return failedPreview(title, err)
		}
		plan = c.revertPlanner(ctx, ids)
	}
	chs, err := c.plan(ctx, shown, plan)
	if err != nil {
		return failedPreview(title, err)
	}
	var repairs []string
	if patch != nil {
		repairs = editAppendNew(patch.repairs, patch.planRepairs...)
	}
	for _, ch := range chs {
		repairs = editAppendNew(repairs, ch.plan.Applied.Repairs...)
	}
	return c.changePreview(tool, chs, repairs)
}

// plan runs plan under the commit locks of shown, as a commit does, and
// releases them: nothing is staged, written or journaled.
func (c *Committer) plan(ctx context.Context, shown []string, plan planner) ([]*fileChange, error) {
	var keys []string
	for _, s := range shown {
		if t, err := resolve(c.ws, s, workspace.Write); err == nil {
			keys = append(keys, t.Abs)
		}
	}
	tx, err := c.commitLocks().Begin(ctx, keys...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, toolbridge.Fail(toolbridge.CodeCanceled, "the preview was canceled while another edit of the same file was under way")
		}
		return nil, fmt.Errorf("edit lock: %w", err)
	}
	defer tx.End()
	return plan(c.loadForEdit)
}

// changePreview tells a person what planned changes will do.
func (c *Committer) changePreview(tool string, chs []*fileChange, repairs []string) Preview {
	p := Preview{}
	var diffs, notes []string
	added, removed := 0, 0
	mode := c.reviewMode()
	for _, ch := range chs {
		diff, st := ch.diff()
		if diff != "" {
			diffs = append(diffs, strings.TrimSuffix(shortDiff(diff), "\n"))
		}
		added, removed = added+st.Added, removed+st.Removed
		path := ch.src.displayPath()
		if ch.dst != nil {
			path = ch.dst.displayPath()
		}
		p.Files = append(p.Files, PreviewFile{Path: path, Added: st.Added, Removed: st.Removed})
		if ch.src.doc != nil {
			notes = append(notes, fmt.Sprintf("%s is open in the editor: the change goes to its buffer, as it is now.", ch.src.displayPath()))
		}
		if ch.src.stale {
			notes = append(notes, fmt.Sprintf("%s changed since the assistant last read it; the change was planned on its current text.", ch.src.displayPath()))
		}
		switch mode {
		case settings.ReviewAsk:
			p.WhaleAsks = true
		case settings.ReviewAskOutsideOpen:
			p.WhaleAsks = p.WhaleAsks || ch.src.doc == nil
		}
	}
	p.Title = changeTitle(tool, chs, added, removed)
	if len(repairs) > 0 {
		notes = append(notes, "The text to replace did not match the file exactly; whale matched it allowing for: "+strings.Join(repairs, ", ")+". Check the diff.")
	}
	if p.WhaleAsks {
		notes = append(notes, "whale will show you this change for review before it is applied.")
	}
	var b strings.Builder
	if len(diffs) > 0 {
		b.WriteString(fencedDiff(strings.Join(diffs, "\n")))
	} else {
		b.WriteString("The file's text stays the same.")
	}
	for _, n := range notes {
		b.WriteString("\n\n" + n)
	}
	p.Detail = b.String()
	return p
}

// changeTitle is a change's one line for a person: "Edit src/main.go (+3
// −1)", "Create notes.md (+12)", "Delete old.txt", "Move a.go to b.go",
// "Revert main.go (+1 −2)", or for several files "Change 3 files (+10 −2)".
func changeTitle(tool string, chs []*fileChange, added, removed int) string {
	counts := fmt.Sprintf(" (+%d −%d)", added, removed)
	if tool == "changes_revert" {
		if len(chs) == 1 {
			return "Revert " + chs[0].src.displayPath() + counts
		}
		return fmt.Sprintf("Revert %d files%s", len(chs), counts)
	}
	if len(chs) != 1 {
		return fmt.Sprintf("Change %d files%s", len(chs), counts)
	}
	ch := chs[0]
	path := ch.src.displayPath()
	switch {
	case ch.delete:
		return "Delete " + path
	case ch.dst != nil:
		return fmt.Sprintf("Move %s to %s%s", path, ch.dst.displayPath(), counts)
	case ch.created:
		return fmt.Sprintf("Create %s (+%d)", path, added)
	case tool == "write":
		return "Overwrite " + path + counts
	}
	return "Edit " + path + counts
}

// previewShell tells a person what shell_run will run, where, and what the
// exec boundary will do with it.
func previewShell(ws *workspace.Set, gate *execboundary.Gate, input json.RawMessage) Preview {
	var in shellRunInput
	if err := json.Unmarshal(input, &in); err != nil {
		return failedPreview("Run a command", err)
	}
	command := strings.TrimSpace(in.Command)
	title := "Run " + codeSpan(firstLine(command, 60))
	if command == "" {
		return failedPreview("Run a command", toolbridge.Fail(toolbridge.CodeInvalidInput, "the command is empty"))
	}
	dir, err := shellDir(ws, in.Cwd)
	if err != nil {
		return failedPreview(title, err)
	}
	folder := folderName(ws, dir)
	p := Preview{ReadOnly: terminal.IsReadOnlyCommand(command), Title: title + " in " + folder}
	var b strings.Builder
	b.WriteString("Command:\n\n" + fenced("sh", command) + "\n\nFolder: " + codeSpan(folder))
	j := execboundary.Judgement{Outlook: execboundary.OutlookUnchecked, Off: "whale has no exec boundary in this session, so the programs of this command are not checked"}
	if gate != nil {
		j = gate.JudgeCommand(command, dir)
	}
	if len(j.Programs) > 0 {
		b.WriteString("\n\nPrograms:")
		for _, po := range j.Programs {
			fmt.Fprintf(&b, "\n- %s", codeSpan(firstLine(strings.Join(po.Argv, " "), 80)))
			if filepath.IsAbs(po.Path) {
				fmt.Fprintf(&b, " (%s)", po.Path)
			}
			switch po.Verdict.Decision {
			case execboundary.Ask:
				b.WriteString(": whale asks you first")
			case execboundary.Deny:
				b.WriteString(": whale refuses it")
			}
		}
	}
	want := execboundary.Ask
	if j.Outlook == execboundary.OutlookDeny {
		want = execboundary.Deny
	}
	var why []string
	for _, po := range j.Programs {
		if w := po.Verdict.Words(po.Argv); w != "" && po.Verdict.Decision == want {
			why = editAppendNew(why, w)
		}
	}
	b.WriteString("\n\n")
	switch j.Outlook {
	case execboundary.OutlookAsk:
		p.WhaleAsks = true
		b.WriteString("whale will ask you before it runs: " + strings.Join(why, "; ") + ".")
	case execboundary.OutlookDeny:
		if j.Off != "" {
			p.Error = "whale will not run this command: " + j.Off + "."
		} else {
			p.Error = "whale will refuse to run it: " + strings.Join(why, "; ") + "."
		}
		b.WriteString(p.Error)
	case execboundary.OutlookUnchecked:
		b.WriteString(upperFirst(j.Off) + ".")
	default:
		b.WriteString("whale's exec rules let these programs run without asking.")
	}
	if gate != nil && j.Off == "" && len(j.Unjudged) > 0 {
		var parts []string
		for _, u := range j.Unjudged {
			parts = append(parts, codeSpan(firstLine(u.Text, 60))+" ("+u.Why+")")
		}
		b.WriteString(" Known only when it runs: " + strings.Join(parts, "; ") + ".")
	}
	if p.ReadOnly {
		b.WriteString("\n\nThis command only reads.")
	}
	p.Detail = b.String()
	return p
}

// folderName is dir as a person knows it: relative to its workspace folder
// with a trailing slash ("src/app/"), or the workspace folder's name.
func folderName(ws *workspace.Set, dir string) string {
	for _, r := range ws.Roots() {
		rel, err := filepath.Rel(r.Path, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel == "." {
			return filepath.Base(r.Path) + "/"
		}
		return filepath.ToSlash(rel) + "/"
	}
	return dir
}

// fencedDiff puts a unified diff in a Markdown ```diff fence, so that chat
// views colour its lines.
func fencedDiff(diff string) string { return fenced("diff", diff) }

// fenced puts text in a Markdown code fence of lang, made longer than any
// run of backticks in text so that the text cannot close it.
func fenced(lang, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// codeSpan is s as inline Markdown code, delimited so that backticks in s
// do not end it.
func codeSpan(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
}

// firstLine is the first line of s, cut to about n characters.
func firstLine(s string, n int) string {
	first, _, more := strings.Cut(s, "\n")
	r := []rune(first)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if more {
		return first + " …"
	}
	return first
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// indentJSON is raw indented for a person, or raw as it is.
func indentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}
