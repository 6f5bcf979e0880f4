package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/settings"
	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestReadmeListsEveryTool keeps README's tool table in step with the
// catalog: every tool of a session (plus tool_search, which appears only
// with a deferred MCP server) has a row.
func TestReadmeListsEveryTool(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	sess, err := newSession(t.TempDir(), "", "deny", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	names := append(sess.Registry.Names(), "tool_search")
	for _, name := range names {
		if !strings.Contains(readme, "| `"+name+"` |") {
			t.Errorf("README's tool table has no row for %s", name)
		}
	}
}

// TestReadmeListsEveryResultCode keeps README's table of result codes in
// step with toolbridge.Codes: the same codes, in the same order.
func TestReadmeListsEveryResultCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Result codes\n")
	if !ok {
		t.Fatal("README has no \"### Result codes\" section")
	}
	section, _, _ = strings.Cut(section, "\n#")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if code, ok := strings.CutPrefix(line, "| `"); ok {
			code, _, _ = strings.Cut(code, "`")
			listed = append(listed, code)
		}
	}
	if diff := cmp.Diff(toolbridge.Codes, listed); diff != "" {
		t.Errorf("README's result codes differ from toolbridge.Codes (-code +README):\n%s", diff)
	}
}

// TestReadmeSettingsTableMatchesTheCode keeps README's settings table in
// step with settings.Table: the same keys, each with the default
// the table shows (settings.Spec.DefaultText).
func TestReadmeSettingsTableMatchesTheCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Settings\n")
	if !ok {
		t.Fatal("README has no \"## Settings\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{} // key → default cell
	var order []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.SplitN(strings.TrimPrefix(line, "| "), " | ", 3)
		if len(cells) < 3 {
			t.Errorf("README settings row %q does not have three cells", line)
			continue
		}
		key := strings.Trim(cells[0], "`")
		rows[key] = cells[1]
		order = append(order, key)
	}
	var want []string
	for _, s := range settings.Table {
		want = append(want, s.Key)
		got, ok := rows[s.Key]
		if !ok {
			t.Errorf("README's settings table has no row for %s; add `| `%s` | %s | … |`", s.Key, s.Key, s.DefaultText())
			continue
		}
		if got != s.DefaultText() {
			t.Errorf("README gives %s the default %q, the code %q", s.Key, got, s.DefaultText())
		}
	}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("README's settings rows differ from settings.Table's keys (-code +README):\n%s", diff)
	}
}
