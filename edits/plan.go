package edits

import "context"

// Change is a change of one file computed in memory: the LF texts before and
// after (for diffs and messages), the file's Format, and the bytes to write.
type Change struct {
	OldText, NewText string
	Format           Format
	New              []byte
	Applied          Applied
}

// PlanEdits decodes a file's bytes, applies the steps in order, and encodes
// the result in the file's own encoding, BOM and line endings.
// The steps stop early when ctx ends. In an ISO-8859-1 or Windows-1252 file,
// a result with a non-ASCII character the file does not already contain is
// refused with CodeEditRejected; PlanWrite and PlanPatch do the same.
func PlanEdits(ctx context.Context, raw []byte, steps []Edit) (Change, error) {
	d, err := Decode(raw)
	if err != nil {
		return Change{}, err
	}
	a, err := ApplyAll(ctx, d.Text, steps)
	if err != nil {
		return Change{}, err
	}
	if err := checkEncodable(d.Format, "", d.Text, a.Text); err != nil {
		return Change{}, err
	}
	return Change{OldText: d.Text, NewText: a.Text, Format: d.Format, New: encodeApplied(d.Format, d.Text, a), Applied: a}, nil
}

// PlanWrite plans replacing a file's whole content. An existing file keeps
// its encoding, BOM and line-ending style (lines equal to old ones keep
// their own ending); a new file gets NewFileFormat(name). Writing the same
// content again is no_change.
func PlanWrite(name string, raw []byte, exists bool, content string) (Change, error) {
	content = normalizeInput(content)
	f := NewFileFormat(name)
	old := ""
	if exists {
		d, err := Decode(raw)
		if err != nil {
			return Change{}, err
		}
		f, old = d.Format, d.Text
		if old == content {
			return Change{}, newError(CodeNoChange, "the file already has exactly this content; nothing to write")
		}
		if err := checkEncodable(f, "", old, content); err != nil {
			return Change{}, err
		}
	}
	return Change{OldText: old, NewText: content, Format: f, New: Encode(f, old, content), Applied: Applied{Text: content, Replacements: 1}}, nil
}

// PlanPatch applies one file's part of a patch to the file's bytes (raw is
// ignored when the patch creates the file). A created file gets
// NewFileFormat of its path. A deletion without hunks removes the file
// whatever it holds, so its bytes need not decode.
func PlanPatch(fp FilePatch, raw []byte, exists bool) (Change, error) {
	switch {
	case fp.Creates() && exists && fp.beginPatch:
		return Change{}, newError(CodeWriteConflict, "%s already exists, but the patch creates it with *** Add File; read it and change it with *** Update File, or use write to replace it", fp.NewPath)
	case fp.Creates() && exists:
		return Change{}, newError(CodeWriteConflict, "%s already exists, but the patch creates it from /dev/null; read it and patch its current content, or use write to replace it", fp.NewPath)
	case !fp.Creates() && !exists && fp.beginPatch && fp.Deletes():
		return Change{}, newError(CodeNotFound, "%s does not exist, so *** Delete File has nothing to delete; check the path, or remove that section", fp.OldPath)
	case !fp.Creates() && !exists && fp.beginPatch:
		return Change{}, newError(CodeNotFound, "%s does not exist; check the path in the *** Update File line, or create the file with *** Add File", fp.OldPath)
	case !fp.Creates() && !exists:
		return Change{}, newError(CodeNotFound, "%s does not exist; check the path in the --- line, or create the file with --- /dev/null", fp.OldPath)
	}
	f, old := NewFileFormat(fp.NewPath), ""
	if exists {
		d, err := Decode(raw)
		switch {
		case err != nil && fp.Deletes() && len(fp.hunks) == 0:
			return Change{}, nil
		case err != nil:
			return Change{}, err
		}
		f, old = d.Format, d.Text
	}
	a, err := fp.Apply(old)
	if err != nil {
		return Change{}, err
	}
	if fp.Deletes() {
		return Change{OldText: old, Format: f, Applied: a}, nil
	}
	if a.Text == old && fp.OldPath == fp.NewPath {
		return Change{}, newError(CodeNoChange, "the patch leaves %s exactly as it is; check that its + and - lines differ", fp.NewPath)
	}
	if err := checkEncodable(f, fp.NewPath, old, a.Text); err != nil {
		return Change{}, err
	}
	return Change{OldText: old, NewText: a.Text, Format: f, New: encodeApplied(f, old, a), Applied: a}, nil
}
