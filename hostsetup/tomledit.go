package hostsetup

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file edits a TOML document by lines: a key set in a [table], the
// table appended when missing. Every other line stays as it was. What it
// cannot change by a line of its own (a key in an inline table, a dotted
// key, a value over several lines) it refuses, saying what to write by
// hand. Each result is checked by parsing it again.

type tomlDoc struct {
	lines []string // without their line breaks
	crlf  bool
	final bool // the source ended with a line break
}

func newTOMLDoc(src []byte) (*tomlDoc, error) {
	var m map[string]any
	if _, err := toml.Decode(string(src), &m); err != nil {
		return nil, err
	}
	s := string(src)
	d := &tomlDoc{crlf: strings.Contains(s, "\r\n")}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	d.final = s == "" || strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	if s != "" {
		d.lines = strings.Split(s, "\n")
	}
	return d, nil
}

func (d *tomlDoc) bytes() []byte {
	s := strings.Join(d.lines, "\n")
	if d.final && len(d.lines) > 0 {
		s += "\n"
	}
	if d.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return []byte(s)
}

func (d *tomlDoc) decode() (map[string]any, error) {
	var m map[string]any
	_, err := toml.Decode(string(d.bytes()), &m)
	return m, err
}

// get returns the value of table.key.
func (d *tomlDoc) get(table []string, key string) (any, bool) {
	m, err := d.decode()
	if err != nil {
		return nil, false
	}
	var cur any = m
	for _, k := range append(append([]string(nil), table...), key) {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return quote(k)
}

func tomlTable(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = tomlKey(p)
	}
	return strings.Join(parts, ".")
}

// tomlValue writes a string, bool or list of strings.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	panic(fmt.Sprintf("tomlValue: %T", v))
}

// splitKey reads a dotted key (bare or quoted parts) from the start of s;
// it returns the parts and the rest of s.
func splitKey(s string) ([]string, string, bool) {
	var parts []string
	for {
		s = strings.TrimLeft(s, " \t")
		switch {
		case strings.HasPrefix(s, `"`):
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			var k string
			if json.Unmarshal([]byte(s[:end+1]), &k) != nil {
				return nil, "", false
			}
			parts, s = append(parts, k), s[end+1:]
		case strings.HasPrefix(s, `'`):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			parts, s = append(parts, s[1:end+1]), s[end+2:]
		default:
			i := 0
			for i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
				i++
			}
			if i == 0 {
				return nil, "", false
			}
			parts, s = append(parts, s[:i]), s[i:]
		}
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return parts, s, true
		}
		s = s[1:]
	}
}

// header returns the table a line opens ([a.b]), if it is a table header.
func header(line string) ([]string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") || strings.HasPrefix(t, "[[") {
		return nil, false
	}
	parts, rest, ok := splitKey(t[1:])
	if !ok || !strings.HasPrefix(rest, "]") {
		return nil, false
	}
	rest = strings.TrimSpace(rest[1:])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false
	}
	return parts, true
}

func isHeader(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "[")
}

// section returns the index of table's header line and the end of its
// section (the next header, or the end); -1 when no header opens it.
func (d *tomlDoc) section(table []string) (int, int) {
	for i, line := range d.lines {
		if parts, ok := header(line); ok && reflect.DeepEqual(parts, table) {
			end := i + 1
			for end < len(d.lines) && !isHeader(d.lines[end]) {
				end++
			}
			return i, end
		}
	}
	return -1, -1
}

// keyLine finds the line in [from, to) that sets key.
func (d *tomlDoc) keyLine(from, to int, key string) int {
	for i := from; i < to; i++ {
		parts, rest, ok := splitKey(d.lines[i])
		if ok && len(parts) == 1 && parts[0] == key && strings.HasPrefix(rest, "=") {
			return i
		}
	}
	return -1
}

// set makes table.key hold v. It returns the line it replaced ("" when
// there was none), whether it changed anything, and whether it opened
// the table.
func (d *tomlDoc) set(table []string, key string, v any) (prevLine string, changed, newTable bool, err error) {
	if cur, ok := d.get(table, key); ok && tomlEqual(cur, v) {
		return "", false, false, nil
	}
	line := tomlKey(key) + " = " + tomlValue(v)
	byHand := fmt.Errorf("cannot write %s.%s = %s here: set it by hand under [%s]", tomlTable(table), tomlKey(key), tomlValue(v), tomlTable(table))
	saved := append([]string(nil), d.lines...)
	start, end := d.section(table)
	switch {
	case start >= 0:
		if i := d.keyLine(start+1, end, key); i >= 0 {
			// Replace a value that is on this line alone.
			var probe map[string]any
			if _, err := toml.Decode(strings.TrimSpace(d.lines[i]), &probe); err != nil {
				return "", false, false, byHand
			}
			prevLine = d.lines[i]
			indent := d.lines[i][:len(d.lines[i])-len(strings.TrimLeft(d.lines[i], " \t"))]
			d.lines[i] = indent + line
		} else {
			last := start
			for j := start + 1; j < end; j++ {
				if t := strings.TrimSpace(d.lines[j]); t != "" && !strings.HasPrefix(t, "#") {
					last = j
				}
			}
			d.lines = append(d.lines[:last+1], append([]string{line}, d.lines[last+1:]...)...)
		}
	default:
		if len(d.lines) > 0 && strings.TrimSpace(d.lines[len(d.lines)-1]) != "" {
			d.lines = append(d.lines, "")
		}
		d.lines = append(d.lines, "["+tomlTable(table)+"]", line)
		d.final, newTable = true, true
	}
	if cur, ok := d.get(table, key); !ok || !tomlEqual(cur, v) {
		d.lines = saved
		return "", false, false, byHand
	}
	return prevLine, true, newTable, nil
}

// unset undoes a set: the line setup wrote goes (or the one it replaced
// comes back), and a table setup opened goes when nothing is left in it.
// A line that was changed since is left alone.
func (d *tomlDoc) unset(table []string, key, wrote, prevLine string, newTable bool) {
	start, end := d.section(table)
	if start < 0 {
		return
	}
	i := d.keyLine(start+1, end, key)
	if i < 0 || strings.TrimSpace(d.lines[i]) != strings.TrimSpace(wrote) {
		return
	}
	if prevLine != "" {
		d.lines[i] = prevLine
		return
	}
	d.lines = append(d.lines[:i], d.lines[i+1:]...)
	if !newTable {
		return
	}
	start, end = d.section(table)
	for j := start + 1; j < end; j++ {
		if strings.TrimSpace(d.lines[j]) != "" {
			return
		}
	}
	// The header goes with the blank line setup put before it; blank
	// lines after it (someone else's) stay.
	from := start
	if from > 0 && strings.TrimSpace(d.lines[from-1]) == "" {
		from--
	}
	d.lines = append(d.lines[:from], d.lines[start+1:]...)
}

func tomlEqual(cur, v any) bool {
	switch v := v.(type) {
	case []string:
		a, ok := cur.([]any)
		if !ok || len(a) != len(v) {
			return false
		}
		for i := range v {
			if a[i] != v[i] {
				return false
			}
		}
		return true
	}
	return cur == v
}
