package lsp

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// cancelParams are the params of $/cancelRequest. The id is read as the
// call's own id type (a number or a string), not as protocol.CancelParams:
// its integer is 32 bits, and jsonrpc2 ids are 64.
type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

// cancelRequest handles $/cancelRequest: it cancels the context of the call
// with that id, if it is still running. An id of another type is ignored.
func (s *Server) cancelRequest(params json.RawMessage) {
	var p cancelParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var n int64
	var str string
	if json.Unmarshal(p.ID, &n) == nil {
		s.cancelCall(jsonrpc2.NewNumberID(n))
	} else if json.Unmarshal(p.ID, &str) == nil {
		s.cancelCall(jsonrpc2.NewStringID(str))
	}
}

// cancelCall cancels the in-flight call with id, if any.
func (s *Server) cancelCall(id jsonrpc2.ID) {
	s.inflightMu.Lock()
	cancel := s.inflight[id]
	s.inflightMu.Unlock()
	if cancel != nil {
		cancel()
	}
}
