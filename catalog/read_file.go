package catalog

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/excerpt"
	"github.com/whale-ls/whale-ls/toolbridge"
	"github.com/whale-ls/whale-ls/workspace"
)

//go:embed read_file.md
var readFileDoc string

// Paging limits of read_file.
const (
	readDefaultLimit = 2000
	readMaxLineChars = 2000
	// readWholeLimit is the size up to which read_file reads past the page to
	// count the lines and hash the file; beyond it, it stops at the page.
	readWholeLimit = 8 << 20
)

type readFileInput struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

// ReadFile is read_file: a page of numbered lines of a file, from the
// editor's buffer when the file is open there, recorded in reads so that an
// edit can tell whether the file changed since.
func ReadFile(ws *workspace.Set, editor toolbridge.Editor, reads *ReadLedger) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "read_file",
		Description: readFileDoc,
		ReadOnly:    true,
		Group:       toolbridge.GroupFiles,
		InputSchema: toolbridge.Object([]string{"file_path"}, map[string]*toolbridge.Schema{
			"file_path": toolbridge.PathStr("File to read: relative to the workspace root, absolute, ~/…, or file:// URI."),
			"offset":    toolbridge.Int("1-based line to start at (default 1).", 1),
			"limit":     toolbridge.Int("Number of lines to return (default 2000).", 1),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in readFileInput) (toolbridge.Result, error) {
		t, err := resolve(ws, in.FilePath, workspace.Read)
		if err != nil {
			return toolbridge.Result{}, err
		}
		page := linePage{offset: max(in.Offset, 1), limit: in.Limit}
		if page.limit <= 0 {
			page.limit = readDefaultLimit
		}
		if editor != nil {
			if doc, ok := editor.Document(t.Abs); ok {
				page.source = fmt.Sprintf("editor buffer, version %d", doc.Version)
				if reads != nil {
					reads.Record(t.Abs, []byte(doc.Text))
				}
				return page.fromString(in.FilePath, doc.Text)
			}
		}
		return readFromDisk(ctx, reads, t, in.FilePath, page)
	})
}

// readFromDisk pages through a file on disk. Files up to readWholeLimit
// are read whole (one read, hashed for the read ledger, every line counted);
// larger UTF-8 files are streamed up to the end of the page only.
func readFromDisk(ctx context.Context, reads *ReadLedger, t workspace.Target, shown string, page linePage) (toolbridge.Result, error) {
	f, err := t.Root.FS.Open(t.Rel)
	if err != nil {
		return toolbridge.Result{}, statFailure(t, shown, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return toolbridge.Result{}, statFailure(t, shown, err)
	}
	if fi.IsDir() {
		return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeIsDirectory, "%s is a folder, not a file; use list_dir to see what it holds", excerpt.Text(shown))
	}
	binary := func() error {
		return toolbridge.Fail(toolbridge.CodeBinaryFile, "%s is a binary file (%d bytes); read_file shows text only — inspect it with shell_run (e.g. `file` or `xxd | head`)", excerpt.Text(shown), fi.Size())
	}
	if fi.Size() > readWholeLimit {
		br := bufio.NewReaderSize(f, 64<<10)
		head, _ := br.Peek(8 << 10)
		enc := sniffEncoding(head)
		switch {
		case enc == "":
			return toolbridge.Result{}, binary()
		case enc != encUTF8:
			what := enc
			if enc == encGB18030 {
				what = "GB18030 or 8-bit" // the head alone does not tell them apart
			}
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeTooLarge, "%s is %d bytes of %s text, more than read_file decodes (%d); use grep to find the part you need", excerpt.Text(shown), fi.Size(), what, readWholeLimit)
		}
		page.encoding = enc
		res, _, err := page.fromReader(ctx, shown, br, false)
		return res, err
	}
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	b, err := readAllInto((*buf)[:0], f)
	*buf = b
	if err != nil {
		return toolbridge.Result{}, err
	}
	head := b[:min(len(b), 8<<10)]
	enc := sniffEncoding(head)
	if enc == encUTF8 && len(head) == len(b) && !utf8.Valid(b) {
		// Nothing was cut off, so a broken character at the end is not
		// one: the file is not UTF-8, and edits.Decode decides what it is.
		enc = encGB18030
	}
	if enc == "" {
		return toolbridge.Result{}, binary()
	}
	if enc == encUTF8 {
		if reads != nil {
			reads.Record(t.Abs, b)
		}
		page.encoding = enc
		return page.fromBytes(shown, b) // invalid bytes show as U+FFFD
	}
	decoded, err := edits.Decode(b)
	if err != nil {
		return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeBinaryFile, "%s is not text in UTF-8, UTF-16, GB18030, Latin-1 or Windows-1252; inspect it with shell_run (e.g. `file` or `xxd | head`)", excerpt.Text(shown))
	}
	if reads != nil {
		reads.Record(t.Abs, b)
	}
	page.encoding = string(decoded.Format.Encoding)
	if decoded.Format.BOM && decoded.Format.Encoding == edits.UTF8 {
		page.encoding = encUTF8BOM
	}
	return page.fromString(shown, decoded.Text)
}

