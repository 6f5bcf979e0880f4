package hostsetup

import (
	"strings"
	"testing"
)

func TestJSONSetKeepsLayout(t *testing.T) {
	cases := []struct {
		name, src, want string
		jsonc           bool
		path            []string
		value           any
	}{
		{"empty file", "", "{\n  \"a\": {\n    \"b\": true\n  }\n}\n", false, []string{"a", "b"}, true},
		{"one line", `{"x": 1}`, `{"x": 1, "a": {"b": true}}`, false, []string{"a", "b"}, true},
		{"four spaces", "{\n    \"x\": 1\n}\n", "{\n    \"x\": 1,\n    \"a\": \"v\"\n}\n", false, []string{"a"}, "v"},
		{"tabs", "{\n\t\"x\": {\n\t\t\"y\": 1\n\t}\n}", "{\n\t\"x\": {\n\t\t\"y\": 1,\n\t\t\"z\": 2\n\t}\n}", false, []string{"x", "z"}, 2},
		{"trailing comma", "{\n  \"x\": 1,\n}", "{\n  \"x\": 1,\n  \"a\": 2,\n}", true, []string{"a"}, 2},
		{"comment after the last member", "{\n  \"x\": 1 // one\n}", "{\n  \"x\": 1, // one\n  \"a\": 2\n}", true, []string{"a"}, 2},
		{"block comment", "{ /* c */\n  \"x\": 1\n}", "{ /* c */\n  \"x\": 1,\n  \"a\": 2\n}", true, []string{"a"}, 2},
		{"crlf", "{\r\n  \"x\": 1\r\n}\r\n", "{\r\n  \"x\": 1,\r\n  \"a\": {\r\n    \"b\": 2\r\n  }\r\n}\r\n", false, []string{"a", "b"}, 2},
		{"replace a value", "{\n  \"p\": {\"edit\": \"allow\", \"bash\": \"ask\"}\n}", "{\n  \"p\": {\"edit\": \"deny\", \"bash\": \"ask\"}\n}", false, []string{"p", "edit"}, "deny"},
		{"empty object", "{\n  \"m\": {}\n}", "{\n  \"m\": {\n    \"k\": 1\n  }\n}", false, []string{"m", "k"}, 1},
		{"string with a comment marker", `{"u": "http://x//y"}`, `{"u": "http://x//y", "a": 1}`, true, []string{"a"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := newJSONDoc([]byte(c.src), c.jsonc)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := d.set(c.path, c.value); err != nil {
				t.Fatal(err)
			}
			if string(d.src) != c.want {
				t.Errorf("got:\n%q\nwant:\n%q", d.src, c.want)
			}
		})
	}
}

