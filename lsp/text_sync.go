package lsp

import "encoding/json"

// Text synchronization: the client's didOpen, didChange and didClose keep
// the overlay (overlay.go), the only source of a document's current text
// and version. Documents of other schemes than file: are not tracked.
//
// The params are read with encoding/json into the types below, not into
// go.lsp.dev/protocol's: its DocumentURI normalises the URI the client sent
// (the overlay must answer workspace/applyEdit with the client's own
// string), and its contentChanges union reads a change with "range": null,
// or with an invalid range, as a different kind of change than the
// specification's "no range: the whole text".

// didOpenParams are the params of textDocument/didOpen.
type didOpenParams struct {
	TextDocument struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int32  `json:"version"`
		Text       string `json:"text"`
	} `json:"textDocument"`
}

// didChangeParams are the params of textDocument/didChange.
type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

// didCloseParams are the params of textDocument/didClose.
type didCloseParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

func (s *Server) didOpen(params json.RawMessage) error {
	var p didOpenParams
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	if !isFileURI(p.TextDocument.URI) {
		return nil
	}
	return s.docs.open(p.TextDocument.URI, p.TextDocument.LanguageID, p.TextDocument.Version, p.TextDocument.Text)
}

// didChange applies the changes, whose positions are in the negotiated
// encoding enc.
func (s *Server) didChange(params json.RawMessage, enc string) error {
	var p didChangeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	if !isFileURI(p.TextDocument.URI) {
		return nil
	}
	return s.docs.change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, enc)
}

func (s *Server) didClose(params json.RawMessage) error {
	var p didCloseParams
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	s.docs.close(p.TextDocument.URI)
	return nil
}

// didSave does nothing: the overlay already holds the text, and a save
// changes only the disk.
func (s *Server) didSave() {}
