package hostsetup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// This file is a small JSON (and JSONC: comments, trailing commas) editor
// that changes a document in place: a member set, an array grown, a member
// taken out; everything else — order, comments, indentation — stays as it
// was. It parses into nodes that know their byte spans and edits the text.

// jnode is one JSON value in the text: its span [start, end), and its
// members (object) or elements (array).
type jnode struct {
	kind     byte // '{', '[', '"', 'n' (number), 't', 'f', 'z' (null)
	start    int
	end      int
	members  []jmember
	elems    []*jnode
	trailing int // offset of a trailing comma before the closing bracket, or -1
}

type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

type jparser struct {
	src   []byte
	pos   int
	jsonc bool // comments and trailing commas allowed
}

// parseJSON parses src (JSONC when jsonc) into its root node.
func parseJSON(src []byte, jsonc bool) (*jnode, error) {
	p := &jparser{src: src, jsonc: jsonc}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %q after the document", p.src[p.pos])
	}
	return n, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips white space and, in JSONC, comments.
func (p *jparser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '/' || p.src[p.pos+1] == '*'):
			if !p.jsonc {
				return p.errorf("a comment, which this file may not hold")
			}
			if p.src[p.pos+1] == '/' {
				for p.pos < len(p.src) && p.src[p.pos] != '\n' {
					p.pos++
				}
				continue
			}
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("an unterminated comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > 200 {
		return nil, p.errorf("nested too deep")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the document")
	}
	n := &jnode{start: p.pos, trailing: -1}
	switch c := p.src[p.pos]; {
	case c == '{':
		n.kind = '{'
		p.pos++
		for {
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				break
			}
			n.trailing = -1
			if p.pos >= len(p.src) || p.src[p.pos] != '"' {
				return nil, p.errorf("expected a member name")
			}
			keyStart := p.pos
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return nil, p.errorf("expected ':' after %q", key)
			}
			p.pos++
			if err := p.space(); err != nil {
				return nil, err
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, jmember{key: key, keyStart: keyStart, val: v})
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				n.trailing = p.pos
				p.pos++
				continue
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				break
			}
			return nil, p.errorf("expected ',' or '}'")
		}
		if n.trailing >= 0 && !p.jsonc {
			return nil, p.errorf("a trailing comma")
		}
	case c == '[':
		n.kind = '['
		p.pos++
		for {
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				break
			}
			if len(n.elems) > 0 && n.trailing < 0 {
				return nil, p.errorf("expected ',' or ']'")
			}
			n.trailing = -1
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				n.trailing = p.pos
				p.pos++
			}
		}
		if n.trailing >= 0 && !p.jsonc {
			return nil, p.errorf("a trailing comma")
		}
	case c == '"':
		n.kind = '"'
		if _, err := p.str(); err != nil {
			return nil, err
		}
	case c == '-' || (c >= '0' && c <= '9'):
		n.kind = 'n'
		for p.pos < len(p.src) && strings.IndexByte("+-.eE0123456789", p.src[p.pos]) >= 0 {
			p.pos++
		}
		var f float64
		if json.Unmarshal(p.src[n.start:p.pos], &f) != nil {
			return nil, p.errorf("a malformed number")
		}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
				n.kind = map[string]byte{"true": 't', "false": 'f', "null": 'z'}[lit]
				p.pos += len(lit)
				n.end = p.pos
				return n, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
	n.end = p.pos
	return n, nil
}

// str reads a string literal and returns its value.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				return "", p.errorf("a malformed string")
			}
			return s, nil
		case '\n':
			return "", p.errorf("a line break inside a string")
		}
		p.pos++
	}
	return "", p.errorf("an unterminated string")
}

// member returns the object's member named key.
func (n *jnode) member(key string) *jmember {
	if n == nil || n.kind != '{' {
		return nil
	}
	// The last one wins, as in JSON.parse.
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return &n.members[i]
		}
	}
	return nil
}

// lookup follows path from n; nil when a step is missing or not an object.
func (n *jnode) lookup(path []string) *jnode {
	for _, k := range path {
		m := n.member(k)
		if m == nil {
			return nil
		}
		n = m.val
	}
	return n
}

// decodeNode returns the Go value of n's text (comments stripped).
func decodeNode(src []byte, n *jnode) (any, error) {
	var v any
	err := json.Unmarshal(stripJSONC(src[n.start:n.end]), &v)
	return v, err
}

