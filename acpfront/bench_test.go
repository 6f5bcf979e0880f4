package acpfront

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

// BenchmarkRelayUpdates is the proxy's own cost of relaying the agent's
// session/update stream to the editor: reading, routing and writing one
// agent_message_chunk, without the processes and pipes around it.
func BenchmarkRelayUpdates(b *testing.B) {
	var in bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"b1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d of the agent's answer, about a line long"}}}}`+"\n", i)
	}
	lines := in.Bytes()
	p := New(Options{})
	p.editor, p.agent = newPeer(io.Discard), newPeer(io.Discard)
	b.SetBytes(int64(len(lines)) / 10000)
	b.ResetTimer()
	for done := 0; done < b.N; done += 10000 {
		if err := p.readLines(context.Background(), bytes.NewReader(lines), p.fromAgentLine, p.editor); !errors.Is(err, io.EOF) {
			b.Fatal(err)
		}
	}
}
