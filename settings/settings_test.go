package settings

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/whale-ls/whale-ls/execboundary"
	"github.com/whale-ls/whale-ls/mcphost"
	"github.com/whale-ls/whale-ls/sandbox"
	"github.com/whale-ls/whale-ls/terminal"
)

// settingsStructKeys walks Settings by its json tags and returns every
// dotted key with the JSON-schema types its Go field can hold.
func settingsStructKeys(t *testing.T) map[string][]string {
	t.Helper()
	rawType := reflect.TypeOf(json.RawMessage(nil))
	tagName := func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			t.Fatalf("Settings field %s has no json name", f.Name)
		}
		return name
	}
	keys := map[string][]string{}
	st := reflect.TypeOf(Settings{})
	for i := range st.NumField() {
		sec := st.Field(i)
		if sec.Type.Kind() != reflect.Struct {
			t.Fatalf("Settings.%s is not a section struct; settings are section.field", sec.Name)
		}
		for j := range sec.Type.NumField() {
			f := sec.Type.Field(j)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			var types []string
			switch {
			case ft == rawType:
				types = []string{"array", "object"}
			case ft.Kind() == reflect.String:
				types = []string{"string"}
			case ft.Kind() == reflect.Int:
				types = []string{"integer"}
			case ft.Kind() == reflect.Bool:
				types = []string{"boolean"}
			case ft.Kind() == reflect.Slice:
				types = []string{"array"}
			default:
				t.Fatalf("Settings.%s.%s has type %s, which this test does not map to a schema type", sec.Name, f.Name, ft)
			}
			keys[tagName(sec)+"."+tagName(f)] = types
		}
	}
	return keys
}

func TestSettingsTableMatchesSettingsStruct(t *testing.T) {
	fields := settingsStructKeys(t)
	seen := map[string]bool{}
	for _, s := range Table {
		if seen[s.Key] {
			t.Errorf("SettingsTable lists %s twice", s.Key)
		}
		seen[s.Key] = true
		types, ok := fields[s.Key]
		if !ok {
			t.Errorf("SettingsTable has %s, but Settings has no such field; remove the entry or add the field", s.Key)
			continue
		}
		if !strings.Contains(strings.Join(types, " "), s.Schema.Type) {
			t.Errorf("SettingsTable says %s is %q, but its Settings field holds %v", s.Key, s.Schema.Type, types)
		}
	}
	for key := range fields {
		if !seen[key] {
			t.Errorf("Settings has %s, but SettingsTable has no entry for it; add one", key)
		}
	}
	if len(knownSettings) != len(fields) {
		t.Errorf("knownSettings has %d keys, Settings %d", len(knownSettings), len(fields))
	}
}

// checkSchema checks the parts of a schema editors rely on.
func checkSchema(t *testing.T, where string, s *Schema) {
	t.Helper()
	if s.Type == "" {
		t.Errorf("%s has no type", where)
	}
	if len(s.EnumDescriptions) > 0 && len(s.EnumDescriptions) != len(s.Enum) {
		t.Errorf("%s has %d enum values but %d enumDescriptions", where, len(s.Enum), len(s.EnumDescriptions))
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil {
			t.Errorf("%s requires %q, which is not among its properties", where, r)
		}
	}
	if s.Items != nil {
		checkSchema(t, where+".items", s.Items)
	}
	for name, p := range s.Properties {
		checkSchema(t, where+"."+name, p)
	}
	switch ap := s.AdditionalProperties.(type) {
	case nil, bool:
	case *Schema:
		checkSchema(t, where+".additionalProperties", ap)
	default:
		t.Errorf("%s.additionalProperties is a %T; use false or a *SettingSchema", where, ap)
	}
}

func TestSettingsTableEntriesAreWellFormed(t *testing.T) {
	for _, s := range Table {
		if strings.Count(s.Key, ".") != 1 {
			t.Errorf("key %q is not section.field", s.Key)
		}
		d := s.Schema.MarkdownDescription
		if len(d) < 20 || !strings.HasSuffix(d, ".") {
			t.Errorf("%s: description %q is not a sentence", s.Key, d)
		}
		checkSchema(t, s.Key, &s.Schema)
		if s.Schema.Enum != nil && s.Schema.Default != nil {
			if def, _ := s.Schema.Default.(string); !strings.Contains(" "+strings.Join(s.Schema.Enum, " ")+" ", " "+def+" ") {
				t.Errorf("%s: default %v is not one of %v", s.Key, s.Schema.Default, s.Schema.Enum)
			}
		}
		if s.Schema.Default == nil {
			continue
		}
		// The default must be a value Parse accepts for the key.
		raw, err := json.Marshal(map[string]any{s.Key: s.Schema.Default})
		if err != nil {
			t.Fatal(err)
		}
		_, unknown, err := Parse(raw)
		if err != nil || len(unknown) > 0 {
			t.Errorf("ParseSettings(%s) = unknown %v, err %v; want the table's default accepted", raw, unknown, err)
		}
	}
}

