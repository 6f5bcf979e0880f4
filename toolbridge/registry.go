package toolbridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
)

// Call is one tool invocation as a front end received it.
type Call struct {
	Name  string
	Input json.RawMessage
	// ID names the call in the journal of changes and in logs; Dispatch
	// makes one when it is empty.
	ID string
	// ByUser marks a call the user made from the editor (a revert they
	// clicked), not the model: what it changes is not put up for review.
	ByUser bool
	// Agent names, for a person, the agent program whose model made the
	// call ("Gemini CLI"), when the front end knows it: the journal's
	// titles of its changes start with it.
	Agent string
}

// callKey holds the running call's tool name and ID in its context.
type callKey struct{}

type callInfo struct {
	tool, id, agent string
	byUser          bool
}

// CallID returns the ID of the call whose context this is ("" outside
// Dispatch), for tools that record what a call did.
func CallID(ctx context.Context) string {
	c, _ := ctx.Value(callKey{}).(callInfo)
	return c.id
}

// CallByUser reports whether the running call is the user's own action
// (Call.ByUser).
func CallByUser(ctx context.Context) bool {
	c, _ := ctx.Value(callKey{}).(callInfo)
	return c.byUser
}

// CallTool returns the name of the tool the running call is for ("" outside
// Dispatch): the tool's own name when the call used an alias.
func CallTool(ctx context.Context) string {
	c, _ := ctx.Value(callKey{}).(callInfo)
	return c.tool
}

// CallAgent returns the agent that made the running call (Call.Agent), ""
// when unknown.
func CallAgent(ctx context.Context) string {
	c, _ := ctx.Value(callKey{}).(callInfo)
	return c.agent
}

// newCallID is a random 12-hex-digit id.
func newCallID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Registry holds the frozen catalog of one session and dispatches calls.
// It is safe for concurrent use once it serves: Register, which takes no
// lock, runs before the first Dispatch, and after it the built-in tools
// never change; tools added later with Add only join (registry_dynamic.go).
type Registry struct {
	tools     map[string]Tool
	order     []string
	aliases   map[string]string // alias → name of a built-in tool (Tool.Aliases)
	textLimit int
	log       *slog.Logger
	dynamic   dynamicTools // tools added after start (registry_dynamic.go)
	// finders are the FindDeferred functions of the tools given to
	// NewRegistry, asked in catalog order about names not in the registry.
	finders []func(ctx context.Context, name string) (Tool, bool, error)
}

// NewRegistry returns a registry with no tools; Register adds the built-in
// ones. log may be nil.
func NewRegistry(log *slog.Logger) *Registry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Registry{tools: map[string]Tool{}, aliases: map[string]string{}, textLimit: DefaultTextLimit, log: log}
}

// Register freezes the specs of the built-in tools, in catalog order. It is
// called before the registry serves calls (tools that join later use Add).
// A duplicate name or a tool without an object schema is a programming
// error: it is returned and nothing is registered.
func (r *Registry) Register(tools ...Tool) error {
	seen := map[string]bool{}
	for _, t := range tools {
		if _, dup := r.tools[t.Spec.Name]; dup || seen[t.Spec.Name] {
			return fmt.Errorf("tool %q registered twice", t.Spec.Name)
		}
		seen[t.Spec.Name] = true
		if t.Spec.InputSchema == nil || t.Spec.InputSchema.Type != "object" {
			return fmt.Errorf("tool %q has no object input schema", t.Spec.Name)
		}
	}
	for _, t := range tools {
		t.Spec.InputSchema = t.Spec.InputSchema.Clone()
		r.tools[t.Spec.Name] = t
		r.order = append(r.order, t.Spec.Name)
		for _, alias := range t.Aliases {
			if _, taken := r.aliases[alias]; !taken {
				r.aliases[alias] = t.Spec.Name
			}
		}
		if t.FindDeferred != nil {
			r.finders = append(r.finders, t.FindDeferred)
		}
	}
	return nil
}

