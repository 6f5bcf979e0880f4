package tasks

// The peers' result formats, rebuilt from their public sources for the same
// work. Where a peer adds a sentence of advice of its own, the bench writes
// an equivalent sentence in its own words of about the same length (its
// wording is the peer's, not ours to copy), so such a figure is close, not
// exact.
//
// Claude Code: the tool code bundled in the npm package
// @anthropic-ai/claude-code 2.1.332 and its tool documentation (the "Tools
// available to Claude" table of the settings page). Read numbers each line
// as `N<TAB>text`, unpadded (the older `cat -n` form padded to six
// columns); Grep in content mode (line numbers on by default) is
// ripgrep's `path:line:text`, paths relative to the working folder, sorted;
// Edit answers one sentence naming the file; a failed Edit is a
// tool_use_error quoting the search string; Bash returns the output,
// trimmed, and appends the exit code when it is not 0. It has no folder
// tool: `ls` through Bash.
//
// Codex CLI: github.com/openai/codex. codex-rs/core/src/tools/mod.rs
// (format_exec_output_for_model_freeform: exit code, wall time, output)
// frames every shell call: reading (`sed -n`; the other form its models use,
// `nl -ba FILE | sed -n`, adds numbers padded to six columns), searching
// (`rg -n`), listing (`ls`) and tests. Its unified exec form (exec_command)
// adds a chunk id and a token count to the same, so the figures here are
// the leaner form's. codex-rs/apply-patch/src/lib.rs gives apply_patch's
// summary of changed files on success (inside the same frame) and, on
// failure, the "verification failed" error quoting the lines it looked for.
//
// Gemini CLI: github.com/google-gemini/gemini-cli (0.56), packages/core/src:
// tools/read-file.ts and utils/fileUtils.ts (the file's text without line
// numbers; a partial read starts with a notice of the lines shown and how
// to read on), tools/grep-utils.ts (a count line, then each file's matches
// as `L<line>: text` between `---` rules), tools/edit.ts and
// tools/diff-utils.ts (a sentence, then the changed lines with five lines
// around), tools/shell.ts and utils/textUtils.ts (labelled output, exit
// code and process group, wrapped in an untrusted-context tag), tools/ls.ts
// (folders first as `[DIR] name`, files with their size).

import (
	"fmt"
	"sort"
	"strings"
)

// numbered numbers lines from first as Claude Code's Read does.
func numbered(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", first+i, l)
	}
	return b.String()
}

// codexExec is Codex's freeform exec result. Wall time is rounded to a
// tenth of a second and printed as Rust prints an f32 ("0", "0.2").
func codexExec(exit int, wall, output string) string {
	return fmt.Sprintf("Exit code: %d\nWall time: %s seconds\nOutput:\n%s", exit, wall, output)
}

func fileLines(content string) []string {
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
}

func readWholePeers(content string) map[string]string {
	return map[string]string{
		PeerClaudeCode: numbered(fileLines(content), 1),
		PeerCodex:      codexExec(0, "0", content), // sed -n '1,300p' FILE
		PeerGemini:     content,
	}
}

func readRangePeers(content string, from, to int) map[string]string {
	lines := fileLines(content)
	part := lines[from-1 : to]
	// Gemini counts the empty string after the last newline as a line.
	total := len(strings.Split(content, "\n"))
	notice := fmt.Sprintf("\nNOTE: Only a part of this file is shown here.\nStatus: lines %d-%d of %d lines in all.\nAction: To see more of it, call 'read_file' again with its 'start_line' and 'end_line' parameters; to go on from where this part ends, for instance, pass start_line: %d in that call.\n\n--- PART OF THE FILE SHOWN ---\n", from, to, total, to+1)
	return map[string]string{
		PeerClaudeCode: numbered(part, from),
		PeerCodex:      codexExec(0, "0", strings.Join(part, "\n")+"\n"), // sed -n '100,160p' FILE
		PeerGemini:     notice + strings.Join(part, "\n"),
	}
}

