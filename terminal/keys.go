package terminal

import (
	"fmt"
	"sort"
	"strings"
)

// namedKeys are the bytes a terminal sends for each key.
var namedKeys = map[string]string{
	"enter":     "\r",
	"tab":       "\t",
	"escape":    "\x1b",
	"backspace": "\x7f",
	"delete":    "\x1b[3~",
	"space":     " ",
	"up":        "\x1b[A",
	"down":      "\x1b[B",
	"right":     "\x1b[C",
	"left":      "\x1b[D",
	"home":      "\x1b[H",
	"end":       "\x1b[F",
	"pageup":    "\x1b[5~",
	"pagedown":  "\x1b[6~",
	"insert":    "\x1b[2~",
}

var keyAliases = map[string]string{
	"esc": "escape", "return": "enter", "cr": "enter", "bs": "backspace", "del": "delete",
	"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
	"page-up": "pageup", "page-down": "pagedown", "pgup": "pageup", "pgdn": "pagedown",
}

// KeyNames lists the key names Send understands, besides ctrl-a … ctrl-z,
// ctrl-[, ctrl-\, ctrl-], and f1 … f12.
func KeyNames() []string {
	names := make([]string, 0, len(namedKeys))
	for k := range namedKeys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	k = strings.ReplaceAll(k, "_", "-")
	k = strings.ReplaceAll(k, " ", "")
	if strings.HasPrefix(k, "control-") {
		k = "ctrl-" + strings.TrimPrefix(k, "control-")
	}
	if strings.HasPrefix(k, "ctrl+") || strings.HasPrefix(k, "c-") {
		k = "ctrl-" + k[strings.IndexAny(k, "+-")+1:]
	}
	if a, ok := keyAliases[k]; ok {
		k = a
	}
	return k
}

var functionKeys = []string{"\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS", "\x1b[15~", "\x1b[17~", "\x1b[18~", "\x1b[19~", "\x1b[20~", "\x1b[21~", "\x1b[23~", "\x1b[24~"}

// keyBytes translates a key name; in pipe mode enter is a newline.
func keyBytes(name string, isPTY bool) (string, error) {
	k := normKey(name)
	if k == "enter" && !isPTY {
		return "\n", nil
	}
	if s, ok := namedKeys[k]; ok {
		return s, nil
	}
	if rest, ok := strings.CutPrefix(k, "ctrl-"); ok && len(rest) == 1 {
		c := rest[0]
		switch {
		case c >= 'a' && c <= 'z':
			return string(rune(c - 'a' + 1)), nil
		case c == '[':
			return "\x1b", nil
		case c == '\\':
			return "\x1c", nil
		case c == ']':
			return "\x1d", nil
		case c == '@' || c == ' ':
			return "\x00", nil
		}
	}
	if len(k) >= 2 && k[0] == 'f' {
		var n int
		if _, err := fmt.Sscanf(k[1:], "%d", &n); err == nil && n >= 1 && n <= 12 && fmt.Sprint(n) == k[1:] {
			return functionKeys[n-1], nil
		}
	}
	return "", fmt.Errorf("unknown key %q; use one of %s, ctrl-a … ctrl-z, f1 … f12, or put plain text in input", name, strings.Join(KeyNames(), ", "))
}
