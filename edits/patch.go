package edits

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// Repairs ParsePatch may report.
const (
	RepairCodeFenceRemoved  = "code_fence_removed"
	RepairHunkHeaderRebuilt = "hunk_header_rebuilt"
	// RepairBeginPatchAdded: a "*** Begin Patch" patch started directly with
	// its first file header.
	RepairBeginPatchAdded = "begin_patch_added"
	// RepairEndPatchAdded: a "*** Begin Patch" patch had no "*** End Patch".
	RepairEndPatchAdded = "end_patch_added"
	// RepairHeredocRemoved: the patch came wrapped in the shell command that
	// would feed it to a patch program (`apply_patch <<'EOF'` … `EOF`).
	RepairHeredocRemoved = "heredoc_removed"
)

// heredocRE is a first line like `apply_patch <<'EOF'` or `<<EOF`; the
// delimiter is group 2.
var heredocRE = regexp.MustCompile(`^\s*(?:apply_?patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)\s*$`)

// FilePatch is one file's part of a patch. OldPath is "" when the patch
// creates the file and NewPath is "" when it deletes it; they differ for a
// rename.
type FilePatch struct {
	OldPath, NewPath string
	hunks            []patchHunk
	// beginPatch marks a part read from the "*** Begin Patch" format: its
	// hunks are chunks located in order (see applyChunks), and messages name
	// that format's lines.
	beginPatch bool
}

// patchHunk is a hunk as text: old is its context and removed lines, new its
// context and added lines; hint is the 1-based line the hunk claimed to start
// at in the old file (0 when unknown).
type patchHunk struct {
	old, new string
	// keep is, for each line of new, the line of old it is (a context
	// line), or -1 (an added line).
	keep   []int
	hint   int
	header string
	// The fields below belong to "*** Begin Patch" chunks: the texts of
	// their @@ lines, whether "*** End of File" closed them, and the patch
	// line they start on.
	anchors []string
	eof     bool
	line    int
}

// Creates reports whether the patch creates the file.
func (fp FilePatch) Creates() bool { return fp.OldPath == "" }

// Deletes reports whether the patch deletes the file.
func (fp FilePatch) Deletes() bool { return fp.NewPath == "" }

// Hunks returns the number of hunks.
func (fp FilePatch) Hunks() int { return len(fp.hunks) }

var hunkHeaderRE = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+\d+(,\d+)? @@`)

// ParsePatch reads a patch of one or more files in either of two formats,
// because models are trained on both: a unified diff as git diff writes it,
// or the "*** Begin Patch" format (see parseBeginPatch). Both give the same
// FilePatch values, so the same matcher places them. It tolerates a
// surrounding Markdown code fence, CRLF and trailing blank lines; for unified
// diffs also hunk headers without line numbers ("@@" alone), whose line
// numbers are kept only as hints, and paths lose git's a/ and b/ prefixes.
// Repairs lists what was tolerated.
func ParsePatch(patch string) ([]FilePatch, []string, error) {
	lines, first, repairs := unwrapPatch(strings.Split(normalizeInput(patch), "\n"))
	if len(lines) > 0 && isBeginPatchStart(lines[0]) {
		return parseBeginPatch(lines, first, repairs)
	}
	return parseUnified(lines, repairs)
}

// unwrapPatch drops what surrounds a patch's lines: blank lines, a
// Markdown fence, and a heredoc (the shell command a model would run to
// apply it). first is the patch line number of the first line kept.
func unwrapPatch(lines []string) (kept []string, first int, repairs []string) {
	first = 1
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
		first++
	}
	// Drop a Markdown fence around the whole patch.
	if len(lines) > 0 && strings.HasPrefix(lines[0], "```") {
		lines = lines[1:]
		first++
		for k := len(lines) - 1; k >= 0; k-- {
			if strings.TrimSpace(lines[k]) == "" {
				continue
			}
			if strings.HasPrefix(lines[k], "```") {
				lines = lines[:k]
			}
			break
		}
		repairs = append(repairs, RepairCodeFenceRemoved)
		for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
			lines = lines[1:]
			first++
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	// Drop a heredoc around the whole patch.
	if len(lines) > 1 {
		if m := heredocRE.FindStringSubmatch(lines[0]); m != nil && m[1] == m[3] && strings.TrimSpace(lines[len(lines)-1]) == m[2] {
			lines = lines[1 : len(lines)-1]
			first++
			repairs = append(repairs, RepairHeredocRemoved)
		}
	}
	return lines, first, repairs
}