func grepPeers(pattern string, matches []Match) map[string]string {
	var rg strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&rg, "%s:%d:%s\n", m.Path, m.Line, m.Text)
	}
	var g strings.Builder
	fmt.Fprintf(&g, "Found %d matches for pattern %q in path \".\":\n---\n", len(matches), pattern)
	for i, m := range matches {
		if i == 0 || matches[i-1].Path != m.Path {
			if i > 0 {
				g.WriteString("---\n")
			}
			fmt.Fprintf(&g, "File: %s\n", m.Path)
		}
		fmt.Fprintf(&g, "L%d: %s\n", m.Line, strings.TrimRight(m.Text, " \t"))
	}
	g.WriteString("---")
	return map[string]string{
		PeerClaudeCode: strings.TrimSuffix(rg.String(), "\n"),
		PeerCodex:      codexExec(0, "0.2", rg.String()), // rg -n PATTERN
		PeerGemini:     g.String(),
	}
}

func editPeers(abs, rel, before, after string) map[string]string {
	return map[string]string{
		// Claude Code then tells the model that the file as it now is sits
		// in its context; our words for that.
		PeerClaudeCode: fmt.Sprintf("The file %s has been updated successfully. (your context has the file as it now is: no need to Read it again)", abs),
		PeerCodex:      codexExec(0, "0", "Success. Updated the following files:\nM "+rel+"\n"),
		PeerGemini:     fmt.Sprintf("Successfully modified file: %s (1 replacements). Here is the updated code:\n%s", abs, contextSnippet(before, after, 5)),
	}
}

// contextSnippet is the changed lines of after with n lines around them,
// "..." standing for the lines left out: Gemini's edit result.
func contextSnippet(before, after string, n int) string {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	start, end := max(0, pre-n), min(len(b), len(b)-suf+n)
	var parts []string
	if start > 0 {
		parts = append(parts, "...")
	}
	parts = append(parts, strings.Join(b[start:end], "\n"))
	if end < len(b) {
		parts = append(parts, "...")
	}
	return strings.Join(parts, "\n")
}

func missPeers(abs, search string) map[string]string {
	return map[string]string{
		PeerClaudeCode: "<tool_use_error>String to replace not found in file.\nString: " + search + "</tool_use_error>",
		PeerCodex:      fmt.Sprintf("apply_patch verification failed: Failed to find expected lines in %s:\n%s", abs, search),
		PeerGemini:     fmt.Sprintf("Edit failed: old_string occurs 0 times in %s. Check that nothing in it is escaped wrongly, and compare the whitespace, indentation and lines around it. Use the read_file tool to check.", abs),
	}
}

func shellPeers(out string, exit int) map[string]string {
	claude := strings.TrimRight(out, "\n")
	gemini := "Output: " + out
	if exit != 0 {
		claude += fmt.Sprintf("\nExit code %d", exit)
		gemini += fmt.Sprintf("\nExit Code: %d", exit)
	}
	gemini += "\nProcess Group PGID: 48213"
	return map[string]string{
		PeerClaudeCode: claude,
		PeerCodex:      codexExec(exit, "2.1", out),
		PeerGemini:     "<untrusted_context>\n" + gemini + "\n</untrusted_context>",
	}
}

func listPeers(abs string, entries []Entry) map[string]string {
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	ls := strings.Join(names, "\n") + "\n"
	g := append([]Entry(nil), entries...)
	sort.SliceStable(g, func(i, j int) bool {
		if g[i].Dir != g[j].Dir {
			return g[i].Dir
		}
		return strings.ToLower(g[i].Name) < strings.ToLower(g[j].Name)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Directory listing for %s:", abs)
	for _, e := range g {
		if e.Dir {
			fmt.Fprintf(&b, "\n[DIR] %s", e.Name)
		} else {
			fmt.Fprintf(&b, "\n%s (%d bytes)", e.Name, e.Size)
		}
	}
	return map[string]string{
		PeerClaudeCode: strings.TrimSuffix(ls, "\n"), // ls through Bash
		PeerCodex:      codexExec(0, "0", ls),        // ls
		PeerGemini:     b.String(),
	}
}
