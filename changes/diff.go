package changes

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/whale-ls/whale-ls/edits"
)

// Diff renders every file of entry id as a unified diff from before to
// after, in the entry's order; a binary file gets git's one line "Binary
// files … differ".
func (j *Journal) Diff(id string) (string, error) {
	e, err := j.Get(id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range e.Files {
		before, bok, err := j.content(f.Before)
		if err != nil {
			return "", fmt.Errorf("diff %s: %w", id, err)
		}
		after, aok, err := j.content(f.After)
		if err != nil {
			return "", fmt.Errorf("diff %s: %w", id, err)
		}
		name := j.displayName(f.Path)
		b.WriteString(fileDiff(name, name, before, after, bok, aok))
	}
	return b.String(), nil
}

// content returns the blob id, or nothing when id is "" (no file).
func (j *Journal) content(id string) ([]byte, bool, error) {
	if id == "" {
		return nil, false, nil
	}
	data, err := j.Blob(id)
	return data, err == nil, err
}

// displayName names path relative to Options.Root when it is inside it,
// with slashes, else as it is without its leading separator.
func (j *Journal) displayName(path string) string {
	if j.o.Root != "" {
		if rel, err := filepath.Rel(j.o.Root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return strings.TrimLeft(filepath.ToSlash(path), "/")
}

// fileDiff renders one file's change as a unified diff of its decoded text;
// binary content (or content in an encoding edits cannot decode) is
// reported in one line.
func fileDiff(oldName, newName string, before, after []byte, beforeExists, afterExists bool) string {
	if !beforeExists {
		oldName = ""
	}
	if !afterExists {
		newName = ""
	}
	bt, at, ok := decodeTexts(before, after)
	if !ok {
		if beforeExists && afterExists && string(before) == string(after) {
			return ""
		}
		a, b := "a/"+oldName, "b/"+newName
		if oldName == "" {
			a = "/dev/null"
		}
		if newName == "" {
			b = "/dev/null"
		}
		return fmt.Sprintf("Binary files %s and %s differ\n", a, b)
	}
	text, _ := edits.UnifiedDiff(oldName, newName, bt, at)
	return text
}

// lineCounts counts the lines a change adds and removes, as fileDiff's diff
// shows them (the same alignment, without rendering it); 0 and 0 for binary
// content.
func lineCounts(before, after []byte) (added, removed int) {
	bt, at, ok := decodeTexts(before, after)
	if !ok {
		return 0, 0
	}
	// The lines both share at their ends are aligned as edits aligns them
	// (it cuts them off first too): only the middle is split and aligned.
	p := commonPrefix(bt, at)
	p = strings.LastIndexByte(bt[:p], '\n') + 1
	bt, at = bt[p:], at[p:]
	s := commonSuffix(bt, at)
	lineStart := func(t string, i int) bool { return i == 0 || t[i-1] == '\n' }
	for s > 0 && !(lineStart(bt, len(bt)-s) && lineStart(at, len(at)-s)) {
		s--
	}
	bt, at = bt[:len(bt)-s], at[:len(at)-s]
	edits.LineDiff(slices.Collect(strings.Lines(bt)), slices.Collect(strings.Lines(at)), func(a0, a1, b0, b1 int) {
		removed += a1 - a0
		added += b1 - b0
	})
	return added, removed
}

// decodeTexts decodes both sides of a change as edits does; ok is false
// when either is binary or in an encoding edits cannot decode.
func decodeTexts(before, after []byte) (bt, at string, ok bool) {
	b, err1 := edits.Decode(before)
	a, err2 := edits.Decode(after)
	return b.Text, a.Text, err1 == nil && err2 == nil
}

// summary describes an entry in one line for the model: "edit a.go (+2
// -1)", "shell_run `make clean` build/x.o, b.go and 3 more (+40 -2)", the
// files relative to Options.Root.
func (j *Journal) summary(e Entry) string {
	added, removed := 0, 0
	for _, f := range e.Files {
		added += f.Added
		removed += f.Removed
	}
	tool := e.Tool
	if tool == "" {
		tool = "change"
	}
	if e.Command != "" {
		tool += " " + commandSpan(e.Command)
	}
	return fmt.Sprintf("%s %s (+%d -%d)", tool, j.fileList(e.Files), added, removed)
}

// RelPath names path for a person: relative to Options.Root, with slashes
// ("build/sub/x.o"), when it is inside it.
func (j *Journal) RelPath(path string) string { return j.displayName(path) }

// fileList names up to three files, or two and how many more.
func (j *Journal) fileList(files []FileRecord) string {
	var names []string
	for _, f := range files {
		names = append(names, j.displayName(f.Path))
	}
	switch {
	case len(names) > 3:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:2], ", "), len(names)-2)
	case len(names) > 1:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// Title describes an entry in one line for a person, with no ids and no
// tool names: "Edited src/main.go (+2 −1)", "Created notes.md (+12)",
// "Gemini CLI edited a.go (+1 −1)" (an agent's write through ACP),
// "`make clean` deleted build/sub/x.o", "Reverted src/main.go (+1 −2)".
func (j *Journal) Title(e Entry) string {
	added, removed := 0, 0
	created, deleted := true, true
	for _, f := range e.Files {
		added += f.Added
		removed += f.Removed
		created = created && f.Before == "" && f.After != ""
		deleted = deleted && f.After == "" && f.Before != ""
	}
	verb := "changed"
	switch {
	case len(e.RevertOf) > 0:
		verb = "reverted"
	case created:
		verb = "created"
	case deleted:
		verb = "deleted"
	case e.Tool != "shell_run" && e.Tool != "":
		verb = "edited"
	}
	counts := ""
	switch {
	case deleted && len(e.RevertOf) == 0:
	case created && len(e.RevertOf) == 0:
		counts = fmt.Sprintf(" (+%d)", added)
	case added > 0 || removed > 0:
		counts = fmt.Sprintf(" (+%d −%d)", added, removed)
	}
	what := j.fileList(e.Files)
	if e.Agent != "" && len(e.RevertOf) == 0 {
		return e.Agent + " " + verb + " " + what + counts
	}
	if e.Command != "" {
		return commandSpan(e.Command) + " " + verb + " " + what + counts
	}
	return strings.ToUpper(verb[:1]) + verb[1:] + " " + what + counts
}

// commandSpan is a command's first line, cut to 60 characters, as inline
// Markdown code.
func commandSpan(command string) string {
	first, _, more := strings.Cut(strings.TrimSpace(command), "\n")
	if r := []rune(first); len(r) > 60 {
		first, more = string(r[:59]), true
	}
	if more {
		first += "…"
	}
	if strings.Contains(first, "`") {
		return "`` " + first + " ``"
	}
	return "`" + first + "`"
}
