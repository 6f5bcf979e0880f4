package changes

import (
	"fmt"
	"path/filepath"
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
	edits.LineDiff(splitText(bt), splitText(at), func(a0, a1, b0, b1 int) {
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

// summary describes an entry in one line: "edit a.go (+2 -1)", "shell_run
// a.go, b.go and 3 more (+40 -2)".
func (j *Journal) summary(e Entry) string {
	var names []string
	added, removed := 0, 0
	for _, f := range e.Files {
		added += f.Added
		removed += f.Removed
		names = append(names, filepath.Base(f.Path))
	}
	list := strings.Join(names, ", ")
	if len(names) > 3 {
		list = fmt.Sprintf("%s and %d more", strings.Join(names[:2], ", "), len(names)-2)
	}
	tool := e.Tool
	if tool == "" {
		tool = "change"
	}
	return fmt.Sprintf("%s %s (+%d -%d)", tool, list, added, removed)
}
