package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/whale-ls/whale-ls/toolbridge"
)

func TestMultiEditToolAtomic(t *testing.T) {
	_, r, root := testWorkspace(t, map[string]string{"m.txt": "one\ntwo\nthree\n"}, editTools, fileTools)
	env := call(t, r, "multi_edit", map[string]any{"file_path": "m.txt", "edits": []map[string]any{
		{"search": "one", "replace": "1"}, {"search": "four", "replace": "4"},
	}})
	if env.OK || env.Code != toolbridge.CodeSearchNotFound || !strings.Contains(env.Text, "step 2 of 2") {
		t.Fatalf("multi_edit = %s %q, want search_not_found at step 2", env.Code, env.Text)
	}
	if data, _ := json.Marshal(env.Data); !strings.Contains(string(data), `"step":2`) {
		t.Errorf("data = %s, want step 2", data)
	}
	if got := readTestFile(t, root, "m.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("m.txt = %q after a failed multi_edit", got)
	}
	env = call(t, r, "multi_edit", map[string]any{"file_path": "m.txt", "edits": []map[string]any{
		{"search": "one", "replace": "1"}, {"search": "1\ntwo", "replace": "1\n2"},
	}})
	if !env.OK || readTestFile(t, root, "m.txt") != "1\n2\nthree\n" {
		t.Fatalf("multi_edit = %s %q; file %q", env.Code, env.Text, readTestFile(t, root, "m.txt"))
	}
}