// parseUnified reads a unified diff, rebuilding hunk headers that have no
// line numbers ("@@" alone, RepairHunkHeaderRebuilt) and refusing binary
// patches and files with /dev/null on both sides.
func parseUnified(lines []string, repairs []string) ([]FilePatch, []string, error) {
	rebuilt := false
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") && !hunkHeaderRE.MatchString(l) {
			section := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "@"))
			lines[i] = "@@ -0,0 +0,0 @@"
			if section != "" {
				lines[i] += " " + section
			}
			rebuilt = true
		}
	}
	if rebuilt {
		repairs = append(repairs, RepairHunkHeaderRebuilt)
	}
	if len(lines) == 0 {
		return nil, repairs, newError(CodeInvalidInput, "the patch is empty; give a unified diff with --- a/path and +++ b/path headers and @@ hunks, or a *** Begin Patch … *** End Patch envelope")
	}
	fds, err := diff.ParseMultiFileDiff([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		return nil, repairs, newError(CodeInvalidInput, "the patch is not a unified diff this tool can read (%v); write it as --- a/path, +++ b/path, then @@ hunks whose lines start with ' ', '-' or '+'", err)
	}
	if len(fds) == 0 {
		return nil, repairs, newError(CodeInvalidInput, "the patch names no file; start each file with --- a/path and +++ b/path lines")
	}
	var out []FilePatch
	for _, fd := range fds {
		fp := FilePatch{OldPath: patchPath(fd.OrigName, "a/"), NewPath: patchPath(fd.NewName, "b/")}
		for _, x := range fd.Extended {
			if strings.HasPrefix(x, "GIT binary patch") || strings.HasPrefix(x, "Binary files") {
				return nil, repairs, newError(CodeInvalidInput, "the patch for %s is binary; binary changes cannot be applied, so use a shell command", fp.NewPath)
			}
		}
		if fp.OldPath == "" && fp.NewPath == "" {
			return nil, repairs, newError(CodeInvalidInput, "a file in the patch has /dev/null on both sides; name the file in --- a/path and +++ b/path")
		}
		for _, h := range fd.Hunks {
			fp.hunks = append(fp.hunks, readHunk(h))
		}
		out = append(out, fp)
	}
	return out, repairs, nil
}

func patchPath(name, prefix string) string {
	name = strings.TrimSpace(name)
	if name == "/dev/null" || name == "" {
		return ""
	}
	return strings.TrimPrefix(name, prefix)
}

func readHunk(h *diff.Hunk) patchHunk {
	ph := patchHunk{hint: int(h.OrigStartLine)}
	ph.header = fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines)
	if h.OrigStartLine == 0 && h.OrigLines == 0 && h.NewStartLine == 0 && h.NewLines == 0 {
		ph.header = "@@"
	}
	body := string(h.Body)
	var oldB, newB strings.Builder
	oldN := 0
	for pos := 0; pos < len(body); {
		end := strings.IndexByte(body[pos:], '\n')
		nl := true
		if end < 0 {
			end = len(body)
			nl = false
		} else {
			end += pos
		}
		line := body[pos:end]
		// The old side's "no newline" mark sits right after its line.
		oldNL := nl && !(h.OrigNoNewlineAt > 0 && int(h.OrigNoNewlineAt) == end+1)
		pos = end + 1
		var kind byte = ' '
		if line != "" {
			kind, line = line[0], line[1:]
		}
		switch kind {
		case '-':
			oldB.WriteString(line)
			oldN++
			if oldNL {
				oldB.WriteByte('\n')
			}
		case '+':
			newB.WriteString(line)
			ph.keep = append(ph.keep, -1)
			if nl {
				newB.WriteByte('\n')
			}
		case '\\':
		default:
			oldB.WriteString(line)
			newB.WriteString(line)
			ph.keep = append(ph.keep, oldN)
			oldN++
			if oldNL {
				oldB.WriteByte('\n')
			}
			if nl {
				newB.WriteByte('\n')
			}
		}
	}
	ph.old, ph.new = oldB.String(), newB.String()
	return ph
}

// Apply applies the file's hunks in order to text (its LF text; "" for a
// file the patch creates). Each hunk is located by its context and removed
// lines through the same tiers as Apply, except that an exact match must
// start a line. When the first tier that matches finds several places, the
// line number in the hunk's header, moved by the hunks before it, chooses
// the one clearly nearest to it (see lineHints and chooseByHint), reported
// as RepairLineHintChose; otherwise the hunk is refused with every place's
// line. A deletion with hunks must remove the whole text. Parts of a "***
// Begin Patch" patch are located chunk after chunk instead (see
// applyChunks).
func (fp FilePatch) Apply(text string) (Applied, error) {
	return fp.apply(text, nil)
}

