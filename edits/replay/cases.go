package replay

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/edits"
)

// Case is one tool call of the replay and what must come of it.
type Case struct {
	// Name says where the case comes from: commit, file and variant.
	Name string
	// Variant is the kind of call and noise (counts are kept per variant).
	Variant string
	// Read, when set, is the workspace the model read (read_file of each
	// of its files) before Files were written over it: a stale base.
	Read map[string][]byte
	// Files is the workspace when the tool runs.
	Files map[string][]byte
	Tool  string
	Input any
	// Want holds the files the call changes, as they must be after it; nil
	// for a case that must be refused.
	Want map[string][]byte
}

// Refuse reports whether the case must be refused.
func (c Case) Refuse() bool { return c.Want == nil }

// Target is a file a wrong-file case sends a change to.
type Target struct {
	Path string
	Data []byte
}

// FileCases builds the cases of one changed file: the change as a unified
// diff (with and without line numbers), as a "*** Begin Patch" (with git's
// function headings as @@ anchors, and bare), as edit or multi_edit steps,
// each kind also with the noise a model adds to its copy of a file, on a
// file with CRLF and mixed line endings and on a file that changed after
// the model read it; and the variants that must be refused: a change whose
// lines someone else changed meanwhile, and the change sent to wrong, a
// file that holds none of its lines (wrong may be nil).
func FileCases(ch FileChange, wrong *Target) ([]Case, error) {
	hs, err := parseHunks(ch.Diff)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", short(ch.Commit), ch.Path, err)
	}
	if len(hs) == 0 {
		return nil, nil
	}
	g := &generator{ch: ch, hs: hs, old: string(ch.Old), new: string(ch.New)}
	g.name = short(ch.Commit) + " " + ch.Path
	return g.cases(wrong), nil
}

