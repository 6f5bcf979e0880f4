package lsp_test

import (
	"encoding/json"
	"fmt"
	"time"
)

// cancelWithoutResponse sends notifications/cancelled for the request id
// and checks MCP's rule for it: the server sends no response to that
// request. A ping sent after the cancel has had time to reach the tool
// marks the end of the wait: a response to id before the ping's fails.
func (c *mcpConn) cancelWithoutResponse(id string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, id))
	time.Sleep(500 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","id":"after-cancel","method":"ping"}`)
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		for {
			line, err := c.out.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				c.t.Fatal("whale-ls mcp closed its output after the cancel")
			}
			var m message
			json.Unmarshal(line, &m)
			switch {
			case m.Method == "" && string(m.ID) == id:
				c.t.Fatalf("whale-ls mcp answered request %s after notifications/cancelled: %s", id, line)
			case string(m.ID) == `"after-cancel"`:
				go func() {
					for range lines { // drain, so that the reader ends
					}
				}()
				return
			}
		case <-deadline:
			c.t.Fatal("no answer to the ping after the cancel")
		}
	}
}