func TestJSONArrays(t *testing.T) {
	d, err := newJSONDoc([]byte("{\n  \"deny\": [\n    \"A\",\n    \"B\"\n  ],\n  \"one\": [\"x\"]\n}"), false)
	if err != nil {
		t.Fatal(err)
	}
	added, _, err := d.addToArray([]string{"deny"}, []string{"B", "C"})
	if err != nil || strings.Join(added, ",") != "C" {
		t.Fatalf("added %v, %v", added, err)
	}
	if _, _, err := d.addToArray([]string{"one"}, []string{"y"}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"deny\": [\n    \"A\",\n    \"B\",\n    \"C\"\n  ],\n  \"one\": [\"x\", \"y\"]\n}"
	if string(d.src) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", d.src, want)
	}
	if err := d.removeFromArray([]string{"deny"}, []string{"C"}); err != nil {
		t.Fatal(err)
	}
	if err := d.removeFromArray([]string{"one"}, []string{"y"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"deny\": [\n    \"A\",\n    \"B\"\n  ],\n  \"one\": [\"x\"]\n}"; string(d.src) != want {
		t.Errorf("after removal:\n%s\nwant:\n%s", d.src, want)
	}
}

func TestJSONRemove(t *testing.T) {
	for _, c := range []struct{ src, key, want string }{
		{"{\n  \"a\": 1,\n  \"b\": 2\n}", "b", "{\n  \"a\": 1\n}"},
		{"{\n  \"a\": 1,\n  \"b\": 2\n}", "a", "{\n  \"b\": 2\n}"},
		{"{\"a\": 1}", "a", "{}"},
	} {
		d, _ := newJSONDoc([]byte(c.src), false)
		if err := d.remove([]string{c.key}); err != nil {
			t.Fatal(err)
		}
		if string(d.src) != c.want {
			t.Errorf("remove %s from %q: %q, want %q", c.key, c.src, d.src, c.want)
		}
	}
}

func TestJSONParseErrors(t *testing.T) {
	for _, c := range []struct {
		src   string
		jsonc bool
	}{
		{`{"a": 1,}`, false},
		{"{\n// c\n}", false},
		{`{"a" 1}`, true},
		{`{"a": [1 2]}`, true},
		{`{"a": 1} x`, true},
		{`[1]`, true},
		{`{"a": "x`, true},
		{`{"a": tru}`, true},
		{`{"a": 1, /* open }`, true},
	} {
		if _, err := newJSONDoc([]byte(c.src), c.jsonc); err == nil {
			t.Errorf("%q (jsonc %v) parsed", c.src, c.jsonc)
		}
	}
	for _, ok := range []string{`{"a": [1, 2,], "b": {"c": 1,},}`, "{\n// c\n\"a\": /* x */ 1\n}", "\ufeff{}"} {
		if _, err := newJSONDoc([]byte(ok), true); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestTOMLSet(t *testing.T) {
	cases := []struct {
		name, src, want string
		table           []string
		key             string
		value           any
	}{
		{"new table at the end", "model = \"x\"\n", "model = \"x\"\n\n[features]\nshell_tool = false\n", []string{"features"}, "shell_tool", false},
		{"empty file", "", "[mcp_servers.whale]\ncommand = \"whale-ls\"\n", []string{"mcp_servers", "whale"}, "command", "whale-ls"},
		{"into a table, before the next", "[features]\na = true\n\n# next\n[b]\nc = 1\n", "[features]\na = true\nshell_tool = false\n\n# next\n[b]\nc = 1\n", []string{"features"}, "shell_tool", false},
		{"replace, keeping indentation", "[features]\n  shell_tool = true\n", "[features]\n  shell_tool = false\n", []string{"features"}, "shell_tool", false},
		{"quoted header", "[mcp_servers.\"whale\"]\ncommand = \"old\"\n", "[mcp_servers.\"whale\"]\ncommand = \"whale-ls\"\n", []string{"mcp_servers", "whale"}, "command", "whale-ls"},
		{"list", "", "[t]\nargs = [\"mcp\", \"--x\"]\n", []string{"t"}, "args", []string{"mcp", "--x"}},
		{"no final newline", "a = 1", "a = 1\n\n[t]\nk = true\n", []string{"t"}, "k", true},
		{"a super-table after its sub-table", "[mcp_servers.whale.env]\nX = \"1\"\n", "[mcp_servers.whale.env]\nX = \"1\"\n\n[mcp_servers.whale]\ncommand = \"w\"\n", []string{"mcp_servers", "whale"}, "command", "w"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := newTOMLDoc([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := d.set(c.table, c.key, c.value); err != nil {
				t.Fatal(err)
			}
			if string(d.bytes()) != c.want {
				t.Errorf("got:\n%q\nwant:\n%q", d.bytes(), c.want)
			}
		})
	}
	// Forms setup does not rewrite.
	for _, src := range []string{
		"features = { shell_tool = true }\n",
		"features.shell_tool = true\n",
		"[features]\nshell_tool = [\n  true,\n]\n",
	} {
		d, err := newTOMLDoc([]byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if _, _, _, err := d.set([]string{"features"}, "shell_tool", false); err == nil || !strings.Contains(err.Error(), "by hand") {
			t.Errorf("%q: %v, want a refusal", src, err)
		}
		if string(d.bytes()) != src {
			t.Errorf("%q became %q after a refusal", src, d.bytes())
		}
	}
}