// SetTextLimit changes how many bytes of text an Envelope carries before it
// is cut (DefaultTextLimit unless set); n <= 0 means no limit.
func (r *Registry) SetTextLimit(n int) { r.textLimit = n }

// Specs returns the frozen specs in catalog order. The schemas are copies:
// changing them does not change the registry.
func (r *Registry) Specs() []Spec {
	out := make([]Spec, 0, len(r.order))
	for _, name := range r.order {
		s := r.tools[name].Spec
		s.InputSchema = s.InputSchema.Clone()
		out = append(out, s)
	}
	return append(out, r.addedSpecs()...)
}

// Names returns the tool names in catalog order.
func (r *Registry) Names() []string {
	return append(append([]string(nil), r.order...), r.addedNames()...)
}

// Dispatch finds the tool, repairs and validates the input, runs the tool
// and normalises the outcome into an Envelope. A name the registry does not
// know yet but a tool's FindDeferred owns is activated first (added as Add
// does, listeners told) and then run. It never panics.
func (r *Registry) Dispatch(ctx context.Context, call Call) (env Envelope) {
	var repairs []string
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("tool panicked", "tool", call.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			env = r.envelope(Result{}, Fail(CodeInternal, "%s failed with an internal error (%v); this is a whale-ls bug — try again, or use another tool for this step", call.Name, p), repairs)
		}
	}()
	if call.ID == "" {
		call.ID = newCallID()
	}
	tool, ok := r.lookup(call.Name)
	if !ok {
		var failed *Envelope
		if tool, failed = r.activate(ctx, call.Name); failed != nil {
			return *failed
		}
	}
	ctx = context.WithValue(ctx, callKey{}, callInfo{tool: tool.Spec.Name, id: call.ID, agent: call.Agent, byUser: call.ByUser})
	var failure *Failure
	var input json.RawMessage
	if tool.PrepareInput != nil {
		input, repairs, failure = tool.PrepareInput(call.Input)
	} else {
		input, repairs, failure = prepareInput(tool.Spec, call.Input)
	}
	if failure != nil {
		return r.envelope(Result{}, failure, nil)
	}
	res, err := tool.Run(ctx, input)
	if err != nil && ctx.Err() != nil && !isFailure(err) {
		err = Fail(CodeCanceled, "%s was canceled before it finished; call it again if the result is still needed", call.Name)
	}
	return r.envelope(res, err, append(repairs, res.Repairs...))
}

// activate asks the finders about a name the registry does not know. The
// first that owns it decides: its tool is added (when two calls activate
// the same tool at once, the first Add wins and both run that tool) or its
// failure is the answer. No owner: the usual unknown_tool.
func (r *Registry) activate(ctx context.Context, name string) (Tool, *Envelope) {
	fail := func(err error) (Tool, *Envelope) {
		if ctx.Err() != nil && !isFailure(err) {
			err = Fail(CodeCanceled, "activating %s was canceled before it finished; call it again if the result is still needed", name)
		}
		env := r.envelope(Result{}, err, nil)
		return Tool{}, &env
	}
	for _, find := range r.finders {
		tool, ok, err := find(ctx, name)
		if err != nil {
			return fail(err)
		}
		if !ok {
			continue
		}
		if tool.Spec.Name != name && !contains(tool.Aliases, name) {
			return fail(fmt.Errorf("activating %q found a tool named %q", name, tool.Spec.Name))
		}
		if _, err := r.Add(tool); err != nil {
			return fail(err)
		}
		if added, ok := r.lookup(name); ok {
			return added, nil
		}
		return fail(fmt.Errorf("tool %q is not dispatchable after it was added", name))
	}
	env := r.unknownTool(name)
	return Tool{}, &env
}

func isFailure(err error) bool {
	var f *Failure
	return errors.As(err, &f)
}

