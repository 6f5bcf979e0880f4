package attach

import "encoding/json"

// The attach protocol's methods (JSON-RPC 2.0, newline-delimited JSON).
// lsp/protocol_test.go checks them beside lsp/protocol.go: whale/tools and
// whale/toolsChanged are the same methods as the editor's; the others are
// the socket's own. No other file of the package spells a whale/* name.
const (
	MethodTools        = "whale/tools"        // → {tools: [Spec]}
	MethodCall         = "whale/call"         // {name, input} → Envelope
	MethodStatus       = "whale/status"       // → Status
	MethodToolsChanged = "whale/toolsChanged" // server → client notification
	// MethodRefused is the one notification a refused peer reads before
	// the server closes the connection: refusedParams.
	MethodRefused = "whale/refused"
	MethodCancel  = "$/cancelRequest" // client → server notification {id}
	// The file service (ListenOptions.Files), for the ACP proxy.
	MethodFileRead  = "whale/file/read"  // {path} → fileReply {file | failure}
	MethodFileWrite = "whale/file/write" // wireWriteInput → fileReply {write | failure}
)

// refusedParams is the payload of whale/refused: why the connection is
// refused, for the person who started the client.
type refusedParams struct {
	Reason string `json:"reason"`
}

// refusal is the whale/refused notification with reason, one line of JSON.
func refusal(reason string) []byte {
	b, _ := json.Marshal(struct { // a struct of strings always marshals
		JSONRPC string        `json:"jsonrpc"`
		Method  string        `json:"method"`
		Params  refusedParams `json:"params"`
	}{"2.0", MethodRefused, refusedParams{Reason: reason}})
	return append(b, '\n')
}