// stripJSONC blanks comments and drops trailing commas, so that
// encoding/json reads a JSONC value.
func stripJSONC(src []byte) []byte {
	// First the comments go (strings kept), then the trailing commas.
	out := make([]byte, 0, len(src))
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += 2 + end + 1
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	src, out = out, make([]byte, 0, len(out))
	inStr = false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
				j++
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// --- values to write ---

// obj is a JSON object whose members keep their order when written.
type obj []kv

type kv struct {
	Key   string
	Value any
}

// MarshalJSON writes o with its members in order (for records and tests).
func (o obj) MarshalJSON() ([]byte, error) {
	return []byte(render(o, "", "")), nil
}

// render writes v as JSON; with unit non-empty, objects and arrays of
// objects spread over lines indented by indent+unit.
func render(v any, indent, unit string) string {
	var b strings.Builder
	renderTo(&b, v, indent, unit)
	return b.String()
}

func renderTo(b *strings.Builder, v any, indent, unit string) {
	switch v := v.(type) {
	case obj:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		if unit == "" {
			b.WriteString("{")
			for i, m := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(quote(m.Key) + ": ")
				renderTo(b, m.Value, "", "")
			}
			b.WriteString("}")
			return
		}
		b.WriteString("{")
		for i, m := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + unit + quote(m.Key) + ": ")
			renderTo(b, m.Value, indent+unit, unit)
		}
		b.WriteString("\n" + indent + "}")
	case []any:
		// Arrays of plain values stay on one line.
		multi := false
		for _, e := range v {
			if _, ok := e.(obj); ok {
				multi = unit != ""
			}
		}
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",")
				if !multi {
					b.WriteString(" ")
				}
			}
			if multi {
				b.WriteString("\n" + indent + unit)
				renderTo(b, e, indent+unit, unit)
			} else {
				renderTo(b, e, "", "")
			}
		}
		if multi {
			b.WriteString("\n" + indent)
		}
		b.WriteString("]")
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		renderTo(b, a, indent, unit)
	case string:
		b.WriteString(quote(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.RawMessage:
		b.Write(v)
	default:
		data, _ := json.Marshal(v)
		b.Write(data)
	}
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// plain turns an obj tree into encoding/json's generic values, to compare
// with what a file holds.
func plain(v any) any {
	switch v := v.(type) {
	case obj:
		m := map[string]any{}
		for _, e := range v {
			m[e.Key] = plain(e.Value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e
		}
		return out
	case json.RawMessage:
		var x any
		json.Unmarshal(stripJSONC(v), &x)
		return x
	case int:
		return float64(v)
	}
	return v
}

// --- edits ---

// jsonDoc is a document being edited.
type jsonDoc struct {
	src   []byte
	jsonc bool
	root  *jnode
}

func newJSONDoc(src []byte, jsonc bool) (*jsonDoc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	root, err := parseJSON(src, jsonc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("the document is not a JSON object")
	}
	return &jsonDoc{src: src, jsonc: jsonc, root: root}, nil
}

func (d *jsonDoc) splice(start, end int, text string) error {
	src := make([]byte, 0, len(d.src)+len(text))
	src = append(src, d.src[:start]...)
	src = append(src, text...)
	src = append(src, d.src[end:]...)
	root, err := parseJSON(src, d.jsonc)
	if err != nil {
		return fmt.Errorf("internal error: an edit broke the document (%v)", err)
	}
	d.src, d.root = src, root
	return nil
}

// unit is the document's indentation step: the first indented line's
// leading white space, else two spaces.
func (d *jsonDoc) unit() string {
	for _, line := range strings.Split(string(d.src), "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// lineIndent is the leading white space of the line holding offset.
func (d *jsonDoc) lineIndent(off int) string {
	start := bytes.LastIndexByte(d.src[:off], '\n') + 1
	end := start
	for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
		end++
	}
	return string(d.src[start:end])
}

func (d *jsonDoc) oneLine(n *jnode) bool {
	return !bytes.ContainsRune(d.src[n.start:n.end], '\n')
}

// get returns the value at path, and whether it is there.
func (d *jsonDoc) get(path []string) (any, bool) {
	n := d.root.lookup(path)
	if n == nil {
		return nil, false
	}
	v, err := decodeNode(d.src, n)
	return v, err == nil
}

// set makes path hold v, creating the objects on the way as part of the
// value it writes. It returns the path it wrote at (shorter than path when
// it created objects on the way), the previous value's text there (nil
// when there was none) and whether anything changed.
func (d *jsonDoc) set(path []string, v any) (at []string, prev json.RawMessage, changed bool, err error) {
	for i := 0; i < len(path)-1; i++ {
		n := d.root.lookup(path[:i+1])
		if n == nil {
			for j := len(path) - 1; j > i; j-- {
				v = obj{{path[j], v}}
			}
			path = path[:i+1]
			break
		}
		if n.kind != '{' {
			return nil, nil, false, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
	}
	parent := d.root.lookup(path[:len(path)-1])
	key := path[len(path)-1]
	m := parent.member(key)
	if m == nil {
		return path, nil, true, d.insertMember(parent, key, v)
	}
	cur, err := decodeNode(d.src, m.val)
	if err == nil && jsonEqual(cur, plain(v)) {
		return path, nil, false, nil
	}
	prev = append(json.RawMessage(nil), d.src[m.val.start:m.val.end]...)
	unit := ""
	if !d.oneLine(parent) {
		unit = d.unit()
	}
	return path, prev, true, d.splice(m.val.start, m.val.end, d.nl(render(v, d.lineIndent(m.keyStart), unit)))
}

// setRaw puts back a value's original text (undo).
func (d *jsonDoc) setRaw(path []string, raw json.RawMessage) error {
	n := d.root.lookup(path)
	if n == nil {
		parent := d.root.lookup(path[:len(path)-1])
		if parent == nil || parent.kind != '{' {
			return nil
		}
		return d.insertMember(parent, path[len(path)-1], raw)
	}
	return d.splice(n.start, n.end, string(raw))
}

// insertMember adds key: v at the end of object n, in n's layout.
func (d *jsonDoc) insertMember(n *jnode, key string, v any) error {
	return d.insertItem(n, quote(key)+": ", v)
}

// insertItem adds one member (prefix "key": ) or element (prefix "") at
// the end of object or array n.
func (d *jsonDoc) insertItem(n *jnode, prefix string, v any) error {
	unit := d.unit()
	indent := d.lineIndent(n.start)
	var lastEnd int
	count := len(n.members) + len(n.elems)
	if len(n.members) > 0 {
		lastEnd = n.members[len(n.members)-1].val.end
	} else if len(n.elems) > 0 {
		lastEnd = n.elems[len(n.elems)-1].end
	}
	if count == 0 {
		// {} or [ ]: an array of plain values stays on one line, and so
		// does an object inside one written on one line.
		if p := d.parentOf(n); n.kind == '[' || (p != nil && d.oneLine(p)) {
			return d.splice(n.start+1, n.end-1, render(v, "", ""))
		}
		item := prefix + render(v, indent+unit, unit)
		return d.splice(n.start+1, n.end-1, d.nl("\n"+indent+unit+item+"\n"+indent))
	}
	if d.oneLine(n) {
		item := prefix + render(v, "", "")
		if n.trailing >= 0 {
			return d.splice(n.trailing+1, n.trailing+1, " "+item+",")
		}
		return d.splice(lastEnd, lastEnd, ", "+item)
	}
	// The items are on lines of their own: the new one goes on a new line
	// after the last, indented like it.
	var firstStart int
	if len(n.members) > 0 {
		firstStart = n.members[0].keyStart
	} else {
		firstStart = n.elems[0].start
	}
	itemIndent := d.lineIndent(firstStart)
	if !bytes.ContainsRune(d.src[n.start:firstStart], '\n') {
		itemIndent = indent + unit
	}
	item := prefix + render(v, itemIndent, unit)
	if n.trailing >= 0 {
		at := d.lineEnd(n.trailing+1, n.end)
		return d.splice(at, at, d.nl("\n"+itemIndent+item+","))
	}
	at := d.lineEnd(lastEnd, n.end)
	if at == lastEnd {
		return d.splice(lastEnd, lastEnd, d.nl(",\n"+itemIndent+item))
	}
	// A comment follows the last item on its line: the comma goes right
	// after the item, the new item after the comment.
	text := string(d.src[:lastEnd]) + "," + string(d.src[lastEnd:at]) + d.nl("\n"+itemIndent+item) + string(d.src[at:])
	root, err := parseJSON([]byte(text), d.jsonc)
	if err != nil {
		return fmt.Errorf("internal error: an edit broke the document (%v)", err)
	}
	d.src, d.root = []byte(text), root
	return nil
}

// parentOf returns the object or array that holds n.
func (d *jsonDoc) parentOf(n *jnode) *jnode {
	var walk func(p *jnode) *jnode
	walk = func(p *jnode) *jnode {
		for _, m := range p.members {
			if m.val == n {
				return p
			}
			if r := walk(m.val); r != nil {
				return r
			}
		}
		for _, e := range p.elems {
			if e == n {
				return p
			}
			if r := walk(e); r != nil {
				return r
			}
		}
		return nil
	}
	return walk(d.root)
}

// lineEnd is where a new line may be opened after off: the end of a //
// comment that follows off on its line (when the closing bracket, at
// limit-1, is not on it); else off itself.
func (d *jsonDoc) lineEnd(off, limit int) int {
	i := off
	for i < limit-1 && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	if i+1 < limit-1 && d.src[i] == '/' && d.src[i+1] == '/' {
		for i < limit-1 && d.src[i] != '\n' && d.src[i] != '\r' {
			i++
		}
		if i < limit-1 {
			return i
		}
	}
	return off
}

// nl writes text's line breaks as the document does (CRLF or LF).
func (d *jsonDoc) nl(text string) string {
	if bytes.Contains(d.src, []byte("\r\n")) {
		return strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text
}

// addToArray appends to the array at path the items it lacks. When the
// array is missing it is created whole (with the objects on the way), and
// created is the path of what it wrote. It returns the items added.
func (d *jsonDoc) addToArray(path []string, items []string) (added []string, created []string, err error) {
	n := d.root.lookup(path)
	if n == nil {
		at, _, _, err := d.set(path, items)
		if err != nil {
			return nil, nil, err
		}
		return items, at, nil
	}
	if n.kind != '[' {
		return nil, nil, fmt.Errorf("%s is not a list", strings.Join(path, "."))
	}
	for _, it := range items {
		n = d.root.lookup(path)
		if d.arrayIndex(n, it) >= 0 {
			continue
		}
		if err := d.insertItem(n, "", it); err != nil {
			return nil, nil, err
		}
		added = append(added, it)
	}
	return added, nil, nil
}

func (d *jsonDoc) arrayIndex(n *jnode, s string) int {
	for i, e := range n.elems {
		if v, err := decodeNode(d.src, e); err == nil && v == s {
			return i
		}
	}
	return -1
}

// removeFromArray takes the items out of the array at path.
func (d *jsonDoc) removeFromArray(path []string, items []string) error {
	for _, it := range items {
		n := d.root.lookup(path)
		if n == nil || n.kind != '[' {
			return nil
		}
		i := d.arrayIndex(n, it)
		if i < 0 {
			continue
		}
		if err := d.removeItem(n, i); err != nil {
			return err
		}
	}
	return nil
}

// remove takes the member at path out.
func (d *jsonDoc) remove(path []string) error {
	parent := d.root.lookup(path[:len(path)-1])
	if parent == nil || parent.kind != '{' {
		return nil
	}
	for i := len(parent.members) - 1; i >= 0; i-- {
		if parent.members[i].key == path[len(path)-1] {
			return d.removeItem(parent, i)
		}
	}
	return nil
}

// removeItem deletes member or element i of n with its separator.
func (d *jsonDoc) removeItem(n *jnode, i int) error {
	type span struct{ start, end int }
	var items []span
	for _, m := range n.members {
		items = append(items, span{m.keyStart, m.val.end})
	}
	for _, e := range n.elems {
		items = append(items, span{e.start, e.end})
	}
	switch {
	case len(items) == 1:
		return d.splice(n.start+1, n.end-1, "")
	case i > 0:
		// From the end of the item before to the end of this one: the
		// comma, the line break and the item.
		return d.splice(items[i-1].end, items[i].end, "")
	default:
		return d.splice(items[0].start, items[1].start, "")
	}
}

// jsonEqual compares two generic JSON values.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
