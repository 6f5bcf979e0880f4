package toolbridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// probeSpec exercises every schema shape that repairs look at.
var probeSpec = Spec{
	Name: "probe",
	InputSchema: Object([]string{"file_path"}, map[string]*Schema{
		"file_path": PathStr("a path"),
		"label":     Str("a plain string"),
		"paths":     Arr("paths", PathStr("")),
		"numbers":   Arr("numbers", Int("", 0)),
		"all":       Bool("flag"),
		"limit":     Int("count", 1),
		"ratio":     &Schema{Type: "number"},
		"mode":      Enum("mode", "a", "b"),
		"edits": Arr("steps", Object([]string{"search"}, map[string]*Schema{
			"search": Str(""),
			"all":    Bool(""),
		})),
	}),
}

func TestRepairs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		want    string // repaired input, as compact JSON
		repairs []string
	}{
		{"nothing to repair", `{"file_path":"a.go","limit":3}`, `{"file_path":"a.go","limit":3}`, nil},
		{"stringified array", `{"file_path":"a","numbers":"[1, 2]"}`, `{"file_path":"a","numbers":[1,2]}`, []string{RepairStringifiedArray}},
		{"stringified array of strings", `{"file_path":"a","paths":"[\"x\",\"y\"]"}`, `{"file_path":"a","paths":["x","y"]}`, []string{RepairStringifiedArray}},
		{"bare string to array", `{"file_path":"a","paths":"x.go"}`, `{"file_path":"a","paths":["x.go"]}`, []string{RepairBareStringToArray}},
		{"null optional omitted", `{"file_path":"a","limit":null,"mode":null}`, `{"file_path":"a"}`, []string{RepairNullOptionalOmitted}},
		{"boolean string", `{"file_path":"a","all":"true"}`, `{"file_path":"a","all":true}`, []string{RepairSemanticBooleanString}},
		{"boolean string, case and space", `{"file_path":"a","all":" False "}`, `{"file_path":"a","all":false}`, []string{RepairSemanticBooleanString}},
		{"number string", `{"file_path":"a","limit":"42"}`, `{"file_path":"a","limit":42}`, []string{RepairNumericString}},
		{"number string with spaces", `{"file_path":"a","limit":" 5 "}`, `{"file_path":"a","limit":5}`, []string{RepairNumericString}},
		{"float string", `{"file_path":"a","ratio":"0.5"}`, `{"file_path":"a","ratio":0.5}`, []string{RepairNumericString}},
		{"number strings in an array", `{"file_path":"a","numbers":["1","2"]}`, `{"file_path":"a","numbers":[1,2]}`, []string{RepairNumericString}},
		{"markdown autolink", `{"file_path":"[README.md](http://README.md)"}`, `{"file_path":"README.md"}`, []string{RepairMarkdownAutolinkPath}},
		{"markdown self link", `{"file_path":"[src/a.go](src/a.go)"}`, `{"file_path":"src/a.go"}`, []string{RepairMarkdownAutolinkPath}},
		{"markdown link inside array", `{"file_path":"a","paths":["[b.go](https://b.go)"]}`, `{"file_path":"a","paths":["b.go"]}`, []string{RepairMarkdownAutolinkPath}},
		{"nested array items", `{"file_path":"a","edits":[{"search":"x","all":"true"}]}`, `{"file_path":"a","edits":[{"all":true,"search":"x"}]}`, []string{RepairSemanticBooleanString}},
		{"several kinds at once", `{"file_path":"[a](a)","all":"false","limit":"7","paths":"p"}`, `{"all":false,"file_path":"a","limit":7,"paths":["p"]}`, []string{RepairMarkdownAutolinkPath, RepairSemanticBooleanString, RepairNumericString, RepairBareStringToArray}},
		{"description field is dropped", `{"file_path":"a","description":"reading a"}`, `{"file_path":"a"}`, nil},
		// left alone:
		{"markdown link to another target stays", `{"file_path":"[docs](https://example.com/docs)"}`, `{"file_path":"[docs](https://example.com/docs)"}`, nil},
		{"markdown in a non-path field stays", `{"file_path":"a","label":"[a](a)"}`, `{"file_path":"a","label":"[a](a)"}`, nil},
		{"true in a string field stays", `{"file_path":"a","label":"true"}`, `{"file_path":"a","label":"true"}`, nil},
		{"number in a string field stays", `{"file_path":"42"}`, `{"file_path":"42"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, repairs, f := prepareInput(probeSpec, json.RawMessage(tc.in))
			if f != nil {
				t.Fatalf("prepareInput(%s) failed: %s", tc.in, f.Text)
			}
			if !jsonEqual(t, got, tc.want) {
				t.Errorf("prepareInput(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if diff := cmp.Diff(sortedCopy(tc.repairs), sortedCopy(repairs)); diff != "" {
				t.Errorf("prepareInput(%s) repairs (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestRepairsAreConservative: when the repaired input is still invalid, the
// original error comes back and no repair is reported.
func TestRepairsAreConservative(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		mentions []string
	}{
		{`{"file_path":"a","all":"yes"}`, []string{"all must be true or false", `string "yes"`}},
		{`{"file_path":"a","limit":"many"}`, []string{"limit must be a number"}},
		{`{"file_path":"a","numbers":"[1,"}`, []string{"numbers must be an array"}},
		{`{"file_path":"a","numbers":"x","all":"true"}`, []string{"numbers must be an array", "all must be true or false"}},
		{`{"file_path":null}`, []string{"file_path is required"}},
		{`{"file_path":"a","edits":"[{\"all\":true}]"}`, []string{"edits must be an array"}},
	} {
		_, repairs, f := prepareInput(probeSpec, json.RawMessage(tc.in))
		if f == nil {
			t.Errorf("prepareInput(%s) succeeded with repairs %v, want invalid_input", tc.in, repairs)
			continue
		}
		if f.Code != CodeInvalidInput || repairs != nil {
			t.Errorf("prepareInput(%s) = code %s repairs %v, want invalid_input and no repairs", tc.in, f.Code, repairs)
		}
		for _, m := range tc.mentions {
			if !strings.Contains(f.Text, m) {
				t.Errorf("prepareInput(%s) text %q does not mention %q", tc.in, f.Text, m)
			}
		}
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		mentions []string // empty: valid
	}{
		{`{"file_path":"a"}`, nil},
		{`{}`, []string{"file_path is required"}},
		{`[]`, []string{"input must be a JSON object"}},
		{`"a.go"`, []string{"input must be a JSON object"}},
		{`{"file_path":"a"`, []string{"not valid JSON"}},
		{`{"file_path":"a"} {"x":1}`, []string{"not valid JSON"}},
		{`{"file_path":3}`, []string{"file_path must be a string, got number 3"}},
		{`{"file_path":"a","limit":1.5}`, []string{"limit must be a whole number"}},
		{`{"file_path":"a","limit":0}`, []string{"limit must be at least 1"}},
		{`{"file_path":"a","mode":"c"}`, []string{`mode must be one of a, b, got "c"`}},
		{`{"file_path":"a","extra":1}`, []string{"extra is not a field of this tool"}},
		{`{"file_path":"a","edits":[{"search":"x","bogus":1}]}`, []string{"edits[0].bogus is not a field"}},
		{`{"file_path":"a","edits":[{}]}`, []string{"edits[0].search is required"}},
		{`{"file_path":"a","numbers":[1,"x"]}`, []string{"numbers[1] must be a number"}},
	} {
		_, _, f := prepareInput(probeSpec, json.RawMessage(tc.in))
		if len(tc.mentions) == 0 {
			if f != nil {
				t.Errorf("prepareInput(%s) = %s, want valid", tc.in, f.Text)
			}
			continue
		}
		if f == nil {
			t.Errorf("prepareInput(%s) is valid, want an error mentioning %q", tc.in, tc.mentions)
			continue
		}
		for _, m := range tc.mentions {
			if !strings.Contains(f.Text, m) {
				t.Errorf("prepareInput(%s) = %q, want it to mention %q", tc.in, f.Text, m)
			}
		}
		if !strings.Contains(f.Text, "Valid fields: file_path (string, required)") {
			t.Errorf("prepareInput(%s) = %q, want the list of valid fields", tc.in, f.Text)
		}
	}
}

func TestHints(t *testing.T) {
	t.Parallel()
	spec := func(name string, props ...string) Spec {
		m := map[string]*Schema{}
		for _, p := range props {
			m[p] = Str("")
		}
		return Spec{Name: name, InputSchema: Object(nil, m)}
	}
	for _, tc := range []struct {
		spec Spec
		in   string
		want string
	}{
		{spec("search_files", "pattern", "path"), `{"pattern":"*.go","include":"*.go"}`, "search_files has no include field: put the glob into pattern"},
		{spec("edit", "file_path", "search", "replace"), `{"file_path":"a","old_string":"x"}`, "edit takes the text to find in search"},
		{spec("read_file", "file_path", "offset", "limit"), `{"path":"a"}`, "read_file takes the path in file_path"},
		{spec("grep", "pattern", "include"), `{"pattern":"x","glob":"*.go"}`, "grep filters files with include"},
		{spec("list_dir", "path", "depth"), `{"pth":"a"}`, "Did you mean path instead of pth?"},
	} {
		_, _, f := prepareInput(tc.spec, json.RawMessage(tc.in))
		if f == nil || !strings.Contains(f.Text, tc.want) {
			t.Errorf("%s %s: got %v, want a hint containing %q", tc.spec.Name, tc.in, f, tc.want)
		}
	}
}

func TestEnvelopeTruncation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text      string
		limit     int
		truncated bool
		keep      string
	}{
		{"short", 100, false, "short"},
		{strings.Repeat("a", 100), 100, false, strings.Repeat("a", 100)},
		{strings.Repeat("a", 101), 100, true, strings.Repeat("a", 100)},
		{strings.Repeat("é", 60), 101, true, strings.Repeat("é", 50)}, // never cut inside a character
		{"anything", 0, false, "anything"},
	} {
		got, truncated := truncateText(tc.text, tc.limit, "use offset")
		if truncated != tc.truncated || !strings.HasPrefix(got, tc.keep) {
			t.Errorf("truncateText(%d bytes, %d) = %q, %v", len(tc.text), tc.limit, got, truncated)
		}
		if truncated {
			cut := len(tc.text) - len(tc.keep)
			if want := "[output truncated: " + itoa(cut) + " of " + itoa(len(tc.text)) + " bytes not shown; use offset]"; !strings.HasSuffix(got, want) {
				t.Errorf("truncateText marker = %q, want suffix %q", got, want)
			}
		}
	}
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	ok := Define(Spec{Name: "echo", InputSchema: Object([]string{"text"}, map[string]*Schema{"text": Str("")})},
		func(ctx context.Context, in struct{ Text string }) (Result, error) {
			return Result{Text: strings.Repeat(in.Text, 10)}, nil
		})
	boom := Define(Spec{Name: "boom", InputSchema: Object(nil, nil)}, func(ctx context.Context, in struct{}) (Result, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is the point: a tool that panics.
		m["x"]++ // nil map write: a panic inside a tool
		return Result{}, nil
	})
	fail := Define(Spec{Name: "fail", InputSchema: Object(nil, nil)}, func(ctx context.Context, in struct{}) (Result, error) {
		return Result{}, Fail(CodeNotFound, "nothing here; try elsewhere")
	})
	wait := Define(Spec{Name: "wait", InputSchema: Object(nil, nil)}, func(ctx context.Context, in struct{}) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	})
	r := NewRegistry(nil)
	if err := r.Register(ok, boom, fail, wait); err != nil {
		t.Fatal(err)
	}
	short := NewRegistry(nil)
	if err := short.Register(ok); err != nil {
		t.Fatal(err)
	}
	short.SetTextLimit(25)
	if env := short.Dispatch(context.Background(), Call{Name: "echo", Input: json.RawMessage(`{"text":"abc"}`)}); !env.Truncated || !strings.Contains(env.Text, "output truncated: 5 of 30 bytes") {
		t.Errorf("Dispatch with a 25-byte limit = %+v, want the text cut with a marker", env)
	}
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		call      Call
		ctx       context.Context
		code      string
		truncated bool
		mention   string
	}{
		{Call{Name: "echo", Input: json.RawMessage(`{"text":"ab"}`)}, ctx, CodeOK, false, "abab"},
		{Call{Name: "echo", Input: json.RawMessage(`{}`)}, ctx, CodeInvalidInput, false, "text is required"},
		{Call{Name: "ecko", Input: json.RawMessage(`{}`)}, ctx, CodeUnknownTool, false, `did you mean "echo"?`},
		{Call{Name: "boom"}, ctx, CodeInternal, false, "internal error"},
		{Call{Name: "fail"}, ctx, CodeNotFound, false, "nothing here"},
		{Call{Name: "wait"}, canceled, CodeCanceled, false, "canceled"},
	} {
		env := r.Dispatch(tc.ctx, tc.call)
		if env.Code != tc.code || env.OK != (tc.code == CodeOK) || env.Truncated != tc.truncated || !strings.Contains(env.Text, tc.mention) {
			t.Errorf("Dispatch(%s %s) = %+v; want code %s, truncated %v, text mentioning %q", tc.call.Name, tc.call.Input, env, tc.code, tc.truncated, tc.mention)
		}
	}
}

func TestSpecsAreFrozen(t *testing.T) {
	t.Parallel()
	schema := Object([]string{"a"}, map[string]*Schema{"a": Str("first")})
	r := NewRegistry(nil)
	if err := r.Register([]Tool{{Spec: Spec{Name: "t", InputSchema: schema}, Run: nil}}...); err != nil {
		t.Fatal(err)
	}
	schema.Properties["a"].Description = "changed by the caller"
	specs := r.Specs()
	specs[0].InputSchema.Properties["b"] = Str("added by a client")
	again := r.Specs()[0].InputSchema
	if again.Properties["a"].Description != "first" || again.Properties["b"] != nil {
		t.Fatalf("a registered spec changed after registration: %+v", again.Properties)
	}
	if err := NewRegistry(nil).Register([]Tool{{Spec: Spec{Name: "t", InputSchema: schema}}, {Spec: Spec{Name: "t", InputSchema: schema}}}...); err == nil {
		t.Fatalf("a duplicate tool name was accepted")
	}
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("output %s is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("want %s is not JSON: %v", want, err)
	}
	return cmp.Equal(a, b)
}

func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonNumber(n)) }

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzPrepareInput: any input either fails with invalid_input or yields
// valid JSON that validates against the schema; it never panics.
func FuzzPrepareInput(f *testing.F) {
	for _, s := range []string{`{"file_path":"a"}`, `{"file_path":"[a](a)","all":"true","numbers":"[1]"}`, `{"edits":[{"search":null}]}`, `[`, `null`, `{"limit":"1e3"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, fail := prepareInput(probeSpec, in)
		if fail != nil {
			if fail.Code != CodeInvalidInput {
				t.Fatalf("code %s", fail.Code)
			}
			return
		}
		v, err := decodeJSON(out)
		if err != nil {
			t.Fatalf("repaired input %s is not JSON: %v", out, err)
		}
		if problems := validate(probeSpec.InputSchema, v, ""); len(problems) > 0 {
			t.Fatalf("repaired input %s does not validate: %v", out, problems)
		}
	})
}

func TestBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, want int }{{0, 5}, {-3, 5}, {1, 1}, {7, 7}, {20, 10}} {
		if got := Bounded(tc.n, 5, 10); got != tc.want {
			t.Errorf("bounded(%d, 5, 10) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
