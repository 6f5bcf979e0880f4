package edits

import (
	"fmt"
	"strconv"
	"strings"
)

// The "*** Begin Patch" format is the patch format OpenAI's coding models
// write for a tool named apply_patch:
//
//	*** Begin Patch
//	*** Add File: PATH        every following line is "+" and the new file's content
//	*** Delete File: PATH     nothing follows; the file goes whatever it holds
//	*** Update File: PATH     optionally followed by "*** Move to: NEWPATH"
//	@@ ANCHOR                 a chunk; ANCHOR (optional) is a line it comes after
//	 context
//	-removed
//	+added
//	*** End of File           optional: the chunk ends at the end of the file
//	*** End Patch
//
// Chunks of one file are located in order, each after the previous one.
const (
	markBegin  = "*** Begin Patch"
	markEnd    = "*** End Patch"
	markAdd    = "*** Add File:"
	markDelete = "*** Delete File:"
	markUpdate = "*** Update File:"
	markMove   = "*** Move to:"
	markEOF    = "*** End of File"
)

// isBeginPatchStart reports whether a patch's first line opens the
// "*** Begin Patch" format, with or without its "*** Begin Patch" line.
func isBeginPatchStart(line string) bool {
	t := strings.TrimSpace(line)
	return t == markBegin || strings.HasPrefix(t, markAdd) || strings.HasPrefix(t, markDelete) || strings.HasPrefix(t, markUpdate)
}

// beginPatchParser reads a "*** Begin Patch" patch line by line; first is
// the patch line number of lines[0], so that errors name the line the model
// wrote.
type beginPatchParser struct {
	lines []string
	first int
	i     int
}

func (p *beginPatchParser) lineNo(i int) int { return p.first + i }

func (p *beginPatchParser) fail(i int, format string, args ...any) *Error {
	return newError(CodeInvalidInput, "patch line %d: %s", p.lineNo(i), fmt.Sprintf(format, args...))
}

// isMarker reports whether a line is one of the format's "*** " lines.
// Inside a chunk a marker must start the line: " *** x" is context.
func isMarker(line string) bool { return strings.HasPrefix(line, "***") }

// headerPath returns the path after a file header such as "*** Add File:".
func headerPath(line, marker string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), marker))
}

// parseBeginPatch reads a "*** Begin Patch" patch (lines are LF lines without
// fence or trailing blank lines). It is lenient where the meaning is plain: a
// missing "*** Begin Patch" or "*** End Patch" (reported as repairs), blank
// lines between sections, spaces around markers, and an empty line inside a
// chunk or an added file, read as an empty line. Anything else it does not
// understand is invalid_input naming the patch line.
func parseBeginPatch(lines []string, first int, repairs []string) ([]FilePatch, []string, error) {
	p := &beginPatchParser{lines: lines, first: first}
	if strings.TrimSpace(lines[0]) == markBegin {
		p.i = 1
	} else {
		repairs = append(repairs, RepairBeginPatchAdded)
	}
	if last := len(lines) - 1; last >= p.i && strings.TrimSpace(lines[last]) == markEnd {
		p.lines = lines[:last]
	} else {
		repairs = append(repairs, RepairEndPatchAdded)
	}
	var out []FilePatch
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		t := strings.TrimSpace(line)
		var (
			fp  FilePatch
			err *Error
		)
		switch {
		case t == "":
			p.i++
			continue
		case strings.HasPrefix(t, markAdd):
			fp, err = p.addFile()
		case strings.HasPrefix(t, markDelete):
			fp, err = p.deleteFile()
		case strings.HasPrefix(t, markUpdate):
			fp, err = p.updateFile()
		case t == markEnd:
			err = p.fail(p.i, "*** End Patch comes before the end of the patch; put every file section between one *** Begin Patch and one *** End Patch, and nothing after it")
		case t == markBegin:
			err = p.fail(p.i, "a second *** Begin Patch; put every file section in one envelope, between one *** Begin Patch and one *** End Patch")
		case strings.HasPrefix(t, markMove):
			err = p.fail(p.i, "*** Move to: must come right after the *** Update File: line of the file it renames; move it there")
		default:
			err = p.fail(p.i, "%s is not a file header; start each file section with *** Add File: PATH, *** Delete File: PATH or *** Update File: PATH", visible(line))
		}
		if err != nil {
			return nil, repairs, err
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, repairs, newError(CodeInvalidInput, "the patch holds no file section; add *** Add File: PATH, *** Delete File: PATH or *** Update File: PATH between *** Begin Patch and *** End Patch")
	}
	return out, repairs, nil
}

