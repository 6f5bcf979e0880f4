package toolbridge

import (
	"fmt"
	"sort"
	"strings"
)

// fieldHints are hand-written answers to frequent confusions: a field a
// model sends to a tool that does not have it, and what to do instead.
// The key is "tool.field"; "*.field" applies to every tool.
var fieldHints = map[string]string{
	"search_files.include": `search_files has no include field: put the glob into pattern (e.g. "**/*.go"), or use grep with include to search inside files.`,
	"search_files.query":   `search_files matches file names: put the glob into pattern (e.g. "**/*config*").`,
	"grep.query":           `grep takes the regular expression in pattern.`,
	"grep.regex":           `grep takes the regular expression in pattern.`,
	"grep.glob":            `grep filters files with include (e.g. "*.go" or "**/*.{ts,tsx}").`,
	"grep.file_pattern":    `grep filters files with include (e.g. "*.go").`,
	"read_file.path":       `read_file takes the path in file_path.`,
	"read_file.start_line": `read_file pages with offset (1-based first line) and limit (number of lines).`,
	"read_file.end_line":   `read_file pages with offset (1-based first line) and limit (number of lines).`,
	"read_file.line":       `read_file pages with offset (1-based first line) and limit (number of lines).`,
	"read_file.lines":      `read_file pages with offset (1-based first line) and limit (number of lines).`,
	"list_dir.dir":         `list_dir takes the folder in path.`,
	"list_dir.directory":   `list_dir takes the folder in path.`,
	"list_dir.recursive":   `list_dir goes deeper with depth (default 2).`,
	"edit.path":            `edit takes the path in file_path.`,
	"edit.old_string":      `edit takes the text to find in search and the new text in replace.`,
	"edit.old_str":         `edit takes the text to find in search and the new text in replace.`,
	"edit.new_string":      `edit takes the text to find in search and the new text in replace.`,
	"edit.replace_all":     `edit replaces every occurrence with all=true.`,
	"multi_edit.path":      `multi_edit takes the path in file_path and the steps in edits: [{search, replace, all?}].`,
	"write.path":           `write takes the path in file_path and the text in content.`,
	"write.text":           `write takes the text in content.`,
	"write.contents":       `write takes the text in content.`,
	"shell_run.cmd":        `shell_run takes the command line in command.`,
	"shell_run.timeout":    `shell_run waits in the foreground up to yield_time_ms, then keeps the task running; use shell_wait to wait longer.`,
	"shell_run.timeout_ms": `shell_run waits in the foreground up to yield_time_ms, then keeps the task running; use shell_wait to wait longer.`,
	"shell_wait.id":        `shell_wait takes the task in task_id (e.g. "t1").`,
	"write_stdin.id":       `write_stdin takes the task in task_id (e.g. "t1").`,
	"write_stdin.text":     `write_stdin takes text in input and named keys in keys (e.g. ["enter"]).`,
	"shell_cancel.id":      `shell_cancel takes the task in task_id (e.g. "t1").`,
}

// hintsFor returns the hints that apply to the problems of a call: the
// hand-written ones for unknown fields, else the closest valid field name.
func hintsFor(spec Spec, problems []string) []string {
	var hints []string
	seen := map[string]bool{}
	fields := make([]string, 0, len(spec.InputSchema.Properties))
	for k := range spec.InputSchema.Properties {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	for _, p := range problems {
		field, ok := strings.CutSuffix(p, " is not a field of this tool")
		if !ok || strings.Contains(field, ".") {
			continue
		}
		h := fieldHints[spec.Name+"."+field]
		if h == "" {
			if c := Closest(field, fields, 1); len(c) == 1 {
				h = fmt.Sprintf("Did you mean %s instead of %s?", c[0], field)
			}
		}
		if h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	return hints
}