// apply is Apply, reporting each hunk it places to trace when trace is not
// nil.
func (fp FilePatch) apply(text string, trace func(placedHunk)) (Applied, error) {
	if fp.beginPatch {
		return fp.applyChunks(text, trace)
	}
	res := Applied{Text: text}
	var hints lineHints
	for i, h := range fp.hunks {
		if h.old == h.new {
			continue
		}
		if err := res.applyHunk(h, &hints, trace); err != nil {
			err.Step = i + 1
			err.Message = fmt.Sprintf("%s, hunk %d of %d (%s): %s", fp.name(), i+1, len(fp.hunks), h.header, err.Message)
			return Applied{}, err
		}
	}
	if fp.Deletes() && strings.TrimSpace(res.Text) != "" && len(fp.hunks) > 0 {
		return Applied{}, newError(CodeSearchNotFound, "%s: the patch deletes the file but its removed lines do not cover all of it; read the file again and list every line as removed, or delete it with a shell command", fp.name())
	}
	return res, nil
}

// applyHunk places one unified hunk: a pure insertion after the line its
// header names (moved by the hunks before it), anything else on the one
// place its old side matches, or the one its header's line number chooses.
func (res *Applied) applyHunk(h patchHunk, hints *lineHints, trace func(placedHunk)) *Error {
	if h.old == "" {
		// Pure insertion: only the line number says where.
		after := max(h.hint+hints.shift, 0) // the line it goes after
		at := insertionOffset(res.Text, after)
		if trace != nil {
			trace(placedHunk{before: res.Text, want: after, pick: candidate{span: span{at, at}, replace: h.new}})
		}
		res.insert(at, h.new, at)
		hints.placed(h.hint, 0, strings.Count(h.new, "\n"), false)
		return nil
	}
	loc := locateKeep(res.Text, h.old, h.new, true, h.keep)
	cands := append(append([]candidate(nil), loc.cands...), loc.others...)
	var pick candidate
	rule := ""
	want := hints.expect(h.hint)
	switch {
	case len(cands) == 0:
		return notFound(res.Text, h.old, "the hunk's old side")
	case len(cands) == 1:
		pick = cands[0]
	default:
		if h.hint <= 0 {
			return notUnique(res.Text, cands, loc.ambiguityHow(), "the hunk's old side", "add context lines to the hunk until it matches one place, or give the line numbers in its @@ header to choose one")
		}
		ch := chooseByHint(res.Text, cands, h.hint, want, "its @@ header")
		if !ch.ok || ch.pick.other {
			reason := ch.reason
			if ch.ok {
				reason = "its @@ header points at a place that matches only more loosely than another"
			}
			return notUnique(res.Text, cands, loc.ambiguityHow(), "the hunk's old side", reason+"; add context lines to the hunk until it matches one place, or correct the line numbers in its @@ header")
		}
		pick, rule = ch.pick, RepairLineHintChose
	}
	if trace != nil {
		trace(placedHunk{before: res.Text, cands: cands, want: want, pick: pick, rule: rule, keep: h.keep})
	}
	at, added := res.replace(pick, loc.repairs, rule)
	hints.placed(h.hint, at, added, true)
	return nil
}

// insert puts ins into res.Text at byte at and records one replacement on
// the line that then holds byte first.
func (res *Applied) insert(at int, ins string, first int) {
	res.track(lineOrigins(res.Text, []candidate{{span: span{at, at}}}, []string{ins}))
	res.Text = res.Text[:at] + ins + res.Text[at:]
	res.Replacements++
	res.Lines = append(res.Lines, lineOf(res.Text, first))
}

// replace writes pick over res.Text and records it: its first line (also
// returned, with the number of lines it adds), the repairs of the tier that
// found it and the rule that chose it, if any.
func (res *Applied) replace(pick candidate, repairs []string, rule string) (line, added int) {
	line = lineOf(res.Text, pick.start)
	added = addedLines(res.Text, pick)
	res.Lines = append(res.Lines, line)
	text, origin := replaceSpansOrigins(res.Text, []candidate{pick})
	res.Text = text
	res.track(origin)
	res.Replacements++
	res.Repairs = appendUnique(res.Repairs, repairs...)
	if rule != "" {
		res.Repairs = appendUnique(res.Repairs, rule)
	}
	return line, added
}

func (fp FilePatch) name() string {
	if fp.NewPath != "" {
		return fp.NewPath
	}
	return fp.OldPath
}

// insertionOffset returns the byte offset just after 1-based line n (0 means
// the start of the text; past the end means the end).
func insertionOffset(text string, n int) int {
	pos := 0
	for k := 0; k < n; k++ {
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 {
			return len(text)
		}
		pos += i + 1
	}
	return pos
}