// path reads the path of the file header at p.i.
func (p *beginPatchParser) path(marker string) (string, *Error) {
	name := headerPath(p.lines[p.i], marker)
	if name == "" {
		return "", p.fail(p.i, "%s names no file; write the file's path after the colon", marker)
	}
	return name, nil
}

// addFile reads "*** Add File: PATH" and its "+" lines.
func (p *beginPatchParser) addFile() (FilePatch, *Error) {
	name, err := p.path(markAdd)
	if err != nil {
		return FilePatch{}, err
	}
	start := p.i
	p.i++
	var b strings.Builder
	blank := 0 // empty lines seen but not yet known to be content
	for ; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		if strings.HasPrefix(line, "+") {
			b.WriteString(strings.Repeat("\n", blank))
			blank = 0
			b.WriteString(line[1:] + "\n")
			continue
		}
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if isMarker(strings.TrimSpace(line)) {
			break
		}
		return FilePatch{}, p.fail(p.i, "%s in *** Add File: %s does not start with '+'; start every line of the new file with '+' (a lone '+' for an empty line)", visible(line), name)
	}
	fp := FilePatch{NewPath: name, beginPatch: true}
	if b.Len() > 0 {
		fp.hunks = []patchHunk{{new: b.String(), header: "*** Add File", line: p.lineNo(start)}}
	}
	return fp, nil
}

// deleteFile reads "*** Delete File: PATH", which takes no lines.
func (p *beginPatchParser) deleteFile() (FilePatch, *Error) {
	name, err := p.path(markDelete)
	if err != nil {
		return FilePatch{}, err
	}
	for p.i++; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		if isMarker(strings.TrimSpace(line)) {
			break
		}
		if strings.TrimSpace(line) != "" {
			return FilePatch{}, p.fail(p.i, "*** Delete File: %s takes no lines after it (the file is deleted whatever it holds); remove %s", name, visible(line))
		}
	}
	return FilePatch{OldPath: name, beginPatch: true}, nil
}