// envelope builds the Envelope for a run's outcome.
func (r *Registry) envelope(res Result, err error, repairs []string) Envelope {
	env := Envelope{OK: true, Code: CodeOK, Text: res.Text, Data: res.Data, Media: res.Media, Repairs: repairs}
	if err != nil {
		var f *Failure
		if !errors.As(err, &f) {
			r.log.Error("tool error", "err", err)
			f = Fail(CodeInternal, "internal error: %v; try again, and report it if it keeps happening", err)
		}
		env = Envelope{OK: false, Code: f.Code, Text: f.Text, Data: f.Data, Repairs: repairs}
	}
	env.Text, env.Truncated = truncateText(env.Text, r.textLimit, res.MoreHint)
	return env
}

// unknownTool names the closest tool names so the model can retry at once.
func (r *Registry) unknownTool(name string) Envelope {
	names := r.Names()
	close := Closest(name, names, 3)
	text := fmt.Sprintf("there is no tool named %s", quoteInput(name))
	if len(close) > 0 {
		text += fmt.Sprintf("; did you mean %s? ", strings.Join(QuoteAll(close), " or "))
	} else {
		text += "; "
	}
	text += "the tools are: " + strings.Join(names, ", ")
	return Envelope{OK: false, Code: CodeUnknownTool, Text: text, Data: map[string]any{"closest": close}}
}

// QuoteAll quotes each of ss as Go does (%q), for "did you mean" lists in
// texts a model reads.
func QuoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// Closest returns up to n candidates nearest to name: substring matches and
// small edit distances first. The edit distance is computed only where it
// can be small enough (it is at least the difference in length), so a huge
// name costs a substring search per candidate, not length × length.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	low := strings.ToLower(name)
	var list []scored
	for _, c := range candidates {
		limit := max(2, len(c)/2)
		d := limit + 1
		if abs(len(low)-len(c)) <= limit {
			d = editDistance(low, strings.ToLower(c))
		}
		if low != "" && (strings.Contains(c, low) || strings.Contains(low, c)) {
			d = min(d, 2)
		}
		if d <= limit {
			list = append(list, scored{c, d})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].d < list[j].d })
	var out []string
	for i := 0; i < len(list) && i < n; i++ {
		out = append(out, list[i].s)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance between a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Clone deep-copies a schema (nil stays nil), so that frozen specs cannot
// be changed from outside and a schema can be changed without touching the
// one it came from.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = v.Clone()
		}
	}
	c.Required = append([]string(nil), s.Required...)
	c.Enum = append([]string(nil), s.Enum...)
	c.Items = s.Items.Clone()
	c.Extra = s.Extra.clone()
	if s.AdditionalProperties != nil {
		b := *s.AdditionalProperties
		c.AdditionalProperties = &b
	}
	if s.Minimum != nil {
		m := *s.Minimum
		c.Minimum = &m
	}
	if s.Maximum != nil {
		m := *s.Maximum
		c.Maximum = &m
	}
	return &c
}

// Prepare is what Dispatch does before it runs a tool, without running it:
// it finds the tool by name or alias (a deferred tool not yet activated is
// not found) and repairs and validates the input. It returns the tool's
// spec, the input the tool would run on and the repairs made, or a
// *Failure: the unknown_tool or invalid_input envelope's text. Previews use
// it, so that what they show is planned on the same input as the call.
func (r *Registry) Prepare(name string, input json.RawMessage) (Spec, json.RawMessage, []string, error) {
	tool, ok := r.lookup(name)
	if !ok {
		env := r.unknownTool(name)
		return Spec{}, nil, nil, &Failure{Code: env.Code, Text: env.Text}
	}
	var failure *Failure
	var repairs []string
	if tool.PrepareInput != nil {
		input, repairs, failure = tool.PrepareInput(input)
	} else {
		input, repairs, failure = prepareInput(tool.Spec, input)
	}
	if failure != nil {
		return tool.Spec, nil, nil, failure
	}
	return tool.Spec, input, repairs, nil
}
