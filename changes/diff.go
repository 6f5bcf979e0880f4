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
		text, _, _ := fileDiff(name, name, before, after, bok, aok)
		b.WriteString(text)
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

// fileDiff renders one file's change as a unified diff of its decoded text
// and counts the lines it added and removed; binary content (or content in
// an encoding edits cannot decode) is reported in one line.
func fileDiff(oldName, newName string, before, after []byte, beforeExists, afterExists bool) (text string, added, removed int) {
	if !beforeExists {
		oldName = ""
	}
	if !afterExists {
		newName = ""
	}
	bt, err1 := edits.Decode(before)
	at, err2 := edits.Decode(after)
	if err1 != nil || err2 != nil {
		if beforeExists && afterExists && string(before) == string(after) {
			return "", 0, 0
		}
		a, b := "a/"+oldName, "b/"+newName
		if oldName == "" {
			a = "/dev/null"
		}
		if newName == "" {
			b = "/dev/null"
		}
		return fmt.Sprintf("Binary files %s and %s differ\n", a, b), 0, 0
	}
	text, st := edits.UnifiedDiff(oldName, newName, bt.Text, at.Text)
	return text, st.Added, st.Removed
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