// updateFile reads "*** Update File: PATH", an optional "*** Move to:" and
// the chunks.
func (p *beginPatchParser) updateFile() (FilePatch, *Error) {
	name, err := p.path(markUpdate)
	if err != nil {
		return FilePatch{}, err
	}
	header := p.i
	fp := FilePatch{OldPath: name, NewPath: name, beginPatch: true}
	p.i++
	if p.i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), markMove) {
		to, err := p.path(markMove)
		if err != nil {
			return FilePatch{}, err
		}
		fp.NewPath = to
		p.i++
	}
	var cur *patchChunk
	finish := func() *Error {
		if cur == nil {
			return nil
		}
		h, err := cur.hunk(p)
		if err != nil {
			return err
		}
		fp.hunks = append(fp.hunks, h)
		cur = nil
		return nil
	}
	for ; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		switch {
		case strings.HasPrefix(line, "@@"):
			if cur != nil && len(cur.body) > 0 {
				if err := finish(); err != nil {
					return FilePatch{}, err
				}
			}
			if cur == nil {
				cur = &patchChunk{start: p.i}
			}
			cur.addAnchor(line)
		case strings.TrimRight(line, " \t") == markEOF:
			if cur == nil || len(cur.trimmedBody()) == 0 {
				return FilePatch{}, p.fail(p.i, "*** End of File must follow the lines of a chunk; put it after the chunk's last line, or remove it")
			}
			cur.eof = true
			if err := finish(); err != nil {
				return FilePatch{}, err
			}
		case isMarker(line):
			if err := finish(); err != nil {
				return FilePatch{}, err
			}
			if len(fp.hunks) == 0 && fp.OldPath == fp.NewPath {
				return FilePatch{}, p.fail(header, "*** Update File: %s has no chunk; add @@ followed by the lines to change (' ' context, '-' removed, '+' added), or remove the section", name)
			}
			return fp, nil
		case line == "" || line[0] == ' ' || line[0] == '-' || line[0] == '+':
			if cur == nil {
				if line == "" {
					continue // a blank line between chunks
				}
				if len(fp.hunks) > 0 {
					return FilePatch{}, p.fail(p.i, "%s follows a chunk closed by *** End of File; start a new chunk with an @@ line", visible(line))
				}
				cur = &patchChunk{start: p.i}
			}
			cur.body = append(cur.body, line)
		default:
			return FilePatch{}, p.fail(p.i, "%s in *** Update File: %s starts with neither ' ', '-' nor '+'; start context lines with a space, removed lines with '-' and added lines with '+'", visible(line), name)
		}
	}
	if err := finish(); err != nil {
		return FilePatch{}, err
	}
	if len(fp.hunks) == 0 && fp.OldPath == fp.NewPath {
		return FilePatch{}, p.fail(header, "*** Update File: %s has no chunk; add @@ followed by the lines to change (' ' context, '-' removed, '+' added), or remove the section", name)
	}
	return fp, nil
}

// patchChunk is a chunk being read: its @@ lines, body lines and whether
// "*** End of File" closed it.
type patchChunk struct {
	start   int // index of its first line
	headers []string
	anchors []string
	hint    int
	body    []string
	eof     bool
}

// addAnchor reads one @@ line: "@@" alone, "@@ TEXT" (TEXT is an anchor),
// or a unified header "@@ -12,7 +12,8 @@ TEXT" whose old line number becomes
// a hint.
func (c *patchChunk) addAnchor(line string) {
	line = strings.TrimRight(line, " \t")
	c.headers = append(c.headers, line)
	if m := hunkHeaderRE.FindStringSubmatch(line); m != nil {
		c.hint, _ = strconv.Atoi(m[1])
		line = "@@" + line[len(m[0]):]
	}
	text := strings.TrimSpace(strings.TrimPrefix(line, "@@"))
	if rest, ok := strings.CutSuffix(text, "@@"); ok {
		text = strings.TrimSpace(rest)
	}
	if text != "" {
		c.anchors = append(c.anchors, text)
	}
}

// trimmedBody drops the chunk's trailing empty lines: they separate it from
// what follows.
func (c *patchChunk) trimmedBody() []string {
	b := c.body
	for len(b) > 0 && b[len(b)-1] == "" {
		b = b[:len(b)-1]
	}
	return b
}

func (c *patchChunk) hunk(p *beginPatchParser) (patchHunk, *Error) {
	body := c.trimmedBody()
	if len(body) == 0 {
		return patchHunk{}, p.fail(c.start, "the chunk %s has no lines; follow it with the lines to change (' ' context, '-' removed, '+' added), or remove it", visible(strings.Join(c.headers, " ")))
	}
	var oldB, newB strings.Builder
	var keep []int
	oldN := 0
	for _, l := range body {
		kind, text := byte(' '), ""
		if l != "" {
			kind, text = l[0], l[1:]
		}
		switch kind {
		case '+':
			keep = append(keep, -1)
		case '-':
		default:
			keep = append(keep, oldN)
		}
		if kind != '+' {
			oldB.WriteString(text + "\n")
			oldN++
		}
		if kind != '-' {
			newB.WriteString(text + "\n")
		}
	}
	header := strings.Join(c.headers, " ")
	if header == "" {
		header = "no @@ line"
	}
	return patchHunk{old: oldB.String(), new: newB.String(), keep: keep, hint: c.hint, header: header, anchors: c.anchors, eof: c.eof, line: p.lineNo(c.start)}, nil
}