// TestSettingsTableObjectSchemasMatchTheirDecoders checks that the object
// schemas list exactly the fields their decoders accept: the decoders refuse
// unknown fields and the schemas say additionalProperties: false.
func TestSettingsTableObjectSchemasMatchTheirDecoders(t *testing.T) {
	jsonNames := func(v any) []string {
		var names []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
		sort.Strings(names)
		return names
	}
	propNames := func(s *Schema) []string {
		var names []string
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		return names
	}
	mcpValues, _ := settingSpec(t, "mcp.servers").Schema.AdditionalProperties.(*Schema)
	if mcpValues == nil {
		t.Fatal("mcp.servers has no schema for its values")
	}
	for _, tc := range []struct {
		where  string
		schema *Schema
		struc  any
	}{
		{"execBoundary.rules items", settingSpec(t, "execBoundary.rules").Schema.Items, execboundary.Rule{}},
		{"web.search", ptr(settingSpec(t, "web.search").Schema), WebSearch{}},
		{"mcp.servers values", mcpValues, mcphost.ServerConfig{}},
	} {
		if diff := cmp.Diff(jsonNames(tc.struc), propNames(tc.schema)); diff != "" {
			t.Errorf("%s: schema properties differ from %T's json fields (-struct +schema):\n%s", tc.where, tc.struc, diff)
		}
		if tc.schema.AdditionalProperties != false {
			t.Errorf("%s: additionalProperties = %v, want false (the decoder refuses unknown fields)", tc.where, tc.schema.AdditionalProperties)
		}
	}
}