// readBufs recycles the buffers whole-file reads go through.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readAllInto appends everything r yields to buf.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// linePage renders one page of numbered lines.
type linePage struct {
	offset, limit int
	source        string // "" for disk
	encoding      string
	sizeHint      int // expected size of the rendered page, to allocate once
}

func (p linePage) fromString(shown, text string) (toolbridge.Result, error) {
	return p.fromBytes(shown, []byte(text))
}

// fromBytes pages through text held in memory; only the page's lines are
// converted to strings.
func (p linePage) fromBytes(shown string, text []byte) (toolbridge.Result, error) {
	// A page of a small file is the file plus about 8 bytes per line.
	p.sizeHint = min(len(text)+len(text)/4+256, 1<<20)
	return p.collect(shown, func(yield func(line []byte) bool) error {
		for len(text) > 0 {
			i := bytes.IndexByte(text, '\n')
			line := text
			if i >= 0 {
				line, text = text[:i], text[i+1:]
			} else {
				text = nil
			}
			if !yield(line) {
				return nil
			}
		}
		return nil
	}, true)
}

// fromReader streams lines from r. When countAll is false it stops after the
// page and the total is unknown. complete reports whether r was read to EOF.
func (p linePage) fromReader(ctx context.Context, shown string, br *bufio.Reader, countAll bool) (toolbridge.Result, bool, error) {
	complete := false
	res, err := p.collect(shown, func(yield func(line []byte) bool) error {
		n := 0
		for {
			if n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			n++
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				// A very long line: gather it whole.
				long := append([]byte(nil), line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					long = append(long, line...)
				}
				line = long
			}
			if len(line) > 0 {
				if !yield(bytes.TrimSuffix(line, []byte("\n"))) {
					return nil
				}
			}
			if err == io.EOF {
				complete = true
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, countAll)
	return res, complete, err
}

// collect numbers the lines of the page and counts the rest (when countAll).
func (p linePage) collect(shown string, lines func(yield func([]byte) bool) error, countAll bool) (toolbridge.Result, error) {
	var b strings.Builder // its String() does not copy
	b.Grow(max(p.sizeHint, 4096))
	total, shownLines, cut := 0, 0, 0
	stoppedEarly := false
	err := lines(func(line []byte) bool {
		total++
		if total < p.offset {
			return true
		}
		if shownLines >= p.limit {
			if !countAll {
				stoppedEarly = true
				return false
			}
			return true
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		appendLineNumber(&b, total)
		if !utf8.Valid(line) {
			line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
		}
		if len(line) > readMaxLineChars {
			if n := utf8.RuneCount(line); n > readMaxLineChars {
				cutAt := 0
				for i := 0; i < readMaxLineChars; i++ {
					_, size := utf8.DecodeRune(line[cutAt:])
					cutAt += size
				}
				line = fmt.Appendf(line[:cutAt:cutAt], " … [line cut: %d more characters]", n-readMaxLineChars)
				cut++
			}
		}
		b.Write(line)
		b.WriteByte('\n')
		shownLines++
		return true
	})
	if err != nil {
		return toolbridge.Result{}, err
	}
	data := map[string]any{"path": shown, "offset": p.offset, "lines": shownLines}
	if p.encoding != "" && p.encoding != encUTF8 {
		data["encoding"] = p.encoding
	}
	if p.source != "" {
		data["source"] = p.source
	}
	last := p.offset + shownLines - 1
	var foot string
	switch {
	case total == 0:
		foot = "(empty file)"
	case shownLines == 0:
		return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "%s has %d lines, so offset %d is past the end; read from offset 1, or from a line up to %d", excerpt.Text(shown), total, p.offset, total)
	case stoppedEarly:
		foot = fmt.Sprintf("(lines %d-%d shown; the file is large and has more lines; read on with offset=%d)", p.offset, last, last+1)
		data["more"] = true
	case last < total:
		foot = fmt.Sprintf("(lines %d-%d of %d; read on with offset=%d)", p.offset, last, total, last+1)
		data["total_lines"] = total
		data["more"] = true
	default:
		// The lines' numbers say which lines these are, the last one how
		// many the file has.
		foot = "(end of file)"
		data["total_lines"] = total
	}
	if cut > 0 {
		foot += fmt.Sprintf(" (%d long lines cut at %d characters; use grep to see a specific part)", cut, readMaxLineChars)
	}
	if p.source != "" {
		foot += " (from the " + p.source + ", which may differ from disk)"
	}
	if note := legacyEncodingNote(p.encoding); note != "" {
		foot += " " + note
	}
	b.WriteString(foot)
	return toolbridge.Result{Text: b.String(), Data: data, MoreHint: fmt.Sprintf("read a smaller range with offset=%d and a smaller limit", p.offset)}, nil
}

// appendLineNumber writes n and a tab. The number is not padded (`cat -n`
// pads it to six columns): the padding cost the model a token or two per
// line and told it nothing.
func appendLineNumber(b *strings.Builder, n int) {
	var digits [20]byte
	b.Write(strconv.AppendInt(digits[:0], int64(n), 10))
	b.WriteByte('\t')
}

// statFailure explains a file that cannot be opened; a missing file names
// the closest existing names in the nearest existing folder.
func statFailure(t workspace.Target, shown string, err error) error {
	shown = excerpt.Text(shown)
	if !errors.Is(err, fs.ErrNotExist) {
		if strings.Contains(err.Error(), "escapes") {
			return toolbridge.Fail(toolbridge.CodePathEscapesWorkspace, "%s leads out of its root through a symlink; use a path inside the workspace", shown)
		}
		// The path is named already; a PathError would repeat it whole.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return toolbridge.Fail(toolbridge.CodeNotFound, "%s cannot be opened (%v); check the path with list_dir", shown, err)
	}
	dir := path.Dir(t.Rel)
	for dir != "." {
		if fi, err := t.Root.FS.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		dir = path.Dir(dir)
	}
	var names []string
	if f, err := t.Root.FS.Open(dir); err == nil {
		entries, _ := f.ReadDir(4096)
		f.Close()
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	want := path.Base(t.Rel)
	if dir != path.Dir(t.Rel) {
		want = strings.SplitN(strings.TrimPrefix(t.Rel, dir+"/"), "/", 2)[0]
	}
	msg := fmt.Sprintf("%s does not exist", shown)
	if c := toolbridge.Closest(want, names, 3); len(c) > 0 {
		for i := range c {
			c[i] = path.Join(dir, c[i])
		}
		msg += "; closest existing: " + strings.Join(c, ", ")
	}
	msg += "; check the name with list_dir or search_files"
	return &toolbridge.Failure{Code: toolbridge.CodeNotFound, Text: msg}
}
