package mcpfront

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestScanMessage(t *testing.T) {
	deep := strings.Repeat("[", 1500) + strings.Repeat("]", 1500)
	for _, tc := range []struct {
		msg              string
		depth            int
		id, method, name string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":` + deep + `}}}`, 1503, `7`, `"tools/call"`, `"grep"`},
		{`{"id":"a\"b","params":{"arguments":{"name":"inner"},"name":"read_file"},"method":"tools/call"}`, 3, `"a\"b"`, `"tools/call"`, `"read_file"`},
		{`{"method":"notifications/cancelled","params":{"requestId":3}}`, 2, ``, `"notifications/cancelled"`, ``},
		{`{"id": 12 , "method" : "ping"}`, 1, `12`, `"ping"`, ``},
	} {
		depth, id, method, name := scanMessage([]byte(tc.msg))
		if depth != tc.depth || string(id) != tc.id || string(method) != tc.method || string(name) != tc.name {
			t.Errorf("scanMessage(%.60s) = %d %s %s %s, want %d %s %s %s", tc.msg, depth, id, method, name, tc.depth, tc.id, tc.method, tc.name)
		}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestDepthGuardAnswersDeepMessages: a message too deep for the SDK is
// answered by the guard and not passed on; the others pass unchanged.
func TestDepthGuardAnswersDeepMessages(t *testing.T) {
	deep := strings.Repeat("[", 1500) + strings.Repeat("]", 1500)
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":` + deep + `}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/x","params":` + deep + `}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	var out bytes.Buffer
	g := newDepthGuard(io.NopCloser(strings.NewReader(input)), &lockedWriter{w: nopWriteCloser{&out}})
	passed, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"; string(passed) != want {
		t.Errorf("passed on %q, want %q", passed, want)
	}
	if got := out.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"id":2`) || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `invalid_input: invalid input for grep: the message nests 1503 levels`) {
		t.Errorf("answered %q, want one invalid_input tool result for id 2", got)
	}
}
