package lsp

import (
	"encoding/json"
	"testing"
)

// TestClientMessagesKeepTheirBytes: each typed standard message is
// written byte for byte as the map it replaced was.
func TestClientMessagesKeepTheirBytes(t *testing.T) {
	t.Parallel()
	token := json.RawMessage(`"client-1"`)
	docEdits := []textDocumentEdit{{TextDocument: versionedID{URI: "file:///a", Version: 3}, Edits: []textEdit{{NewText: "x"}}}}
	for _, tc := range []struct {
		name        string
		typed, want any
	}{
		{"applyEdit", applyEditParams{Edit: workspaceEdit{DocumentChanges: docEdits}, Label: "whale: edit a"},
			map[string]any{"label": "whale: edit a", "edit": map[string]any{"documentChanges": docEdits}}},
		{"applyEdit without edits", applyEditParams{Label: "l"}, map[string]any{"label": "l", "edit": map[string]any{"documentChanges": []textDocumentEdit(nil)}}},
		{"showMessageRequest", showMessageRequestParams{Actions: []messageActionItem{{Title: "Allow"}}, Message: "m", Type: messageWarning},
			map[string]any{"type": 2, "message": "m", "actions": []map[string]string{{"title": "Allow"}}}},
		{"logMessage", logMessageParams{Message: "m", Type: messageWarning}, map[string]any{"type": 2, "message": "m"}},
		{"registerCapability", registrationParams{Registrations: []registration{{ID: "whale-tools-1", Method: "workspace/executeCommand", RegisterOptions: executeCommandRegistrationOptions{Commands: []string{"whale.x"}}}}},
			map[string]any{"registrations": []map[string]any{{"id": "whale-tools-1", "method": "workspace/executeCommand", "registerOptions": map[string]any{"commands": []string{"whale.x"}}}}}},
		{"progress create", workDoneProgressCreateParams{Token: "whale-1"}, map[string]any{"token": "whale-1"}},
		{"progress begin", progressParams{Token: token, Value: progressBegin{Kind: "begin", Title: "t"}},
			map[string]any{"token": token, "value": map[string]any{"kind": "begin", "title": "t", "cancellable": false}}},
		{"progress begin with a message", progressParams{Token: "whale-2", Value: progressBegin{Kind: "begin", Title: "t", Message: "waiting"}},
			map[string]any{"token": "whale-2", "value": map[string]any{"kind": "begin", "title": "t", "cancellable": false, "message": "waiting"}}},
		{"progress report", progressParams{Token: "whale-2", Value: progressReport{Kind: "report", Message: ""}},
			map[string]any{"token": "whale-2", "value": map[string]any{"kind": "report", "message": ""}}},
		{"progress end", progressParams{Token: "whale-2", Value: progressEnd{Kind: "end", Message: "ok"}},
			map[string]any{"token": "whale-2", "value": map[string]any{"kind": "end", "message": "ok"}}},
	} {
		got, err := json.Marshal(tc.typed)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(tc.want)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: %s, want %s", tc.name, got, want)
		}
	}
}
