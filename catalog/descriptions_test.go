package catalog

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// TestDescriptionsFit: every description of the catalog is at most
// MaxDescriptionBytes (Azure OpenAI's limit, counted in bytes, so also in
// characters), and keeps the facts a model needs to use the tool right.
func TestDescriptionsFit(t *testing.T) {
	longest, longestName := 0, ""
	for _, spec := range catalogSpecs(t) {
		n := len(spec.Description)
		if n > toolbridge.MaxDescriptionBytes {
			t.Errorf("%s: the description has %d bytes (%d characters), more than %d; move examples and long limits to %s.long.md or the parameters' descriptions",
				spec.Name, n, utf8.RuneCountInString(spec.Description), toolbridge.MaxDescriptionBytes, spec.Name)
		}
		if n > longest {
			longest, longestName = n, spec.Name
		}
	}
	t.Logf("longest description: %s, %d bytes", longestName, longest)
}

// TestDescriptionsKeepTheFacts: what a model cannot do without stays in
// the sent description.
func TestDescriptionsKeepTheFacts(t *testing.T) {
	facts := map[string][]string{
		"apply_patch":  {"--- a/path", "+++ b/path", "@@", "*** Begin Patch", "*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:", "*** End Patch", "nothing is written"},
		"edit":         {"exactly one place", "all: true", "line-number", "multi_edit", "apply_patch", "write"},
		"multi_edit":   {"all of them or none", "previous", "exactly one place"},
		"write":        {"complete new text", "edit"},
		"read_file":    {"offset", "limit", "2000", "not part of the file"},
		"grep":         {"RE2", "fixed_strings", "include", "200", "search_files"},
		"search_files": {"**", "pattern", "grep"},
		"shell_run":    {"yield_time_ms", "task_id", "shell_wait", "write_stdin", "shell_cancel", "secrets", "128 KiB"},
		"write_stdin":  {"keys", "enter", "password_prompt"},
		"fetch":        {"web_fetch", "denied", "web.allowPrivate", "max_bytes"},
		"web_fetch":    {"fetch", "max_bytes"},
		"web_search":   {"web.search", "not_configured", "web_fetch"},
		"update_plan":  {"whole plan", "in_progress", "at most one"},
		"tool_search":  {"mcp__<server>__<tool>"},
	}
	specs := map[string]toolbridge.Spec{}
	for _, spec := range catalogSpecs(t) {
		specs[spec.Name] = spec
	}
	for tool, want := range facts {
		spec, ok := specs[tool]
		if !ok {
			t.Errorf("no tool %s in the catalog", tool)
			continue
		}
		for _, w := range want {
			if !strings.Contains(spec.Description, w) {
				t.Errorf("%s: the description lost %q", tool, w)
			}
		}
	}
}

// TestLongHelp: every built-in tool has a long help, and every long help
// belongs to a tool.
func TestLongHelp(t *testing.T) {
	names := map[string]bool{}
	for _, spec := range catalogSpecs(t) {
		names[spec.Name] = true
		if strings.TrimSpace(LongHelp(spec.Name)) == "" {
			t.Errorf("%s has no long help (%s.long.md)", spec.Name, spec.Name)
		}
	}
	files, err := fs.Glob(longHelp, "*.long.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if tool := strings.TrimSuffix(f, ".long.md"); !names[tool] {
			t.Errorf("%s belongs to no tool of the catalog", f)
		}
	}
	if got := LongHelp("mcp__x__y"); got != "" {
		t.Errorf("LongHelp of a proxied tool = %q, want none", got)
	}
}

// TestLoadSkillDescriptionFits: the skills found are listed in full when
// they fit, with descriptions cut alike when not, and counted past what
// even names alone fit; the description never passes the limit.
func TestLoadSkillDescriptionFits(t *testing.T) {
	skills := func(n, about int) []Skill {
		var out []Skill
		for i := range n {
			out = append(out, Skill{Name: fmt.Sprintf("skill-%02d", i), Description: strings.Repeat("é", about/2)})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		skills   []Skill
		mentions []string
	}{
		{"none", nil, []string{"No skills were found"}},
		{"a few, in full", skills(3, 60), []string{"- skill-00: " + strings.Repeat("é", 30) + "\n", "- skill-02:"}},
		{"many, cut alike", skills(10, 400), []string{"- skill-00: é", "…\n- skill-09: é"}},
		{"too many, counted", skills(60, 400), []string{"- skill-00: ", "more; load_skill with an unknown name lists them all"}},
		{"a huge name", []Skill{{Name: strings.Repeat("n", 4000), Description: "x"}}, []string{"- and 1 more"}},
	} {
		desc := loadSkillDescription(tc.skills)
		if len(desc) > toolbridge.MaxDescriptionBytes || !utf8.ValidString(desc) {
			t.Errorf("%s: loadSkillDescription has %d bytes (valid UTF-8: %v), want at most %d", tc.name, len(desc), utf8.ValidString(desc), toolbridge.MaxDescriptionBytes)
		}
		for _, m := range tc.mentions {
			if !strings.Contains(desc, m) {
				t.Errorf("%s: loadSkillDescription lacks %q:\n%s", tc.name, m, desc)
			}
		}
	}
}
