package toolbridge

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func echoTool(name string) Tool {
	return Define(Spec{Name: name, Description: "echo", Group: GroupMCP, InputSchema: Object([]string{"text"}, map[string]*Schema{"text": Str("text")})},
		func(ctx context.Context, in struct {
			Text string `json:"text"`
		}) (Result, error) {
			return Result{Text: name + ": " + in.Text}, nil
		})
}

func TestRegistryAddFreezesAndNotifies(t *testing.T) {
	t.Parallel()
	r := NewRegistry(nil)
	if err := r.Register(echoTool("base")); err != nil {
		t.Fatal(err)
	}
	var got []string
	r.OnToolsAdded(func(added []Spec) {
		for _, s := range added {
			got = append(got, s.Name)
		}
	})
	late := echoTool("late")
	added, err := r.Add(late, echoTool("base"))
	if err != nil || len(added) != 1 || added[0].Name != "late" {
		t.Fatalf("Add = %v, %v; want only late added (base exists)", added, err)
	}
	late.Spec.InputSchema.Properties["text"].Description = "changed after Add"
	late.Spec.Description = "changed"
	if _, err := r.Add(late); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "late" {
		t.Errorf("listener saw %v, want [late] once", got)
	}
	if names := strings.Join(r.Names(), ","); names != "base,late" {
		t.Errorf("Names = %s", names)
	}
	specs := r.Specs()
	if specs[1].Description != "echo" || specs[1].InputSchema.Properties["text"].Description != "text" {
		t.Errorf("added spec changed after Add: %+v", specs[1])
	}
	env := r.Dispatch(context.Background(), Call{Name: "late", Input: json.RawMessage(`{"text":"hi"}`)})
	if env.Text != "late: hi" {
		t.Errorf("Dispatch(late) = %+v", env)
	}
	if env := r.Dispatch(context.Background(), Call{Name: "lat"}); !strings.Contains(env.Text, `did you mean "late"`) {
		t.Errorf("unknown tool text = %q, want added tools among the suggestions", env.Text)
	}
	if _, err := r.Add(Tool{Spec: Spec{Name: "bad"}}); err == nil {
		t.Error("Add of a tool without a schema succeeded")
	}
}

func TestRegistryAddWhileDispatching(t *testing.T) {
	t.Parallel()
	r := NewRegistry(nil)
	_ = r.Register(echoTool("base"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r.Add(echoTool("t" + string(rune('a'+i))))
		}()
		go func() {
			defer wg.Done()
			r.Dispatch(context.Background(), Call{Name: "base", Input: json.RawMessage(`{"text":"x"}`)})
			r.Specs()
		}()
	}
	wg.Wait()
	if n := len(r.Names()); n != 9 {
		t.Errorf("%d tools, want 9", n)
	}
}

// TestDispatchActivatesDeferredTools: Dispatch asks FindDeferred about
// names it does not know, adds what it finds and runs it; a finder's
// failure is the answer; names no finder owns get the usual unknown_tool.
func TestDispatchActivatesDeferredTools(t *testing.T) {
	t.Parallel()
	finder := echoTool("finder")
	var asked []string
	var mu sync.Mutex
	finder.FindDeferred = func(ctx context.Context, name string) (Tool, bool, error) {
		mu.Lock()
		asked = append(asked, name)
		mu.Unlock()
		switch name {
		case "late":
			return echoTool("late"), true, nil
		case "misnamed":
			return echoTool("other"), true, nil
		case "refused":
			return Tool{}, false, Fail(CodeUnknownTool, "no refused here; use tool_search")
		case "slow":
			<-ctx.Done()
			return Tool{}, false, ctx.Err()
		case "boom":
			panic("finder broke")
		}
		return Tool{}, false, nil
	}
	r := NewRegistry(nil)
	if err := r.Register(finder); err != nil {
		t.Fatal(err)
	}
	var added []string
	r.OnToolsAdded(func(specs []Spec) {
		for _, s := range specs {
			added = append(added, s.Name)
		}
	})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx        context.Context
		name, code string
		text       string
	}{
		{context.Background(), "late", CodeOK, "late: hi"},
		{context.Background(), "late", CodeOK, "late: hi"}, // now registered: not asked again
		{context.Background(), "misnamed", CodeInternal, `found a tool named "other"`},
		{context.Background(), "refused", CodeUnknownTool, "no refused here; use tool_search"},
		{context.Background(), "nothing", CodeUnknownTool, `there is no tool named "nothing"`},
		{canceled, "slow", CodeCanceled, "activating slow was canceled"},
		{context.Background(), "boom", CodeInternal, "finder broke"},
	} {
		env := r.Dispatch(tc.ctx, Call{Name: tc.name, Input: json.RawMessage(`{"text":"hi"}`)})
		if env.Code != tc.code || !strings.Contains(env.Text, tc.text) {
			t.Errorf("Dispatch(%q) = %s %q, want %s with %q", tc.name, env.Code, env.Text, tc.code, tc.text)
		}
	}
	if got := strings.Join(added, ","); got != "late" {
		t.Errorf("listeners told %q, want only late", got)
	}
	if got := strings.Join(asked, ","); got != "late,misnamed,refused,nothing,slow,boom" {
		t.Errorf("finder asked about %s", got)
	}
	if got := strings.Join(r.Names(), ","); got != "finder,late" {
		t.Errorf("Names = %s", got)
	}
}

// TestDispatchNamesTheCall: a running tool learns its own name (also when
// called by an alias) and the call's ID, made when the front end gave none.
func TestDispatchNamesTheCall(t *testing.T) {
	t.Parallel()
	var tool, id, agent string
	spy := Define(Spec{Name: "spy", InputSchema: Object(nil, map[string]*Schema{})}, func(ctx context.Context, _ struct{}) (Result, error) {
		tool, id, agent = CallTool(ctx), CallID(ctx), CallAgent(ctx)
		return Result{}, nil
	})
	spy.Aliases = []string{"peek"}
	r := NewRegistry(nil)
	if err := r.Register(spy); err != nil {
		t.Fatal(err)
	}
	r.Dispatch(context.Background(), Call{Name: "peek", ID: "c1", Agent: "Gemini CLI"})
	if tool != "spy" || id != "c1" || agent != "Gemini CLI" {
		t.Errorf("CallTool, CallID, CallAgent = %q, %q, %q; want spy, c1, Gemini CLI", tool, id, agent)
	}
	r.Dispatch(context.Background(), Call{Name: "spy"})
	if len(id) != 12 {
		t.Errorf("CallID without a front-end id = %q, want 12 hex digits", id)
	}
	if agent != "" {
		t.Errorf("CallAgent of a call without an agent = %q, want none", agent)
	}
	if CallID(context.Background()) != "" || CallTool(context.Background()) != "" || CallAgent(context.Background()) != "" {
		t.Error("CallID/CallTool/CallAgent outside Dispatch are not empty")
	}
}