func settingSpec(t *testing.T, key string) Spec {
	t.Helper()
	for _, s := range Table {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("SettingsTable has no %s", key)
	return Spec{}
}

// TestSettingsTableDefaultsAreTheCodes checks that what the table calls the
// default is what the code does when the setting is not given.
func TestSettingsTableDefaultsAreTheCodes(t *testing.T) {
	table := terminal.NewTable(terminal.Options{Settings: Settings{}.TerminalSettings()})
	defer table.Close()
	got := table.Settings()
	if want := settingSpec(t, "shell.yieldTimeMs").Schema.Default; got.YieldTimeMs != want {
		t.Errorf("unset shell.yieldTimeMs = %d, table says %v", got.YieldTimeMs, want)
	}
	if want := settingSpec(t, "shell.outputLimitBytes").Schema.Default; got.OutputLimitBytes != want {
		t.Errorf("unset shell.outputLimitBytes = %d, table says %v", got.OutputLimitBytes, want)
	}
	wantShell := "/bin/sh"
	if fi, err := os.Stat("/bin/bash"); err == nil && !fi.IsDir() {
		wantShell = "/bin/bash"
	}
	if got.Shell != wantShell || !strings.Contains(settingSpec(t, "shell.program").DefaultText(), wantShell) {
		t.Errorf("unset shell.program = %q; table says %s", got.Shell, settingSpec(t, "shell.program").DefaultText())
	}

	gate := execboundary.NewGate(execboundary.Options{})
	if err := gate.Configure("", nil, 0); err != nil {
		t.Fatal(err)
	}
	if want := settingSpec(t, "execBoundary.mode").Schema.Default; string(gate.Mode()) != want {
		t.Errorf("unset execBoundary.mode = %q, table says %v", gate.Mode(), want)
	}
	rules, err := execboundary.ParseRules(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(settingSpec(t, "execBoundary.rules").Schema.Default, rules); diff != "" {
		t.Errorf("unset execBoundary.rules differ from the table's default (-table +code):\n%s", diff)
	}

	if mode, err := sandbox.ParseMode(Settings{}.Shell.Sandbox); err != nil || string(mode) != settingSpec(t, "shell.sandbox").Schema.Default {
		t.Errorf("unset shell.sandbox = %q (%v), table says %v", mode, err, settingSpec(t, "shell.sandbox").Schema.Default)
	}
	if network, err := sandbox.ParseNetwork(Settings{}.Shell.Network); err != nil || string(network) != settingSpec(t, "shell.network").Schema.Default {
		t.Errorf("unset shell.network = %q (%v), table says %v", network, err, settingSpec(t, "shell.network").Schema.Default)
	}

	if want := settingSpec(t, "edits.saveAfterApply").Schema.Default; (Settings{}).SaveAfterApply() != want {
		t.Errorf("unset edits.saveAfterApply = %v, table says %v", (Settings{}).SaveAfterApply(), want)
	}
	if want := settingSpec(t, "search.index").Schema.Default; (Settings{}).SearchIndex() != want {
		t.Errorf("unset search.index = %v, table says %v", (Settings{}).SearchIndex(), want)
	}
	if want := settingSpec(t, "web.allowPrivate").Schema.Default; (Settings{}).Web.AllowPrivate != want {
		t.Errorf("unset web.allowPrivate = %v, table says %v", (Settings{}).Web.AllowPrivate, want)
	}
}

func TestParseSettingsKnowsEveryTableKey(t *testing.T) {
	for _, s := range Table {
		sec, field, _ := strings.Cut(s.Key, ".")
		for _, raw := range []string{
			`{"` + s.Key + `": null}`,
			`{"` + sec + `": {"` + field + `": null}}`,
			`{"whale": {"` + s.Key + `": null}}`,
		} {
			if _, unknown, err := Parse([]byte(raw)); err != nil || len(unknown) > 0 {
				t.Errorf("ParseSettings(%s) = unknown %v, err %v; want it known", raw, unknown, err)
			}
		}
	}
	_, unknown, err := Parse([]byte(`{"shell.colour": 1, "nope": {"x": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"nope.x", "shell.colour"}, unknown); diff != "" {
		t.Errorf("unknown keys (-want +got):\n%s", diff)
	}
}

func TestSettingSpecDefaultText(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Schema: Schema{Default: 15000}}, "15000"},
		{Spec{Schema: Schema{Default: true}}, "true"},
		{Spec{Schema: Schema{Default: false}}, "false"},
		{Spec{Schema: Schema{Default: "enforce"}}, "`enforce`"},
		{Spec{Schema: Schema{Default: []string{}}}, "none"},
		{Spec{Schema: Schema{Default: map[string]any{}}}, "none"},
		{Spec{}, "none"},
		{Spec{DefaultShown: "the default set", Schema: Schema{Default: []int{1}}}, "the default set"},
	} {
		if got := tc.spec.DefaultText(); got != tc.want {
			t.Errorf("DefaultText(%v) = %q, want %q", tc.spec.Schema.Default, got, tc.want)
		}
	}
}

// TestSettingsThatRunOrWidenAreUserOnly: a setting that starts a program,
// relaxes a guard or sends a secret must not be settable from a workspace's
// settings file, which comes with whatever repository the user opened.
func TestSettingsThatRunOrWidenAreUserOnly(t *testing.T) {
	userOnly := map[string]string{
		"shell.program":       ScopeMachine, // the program every command runs in
		"execBoundary.mode":   ScopeUser,    // "off" drops every exec check
		"execBoundary.rules":  ScopeUser,    // [] lets everything run
		"read.approvedPaths":  ScopeMachine, // reads outside the workspace
		"skills.paths":        ScopeMachine, // makes more folders readable
		"web.allowPrivate":    ScopeUser,    // reaches loopback and metadata addresses
		"web.search":          ScopeUser,    // where the API key is sent
		"mcp.servers":         ScopeMachine, // programs started by the server
		"edits.review":        ScopeUser,    // a repository must not turn the user's review off
		"shell.sandbox":       ScopeUser,    // "off" lets tasks write anywhere
		"shell.network":       ScopeUser,    // a repository must not turn the network back on
		"shell.writableRoots": ScopeMachine, // more folders tasks may write in
		"shell.gitWritable":   ScopeMachine, // lets tasks plant git hooks
	}
	for _, s := range Table {
		if got, want := s.Schema.Scope, userOnly[s.Key]; got != want {
			t.Errorf("%s: scope = %q, want %q", s.Key, got, want)
		}
	}
}
