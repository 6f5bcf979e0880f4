package catalog

import (
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestLoadSkill(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	_, r, _ := testWorkspace(t, map[string]string{
		".whale/skills/release/SKILL.md":    "---\nname: release-notes\ndescription: \"Write release notes\"\n---\nStep 1: read the log.\n",
		".whale/skills/release/template.md": "## Changes\n",
		".whale/skills/plain/SKILL.md":      "No front matter.\n",
	}, fileTools)
	specs := r.Specs()
	var desc string
	for _, s := range specs {
		if s.Name == "load_skill" {
			desc = s.Description
		}
	}
	if !strings.Contains(desc, "- release-notes: Write release notes") || !strings.Contains(desc, "- plain:") {
		t.Errorf("load_skill description does not list the skills:\n%s", desc)
	}
	env := call(t, r, "load_skill", map[string]any{"name": "release-notes"})
	if !env.OK || !strings.Contains(env.Text, "Step 1: read the log.") || !strings.Contains(env.Text, "template.md") {
		t.Errorf("load_skill release-notes = %+v", env)
	}
	env = call(t, r, "load_skill", map[string]any{"name": "nope"})
	if env.Code != toolbridge.CodeNotFound || !strings.Contains(env.Text, "plain, release-notes") {
		t.Errorf("load_skill nope = %+v, want not_found listing the skills", env)
	}
}
