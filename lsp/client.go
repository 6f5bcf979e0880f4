package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
)

// The standard LSP messages the server sends the client, typed. The
// methods' names are go.lsp.dev/protocol's constants; the payloads are
// whale's own small types, which go through encoding/json (codec) and keep
// the bytes the server sent before they were typed: the field lists of
// what were maps are in the order of their JSON names, as encoding/json
// wrote the maps. (The generated types would do as well on the wire, with
// pointers for optional members; these keep the call sites plain.)

// workspace/applyEdit: the edits to documents open in the editor, as
// documentChanges pinned to the overlay's versions.
type applyEditParams struct {
	Edit  workspaceEdit `json:"edit"`
	Label string        `json:"label"`
}

type workspaceEdit struct {
	DocumentChanges []textDocumentEdit `json:"documentChanges"`
}

type textDocumentEdit struct {
	TextDocument versionedID `json:"textDocument"`
	Edits        []textEdit  `json:"edits"`
}

type textEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

type versionedID struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// applyResult is the client's answer to workspace/applyEdit.
type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// Message types of window/showMessageRequest and window/logMessage.
const (
	messageWarning = 2
	messageInfo    = 3
)

// window/showMessageRequest: the fallback for approvals and questions.
type showMessageRequestParams struct {
	Actions []messageActionItem `json:"actions"`
	Message string              `json:"message"`
	Type    int                 `json:"type"`
}

type messageActionItem struct {
	Title string `json:"title"`
}

// window/logMessage.
type logMessageParams struct {
	Message string `json:"message"`
	Type    int    `json:"type"`
}

// client/registerCapability of more whale.<tool> commands.
type registrationParams struct {
	Registrations []registration `json:"registrations"`
}

type registration struct {
	ID              string                            `json:"id"`
	Method          string                            `json:"method"`
	RegisterOptions executeCommandRegistrationOptions `json:"registerOptions"`
}

type executeCommandRegistrationOptions struct {
	Commands []string `json:"commands"`
}

// window/workDoneProgress/create and $/progress.
type workDoneProgressCreateParams struct {
	Token string `json:"token"`
}

// progressParams is a $/progress notification; Token is the string whale
// created or the client's own token as it sent it (a json.RawMessage).
type progressParams struct {
	Token any `json:"token"`
	Value any `json:"value"`
}

type progressBegin struct {
	Cancellable bool   `json:"cancellable"`
	Kind        string `json:"kind"` // "begin"
	Message     string `json:"message,omitempty"`
	Title       string `json:"title"`
}

type progressReport struct {
	Kind    string `json:"kind"` // "report"
	Message string `json:"message"`
}

type progressEnd struct {
	Kind    string `json:"kind"` // "end"
	Message string `json:"message"`
}

// workDone is one work-done progress shown by the client: the one helper
// behind a long tool call's progress (callProgress) and a file index's.
type workDone struct {
	s     *Server
	ctx   context.Context
	token any
}

// newWorkDone uses the client's token when it sent one (neither empty nor
// null), else asks the client to create prefix-N, waiting at most five
// seconds for its answer.
func (s *Server) newWorkDone(ctx context.Context, clientToken json.RawMessage, prefix string) (*workDone, error) {
	if len(clientToken) > 0 && string(clientToken) != "null" {
		return &workDone{s: s, ctx: ctx, token: clientToken}, nil
	}
	token := fmt.Sprintf("%s-%d", prefix, progressSeq.Add(1))
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.conn.Call(cctx, protocol.MethodWindowWorkDoneProgressCreate, workDoneProgressCreateParams{Token: token}, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", protocol.MethodWindowWorkDoneProgressCreate, err)
	}
	return &workDone{s: s, ctx: ctx, token: token}, nil
}

// begin shows the progress with its title (and a first message, if any).
func (w *workDone) begin(title, message string) error {
	return w.send(progressBegin{Kind: "begin", Title: title, Message: message})
}

// report shows message as the progress's current step.
func (w *workDone) report(message string) error {
	return w.send(progressReport{Kind: "report", Message: message})
}

// end ends the progress with message.
func (w *workDone) end(message string) error {
	return w.send(progressEnd{Kind: "end", Message: message})
}

func (w *workDone) send(value any) error {
	return w.s.conn.Notify(w.ctx, protocol.MethodProgress, progressParams{Token: w.token, Value: value})
}