// CommitCase is the whole commit as one unified diff over all its files, or
// false when it changes fewer than two.
func CommitCase(commit string, chs []FileChange) (Case, bool) {
	if len(chs) < 2 {
		return Case{}, false
	}
	c := Case{Name: short(commit) + " (all files)", Variant: "unified_commit", Tool: "apply_patch", Files: map[string][]byte{}, Want: map[string][]byte{}}
	var patch strings.Builder
	for _, ch := range chs {
		if ch.Old != nil {
			c.Files[ch.Path] = ch.Old
		}
		c.Want[ch.Path] = createdBytes(ch)
		patch.WriteString(ch.Diff)
	}
	c.Input = map[string]any{"patch": patch.String()}
	return c, true
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

type generator struct {
	ch       FileChange
	hs       []hunk
	old, new string
	name     string
}

func (g *generator) files() map[string][]byte {
	if g.ch.Old == nil {
		return map[string][]byte{}
	}
	return map[string][]byte{g.ch.Path: g.ch.Old}
}

func (g *generator) applied(variant, tool string, input any) Case {
	return Case{Name: g.name + " " + variant, Variant: variant, Files: g.files(), Tool: tool, Input: input, Want: map[string][]byte{g.ch.Path: createdBytes(g.ch)}}
}

// createdBytes is what a change must leave: the commit's bytes, except
// that a file the change creates gets the line endings whale gives a new
// file of its name (LF, or CRLF for .bat and .cmd, which cmd.exe needs):
// a patch's lines carry no line endings of their own.
func createdBytes(ch FileChange) []byte {
	if ch.Old != nil {
		return ch.New
	}
	lf := strings.ReplaceAll(string(ch.New), "\r\n", "\n")
	return edits.Encode(edits.NewFileFormat(ch.Path), "", lf)
}

func (g *generator) cases(wrong *Target) []Case {
	var out []Case
	add := func(c Case, ok bool) {
		if ok {
			out = append(out, c)
		}
	}
	modified := g.ch.Old != nil
	out = append(out, g.applied("unified", "apply_patch", map[string]any{"patch": g.ch.Diff}))
	if modified {
		out = append(out, g.applied("unified_bare", "apply_patch", map[string]any{"patch": bareHeaders(g.ch.Diff)}))
	}
	// The other formats cannot say that the final line break changed.
	if endsNL(g.old) != endsNL(g.new) && modified || !modified && !endsNL(g.new) {
		return out
	}
	if !modified {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Add File: " + g.ch.Path + "\n")
		for _, l := range splitLines(g.new) {
			b.WriteString("+" + l)
		}
		b.WriteString("*** End Patch\n")
		return append(out, g.applied("begin_patch_add", "apply_patch", map[string]any{"patch": b.String()}))
	}
	out = append(out, g.applied("begin_patch", "apply_patch", map[string]any{"patch": g.beginPatch(g.hs, true)}))
	out = append(out, g.applied("begin_patch_bare", "apply_patch", map[string]any{"patch": g.beginPatch(g.hs, false)}))
	add(g.editCase("edit", g.hs))
	for _, n := range noises {
		hs, ok := n.apply(g.hs)
		if !ok {
			continue
		}
		add(g.editCase("edit_"+n.name, hs))
		if n.patch {
			c := g.applied("begin_patch_"+n.name, "apply_patch", map[string]any{"patch": g.beginPatch(hs, true)})
			add(c, g.noisyOldAbsent(hs))
		}
	}
	add(g.editCase("edit_crlf_model", g.hs, withCRLF))
	add(g.crlfFile())
	add(g.mixedEOL("mixed_eol_unified"))
	add(g.mixedEOL("mixed_eol_begin_patch"))
	add(g.fileWhitespace("file_ws_unified"))
	add(g.fileWhitespace("file_ws_begin_patch"))
	add(g.fileWhitespace("file_ws_multi_edit"))
	add(g.fileTypography("file_typography_unified"))
	add(g.fileTypography("file_typography_begin_patch"))
	add(g.fileTypography("file_typography_multi_edit"))
	add(g.stale("stale_unified"))
	add(g.stale("stale_begin_patch"))
	add(g.stale("stale_multi_edit"))
	add(g.conflict("conflict_unified"))
	add(g.conflict("conflict_begin_patch"))
	add(g.conflict("conflict_multi_edit"))
	if wrong != nil {
		add(g.wrongFile(*wrong, "wrong_file_unified"))
		add(g.wrongFile(*wrong, "wrong_file_begin_patch"))
		add(g.wrongFile(*wrong, "wrong_file_edit"))
	}
	return out
}

func endsNL(s string) bool { return s == "" || strings.HasSuffix(s, "\n") }

// bareHeaders turns every "@@ -a,b +c,d @@ …" line of a diff into "@@".
func bareHeaders(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	for i, l := range lines {
		if hunkRE.MatchString(strings.TrimSuffix(l, "\n")) {
			lines[i] = "@@\n"
		}
	}
	return strings.Join(lines, "")
}

// beginPatch writes the file's hunks as a "*** Begin Patch" update. With
// anchors, a chunk's @@ line is git's function heading of its hunk when
// that heading's line lies after the previous chunk (else the chunk has a
// bare @@, as a model would write it).
func (g *generator) beginPatch(hs []hunk, anchors bool) string {
	return beginPatchFor(g.ch.Path, g.old, hs, anchors)
}

func beginPatchFor(p, old string, hs []hunk, anchors bool) string {
	oldLines := splitLines(old)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + p + "\n")
	prevEnd := 0
	for _, h := range hs {
		head := "@@"
		start, end := h.oldRange()
		if anchors && strings.TrimSpace(h.section) != "" {
			for i := min(start, len(oldLines)) - 1; i >= prevEnd; i-- {
				if strings.HasPrefix(strings.TrimRight(oldLines[i], "\r\n"), h.section) {
					head = "@@ " + h.section
					break
				}
			}
		}
		b.WriteString(head + "\n")
		for _, l := range h.lines {
			b.WriteString(string(l.kind) + l.text + "\n")
		}
		if h.touchesEnd(len(oldLines)) {
			b.WriteString("*** End of File\n")
		}
		prevEnd = end
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// editCase writes the hunks as an edit (one hunk) or multi_edit steps,
// each search the hunk's old side and each replacement its new side,
// passed through each of wrap.
func (g *generator) editCase(variant string, hs []hunk, wrap ...func(string) string) (Case, bool) {
	type step struct {
		Search  string `json:"search"`
		Replace string `json:"replace"`
	}
	var steps []step
	for _, h := range hs {
		s, r := h.side(true), h.side(false)
		if strings.TrimSpace(s) == "" {
			return Case{}, false // nothing to search for
		}
		for _, w := range wrap {
			s, r = w(s), w(r)
		}
		steps = append(steps, step{s, r})
	}
	if variant != "edit" && !g.noisyOldAbsent(hs) {
		return Case{}, false
	}
	if len(steps) == 1 {
		return g.applied(variant, "edit", map[string]any{"file_path": g.ch.Path, "search": steps[0].Search, "replace": steps[0].Replace}), true
	}
	return g.applied(variant, "multi_edit", map[string]any{"file_path": g.ch.Path, "edits": steps}), true
}

func withCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// noisyOldAbsent reports whether noise left every hunk's old side absent
// from the file as it is: a copy that is in the file exactly names that
// place, and the replay would then test something else.
func (g *generator) noisyOldAbsent(hs []hunk) bool {
	for k, h := range hs {
		if s := h.side(true); s != g.hs[k].side(true) && strings.Contains(g.old, s) {
			return false
		}
	}
	return true
}

// crlfFile is the multi_edit (or edit) of a file whose lines all end in
// CRLF, with the model's LF copy.
func (g *generator) crlfFile() (Case, bool) {
	if strings.Contains(g.old, "\r") || strings.Contains(g.new, "\r") {
		return Case{}, false
	}
	c, ok := g.editCase("edit", g.hs)
	if !ok {
		return c, false
	}
	c.Name, c.Variant = g.name+" edit_crlf_file", "edit_crlf_file"
	c.Files = map[string][]byte{g.ch.Path: []byte(withCRLF(g.old))}
	c.Want = map[string][]byte{g.ch.Path: []byte(withCRLF(g.new))}
	return c, true
}

// mixedEOL is a patch of a file where every third line that the change
// keeps ends in CRLF and the others in LF: kept lines must keep their own
// ending (also where equal lines end differently) and new lines take LF,
// the ending of the lines they replace, or the file's most common one.
func (g *generator) mixedEOL(variant string) (Case, bool) {
	if strings.Contains(g.old, "\r") || strings.Contains(g.new, "\r") {
		return Case{}, false
	}
	oldLines, newLines := splitLines(g.old), splitLines(g.new)
	toNew, fromOld := lineMap(g.hs, len(oldLines), len(newLines))
	crlf := make([]bool, len(oldLines))
	n := 0
	for i, l := range oldLines {
		if i%3 == 1 && toNew[i] >= 0 && strings.HasSuffix(l, "\n") {
			crlf[i] = true
			n++
		}
	}
	if n == 0 || 2*n >= len(oldLines) {
		return Case{}, false
	}
	var ob, nb strings.Builder
	for i, l := range oldLines {
		if crlf[i] {
			l = strings.TrimSuffix(l, "\n") + "\r\n"
		}
		ob.WriteString(l)
	}
	for j, l := range newLines {
		if i := fromOld[j]; i >= 0 && crlf[i] && strings.HasSuffix(l, "\n") {
			l = strings.TrimSuffix(l, "\n") + "\r\n"
		}
		nb.WriteString(l)
	}
	patch := g.ch.Diff
	if variant == "mixed_eol_begin_patch" {
		patch = g.beginPatch(g.hs, true)
	}
	return Case{Name: g.name + " " + variant, Variant: variant, Tool: "apply_patch", Input: map[string]any{"patch": patch},
		Files: map[string][]byte{g.ch.Path: []byte(ob.String())}, Want: map[string][]byte{g.ch.Path: []byte(nb.String())}}, true
}

// alignmentInDoubt marks the old lines whose pairing an edit's alignment
// may choose differently from git. An edit's search and replacement say
// nothing of which lines stayed: they are aligned, and an alignment other
// than git's may keep other lines. So for edits only the context lines
// every alignment keeps where git does are sure: a hunk's leading context
// within the common start of its two sides, and its trailing context
// within the common end of what follows that start; in a hunk whose one
// block of changes is exactly what lies between, the changed lines are
// sure too. Patches say it with their context lines: nothing is in doubt.
func (g *generator) alignmentInDoubt(variant string, n int) []bool {
	inDoubt := make([]bool, n)
	if strings.HasSuffix(variant, "_unified") || strings.HasSuffix(variant, "_begin_patch") {
		return inDoubt
	}
	for _, h := range g.hs {
		var o, nw []string
		lead, trail := 0, 0
		for _, l := range h.lines {
			if l.kind != '+' {
				o = append(o, l.text)
			}
			if l.kind != '-' {
				nw = append(nw, l.text)
			}
		}
		for lead < len(h.lines) && h.lines[lead].kind == ' ' {
			lead++
		}
		for trail < len(h.lines)-lead && h.lines[len(h.lines)-1-trail].kind == ' ' {
			trail++
		}
		p, s := sameEnds(o, nw)
		oneBlock := p == lead && s == trail
		for _, l := range h.lines[lead : len(h.lines)-trail] {
			oneBlock = oneBlock && l.kind != ' '
		}
		a, _ := h.oldRange()
		for k := range o {
			sure := k < min(lead, p) || k >= len(o)-min(trail, s) && k >= p || oneBlock
			if a+k < n {
				inDoubt[a+k] = !sure
			}
		}
	}
	return inDoubt
}

// fileWhitespace is the change on a file whose kept lines carry blanks the
// model's copy does not show: every whitespace-only line a tab or four
// spaces, every fourth other line two trailing spaces (a Markdown hard
// break). The kept lines must keep them; each blank line its own: a
// patch's context lines say which lines stay.
func (g *generator) fileWhitespace(variant string) (Case, bool) {
	if strings.Contains(g.old, "\r") || strings.Contains(g.new, "\r") {
		return Case{}, false
	}
	oldLines, newLines := splitLines(g.old), splitLines(g.new)
	toNew, fromOld := lineMap(g.hs, len(oldLines), len(newLines))
	inDoubt := g.alignmentInDoubt(variant, len(oldLines))
	blank := 0
	pad := make([]string, len(oldLines))
	for i, l := range oldLines {
		body := strings.TrimSuffix(l, "\n")
		switch {
		case toNew[i] < 0 || inDoubt[i] || body != strings.TrimRight(body, " \t"):
		case body == "":
			pad[i] = [2]string{"\t", "    "}[blank%2]
			blank++
		case i%4 == 0:
			pad[i] = "  "
		}
	}
	if blank == 0 {
		return Case{}, false
	}
	padded := func(lines []string, padOf func(int) string) []byte {
		var b strings.Builder
		for k, l := range lines {
			body := strings.TrimSuffix(l, "\n")
			b.WriteString(body + padOf(k) + l[len(body):])
		}
		return []byte(b.String())
	}
	c, ok := g.asFormat(variant)
	now := padded(oldLines, func(i int) string { return pad[i] })
	want := padded(newLines, func(j int) string {
		if i := fromOld[j]; i >= 0 {
			return pad[i]
		}
		return ""
	})
	if !ok || g.copyElsewhere(variant, string(now), string(want)) {
		return c, false
	}
	c.Files = map[string][]byte{g.ch.Path: now}
	c.Want = map[string][]byte{g.ch.Path: want}
	return c, true
}

// copyElsewhere reports whether a hunk's old side, as the model copies it,
// is in now (the file after a file-side change that left the lines the same
// in number) exactly, as whole lines, somewhere other than where the hunk
// is: the model's copy then names that other place, and the case would test
// nothing but the generator. For edits, whose steps each search the text
// the steps before them left, it must not be in want either (a copy an
// earlier step writes).
func (g *generator) copyElsewhere(variant, now, want string) bool {
	if !strings.HasSuffix(variant, "_unified") && !strings.HasSuffix(variant, "_begin_patch") {
		for _, h := range g.hs {
			if old := h.side(true); old != "" && strings.Contains(want, old) {
				return true
			}
		}
	}
	lines := splitLines(now)
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	for _, h := range g.hs {
		a, _ := h.oldRange()
		old := h.side(true)
		if old == "" || a > len(lines) {
			continue
		}
		for off := 0; ; {
			k := strings.Index(now[off:], old)
			if k < 0 {
				break
			}
			at := off + k
			if (at == 0 || now[at-1] == '\n') && at != starts[a] {
				return true
			}
			off = at + 1
		}
	}
	return false
}

// smarten writes a line's ASCII quotes as typographic ones, as a word
// processor would: ' as ’ and " as ”.
func smarten(s string) string {
	return strings.NewReplacer("'", "’", `"`, "”").Replace(s)
}

// fileTypography is the change on a file whose quotes are typographic
// where the model's copy (the commit's text) has ASCII ones: kept lines
// are smartened whole, and a changed line where it agrees with the line it
// replaces (its common start and end), so the quotes the change did not
// touch keep the file's form; the replaced line's middle must hold no
// quote, or the case is not generated.
func (g *generator) fileTypography(variant string) (Case, bool) {
	if strings.Contains(g.old, "\r") || hasTypography(g.old) || hasTypography(g.new) {
		return Case{}, false
	}
	oldLines, newLines := splitLines(g.old), splitLines(g.new)
	_, fromOld := lineMap(g.hs, len(oldLines), len(newLines))
	inDoubt := g.alignmentInDoubt(variant, len(oldLines))
	oldOut := make([]string, len(oldLines))
	newOut := make([]string, len(newLines))
	for i, l := range oldLines {
		oldOut[i] = l
		if !inDoubt[i] {
			oldOut[i] = smarten(l)
		}
	}
	for j, l := range newLines {
		newOut[j] = l
		if i := fromOld[j]; i >= 0 && !inDoubt[i] {
			newOut[j] = smarten(l)
		}
	}
	touched := false
	for _, h := range g.hs {
		a, _ := h.oldRange()
		b, _ := h.newRange()
		i, j := a, b
		for k := 0; k < len(h.lines); {
			if h.lines[k].kind == ' ' {
				touched = touched || smarten(h.lines[k].text) != h.lines[k].text
				i, j, k = i+1, j+1, k+1
				continue
			}
			var rem, add []int
			for ; k < len(h.lines) && h.lines[k].kind == '-'; k++ {
				rem = append(rem, i)
				i++
			}
			for ; k < len(h.lines) && h.lines[k].kind == '+'; k++ {
				add = append(add, j)
				j++
			}
			for n, ri := range rem {
				if n >= len(add) || ri >= len(oldLines) || add[n] >= len(newLines) || inDoubt[ri] {
					continue // removed whole (smartened whole), or paired in doubt (left as is)
				}
				o, w, ok := smartenEnds(oldLines[ri], newLines[add[n]])
				if !ok {
					return Case{}, false
				}
				touched = touched || o != oldLines[ri]
				oldOut[ri], newOut[add[n]] = o, w
			}
		}
	}
	if !touched {
		return Case{}, false
	}
	c, ok := g.asFormat(variant)
	now, want := strings.Join(oldOut, ""), strings.Join(newOut, "")
	if !ok || g.copyElsewhere(variant, now, want) {
		return c, false
	}
	c.Files = map[string][]byte{g.ch.Path: []byte(now)}
	c.Want = map[string][]byte{g.ch.Path: []byte(want)}
	return c, true
}

// smartenEnds smartens the common start and end of a replaced line and
// its replacement (in characters); ok is false when the replaced line's
// middle holds a quote, which the change may or may not have kept.
func smartenEnds(old, new string) (string, string, bool) {
	ro, rn := []rune(old), []rune(new)
	p, s := sameEnds(ro, rn)
	if mid := string(ro[p : len(ro)-s]); smarten(mid) != mid {
		return "", "", false
	}
	o := smarten(string(ro[:p])) + string(ro[p:len(ro)-s]) + smarten(string(ro[len(ro)-s:]))
	n := smarten(string(rn[:p])) + string(rn[p:len(rn)-s]) + smarten(string(rn[len(rn)-s:]))
	return o, n, true
}

// staleLine is the line a stale case adds to the file after the model
// read it.
const staleLine = "whale replay: a line someone added after the model read this file\n"

// stale is a change the model made from the file as it read it, while
// someone else added a line far from every hunk since: the change must
// still apply, around that line.
func (g *generator) stale(variant string) (Case, bool) {
	oldLines, newLines := splitLines(g.old), splitLines(g.new)
	if len(oldLines) == 0 || !strings.HasSuffix(g.old, "\n") {
		return Case{}, false
	}
	toNew, _ := lineMap(g.hs, len(oldLines), len(newLines))
	// The middle of the longest run of lines at least two away from any
	// hunk (a hunk's context included).
	near := make([]bool, len(oldLines)+1)
	for _, h := range g.hs {
		a, b := h.oldRange()
		for i := max(a-2, 0); i <= min(b+2, len(oldLines)); i++ {
			near[i] = true
		}
	}
	bestStart, bestLen := -1, 0
	for i := 0; i <= len(oldLines); {
		if near[i] {
			i++
			continue
		}
		j := i
		for j <= len(oldLines) && !near[j] {
			j++
		}
		if j-i > bestLen {
			bestStart, bestLen = i, j-i
		}
		i = j
	}
	if bestStart < 0 {
		return Case{}, false
	}
	at := bestStart + bestLen/2 // the new line goes before old line at
	if at >= len(oldLines) || toNew[at] < 0 {
		return Case{}, false
	}
	insert := func(lines []string, k int) []byte {
		return []byte(strings.Join(lines[:k], "") + staleLine + strings.Join(lines[k:], ""))
	}
	c, ok := g.asFormat(variant)
	if !ok {
		return c, false
	}
	c.Read = map[string][]byte{g.ch.Path: g.ch.Old}
	c.Files = map[string][]byte{g.ch.Path: insert(oldLines, at)}
	c.Want = map[string][]byte{g.ch.Path: insert(newLines, toNew[at])}
	return c, true
}

// asFormat is the file's change as the call a variant names by its suffix:
// _unified (git's diff), _begin_patch (with anchors), else edit or
// multi_edit steps.
func (g *generator) asFormat(variant string) (Case, bool) {
	switch {
	case strings.HasSuffix(variant, "_unified"):
		return g.applied(variant, "apply_patch", map[string]any{"patch": g.ch.Diff}), true
	case strings.HasSuffix(variant, "_begin_patch"):
		return g.applied(variant, "apply_patch", map[string]any{"patch": g.beginPatch(g.hs, true)}), true
	}
	c, ok := g.editCase("edit", g.hs)
	c.Name, c.Variant = g.name+" "+variant, variant
	return c, ok
}

// conflict is a change whose first hunk's lines someone else changed after
// the model read the file: one of its removed lines (or, with none, a
// context line) holds other text now. It must be refused.
func (g *generator) conflict(variant string) (Case, bool) {
	oldLines := splitLines(g.old)
	h := g.hs[0]
	a, _ := h.oldRange()
	target := -1
	for pass := 0; pass < 2 && target < 0; pass++ {
		i := a
		for _, l := range h.lines {
			if l.kind == '+' {
				continue
			}
			if (pass == 1 || l.kind == '-') && len(strings.TrimSpace(l.text)) >= 3 {
				target = i
				break
			}
			i++
		}
	}
	if target < 0 || target >= len(oldLines) {
		return Case{}, false
	}
	changed := append([]string(nil), oldLines...)
	l := changed[target]
	body := strings.TrimRight(l, "\r\n")
	mid := len(body) / 2
	for mid > 0 && !utf8.RuneStart(body[mid]) {
		mid--
	}
	changed[target] = body[:mid] + "CONFLICT" + body[mid:] + l[len(body):]
	now := strings.Join(changed, "")
	// Another copy of the hunk's lines would be a right place to apply.
	if containsTrimmedRun(now, h.side(true)) {
		return Case{}, false
	}
	c, ok := g.asFormat(variant)
	if !ok {
		return c, false
	}
	c.Read = map[string][]byte{g.ch.Path: g.ch.Old}
	c.Files = map[string][]byte{g.ch.Path: []byte(now)}
	c.Want = nil
	return c, true
}

// wrongFile sends the change to another file, which holds no line of the
// first hunk's old side that is longer than a few characters (so no
// tolerance can find it there): it must be refused.
func (g *generator) wrongFile(t Target, variant string) (Case, bool) {
	if t.Path == g.ch.Path || !holdsNone(string(t.Data), g.hs[0].side(true)) {
		return Case{}, false
	}
	c := Case{Name: g.name + " " + variant + " → " + t.Path, Variant: variant, Tool: "apply_patch", Files: map[string][]byte{g.ch.Path: g.ch.Old, t.Path: t.Data}}
	switch variant {
	case "wrong_file_unified":
		d := strings.ReplaceAll(g.ch.Diff, "a/"+g.ch.Path, "a/"+t.Path)
		c.Input = map[string]any{"patch": strings.ReplaceAll(d, "b/"+g.ch.Path, "b/"+t.Path)}
	case "wrong_file_begin_patch":
		c.Input = map[string]any{"patch": beginPatchFor(t.Path, string(t.Data), g.hs[:1], true)}
	default:
		h := g.hs[0]
		c.Tool = "edit"
		c.Input = map[string]any{"file_path": t.Path, "search": h.side(true), "replace": h.side(false)}
	}
	return c, true
}

// holdsNone reports whether text has none of the lines of old that are
// longer than three characters once trimmed (and at least one such line
// exists), comparing trimmed lines with typography folded.
func holdsNone(text, old string) bool {
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[foldLine(l)] = true
	}
	some := false
	for _, l := range strings.Split(old, "\n") {
		f := foldLine(l)
		if len(f) <= 3 {
			continue
		}
		some = true
		if have[f] {
			return false
		}
	}
	return some
}

// containsTrimmedRun reports whether text holds the lines of old, trimmed
// and with typography folded, as a run of consecutive lines.
func containsTrimmedRun(text, old string) bool {
	tl := strings.Split(text, "\n")
	ol := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	for i := range tl {
		k := 0
		for k < len(ol) && i+k < len(tl) && foldLine(tl[i+k]) == foldLine(ol[k]) {
			k++
		}
		if k == len(ol) {
			return true
		}
	}
	return false
}

func foldLine(l string) string {
	return asciiTypography(strings.TrimSpace(l))
}

// wrongTargetFor picks, among paths, a file to send a change of p to: the
// first after p (in order, cycling) with the same extension, else any.
func wrongTargetFor(p string, paths []string) string {
	ext := path.Ext(p)
	var any string
	for i, q := range paths {
		if q == p {
			for k := 1; k < len(paths); k++ {
				r := paths[(i+k)%len(paths)]
				if path.Ext(r) == ext {
					return r
				}
				if any == "" {
					any = r
				}
			}
		}
	}
	return any
}
