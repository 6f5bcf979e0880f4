package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// language implements toolbridge.Language over the editor's
// whale/diagnostics and whale/languageFeature, for a client that declared
// experimental.whale.languageFeatures. Results come in the standard LSP
// shapes; positions are converted with the file's current text (the
// editor's buffer when it is open, else the disk).
type language struct{ s *Server }

// textOf is a file's current text as the editor sees it.
func (s *Server) textOf(path string) string {
	if d, ok := s.docs.get(path); ok {
		return d.text
	}
	b, _ := os.ReadFile(path)
	return string(b)
}

// uriOf is the URI the editor knows a file by.
func (s *Server) uriOf(path string) string {
	if d, ok := s.docs.get(path); ok {
		return d.uri
	}
	return pathToURI(path)
}

func (s *Server) encoding() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// bytePos converts an LSP position in path's text to a byte column.
func (s *Server) bytePos(path string, p Position) toolbridge.Pos {
	text := s.textOf(path)
	start, _ := lineStart(text, p.Line)
	return toolbridge.Pos{Line: int(p.Line), Col: offsetOf(text, p, s.encoding()) - start}
}

func (l language) Diagnostics(ctx context.Context, paths []string) (toolbridge.Problems, error) {
	s := l.s
	params := diagnosticsParams{URIs: []string{}}
	for _, p := range paths {
		params.URIs = append(params.URIs, s.uriOf(p))
	}
	var res diagnosticsResult
	if _, err := s.conn.Call(ctx, methodDiagnostics, params, &res); err != nil {
		return toolbridge.Problems{}, fmt.Errorf("%s: %w", methodDiagnostics, err)
	}
	out := toolbridge.Problems{Items: make([]toolbridge.Diagnostic, 0, len(res.Items))}
	for _, it := range res.Items {
		path, err := uriToPath(it.URI)
		if err != nil {
			continue
		}
		path = realPath(path)
		out.Items = append(out.Items, toolbridge.Diagnostic{Path: path, Start: s.bytePos(path, it.Range.Start), End: s.bytePos(path, it.Range.End),
			Severity: it.Severity, Message: it.Message, Source: it.Source, Code: codeText(it.Code)})
	}
	for uri, n := range res.Published {
		if path, err := uriToPath(uri); err == nil {
			if out.Published == nil {
				out.Published = map[string]int64{}
			}
			out.Published[realPath(path)] = n
		}
	}
	return out, nil
}

// codeText is a diagnostic's code, a number or a string in LSP.
func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.Trim(string(raw), `"`)
}

// feature asks the editor for one language feature and decodes the result.
func (l language) feature(ctx context.Context, p languageFeatureParams, out any) error {
	var raw json.RawMessage
	if _, err := l.s.conn.Call(ctx, methodLanguageFeature, p, &raw); err != nil {
		return fmt.Errorf("%s %s: %w", methodLanguageFeature, p.Kind, err)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, out)
}

func (l language) at(kind, path string, at toolbridge.Pos) languageFeatureParams {
	text := l.s.textOf(path)
	pos := lspPosition(text, at, l.s.encoding())
	return languageFeatureParams{Kind: kind, URI: l.s.uriOf(path), Position: &pos}
}

func (l language) locations(raw []lspLocation) []toolbridge.Location {
	out := make([]toolbridge.Location, 0, len(raw))
	for _, loc := range raw {
		uri, rng := loc.URI, loc.Range
		if uri == "" { // a LocationLink
			uri, rng = loc.TargetURI, loc.TargetSelectionRange
		}
		path, err := uriToPath(uri)
		if err != nil {
			continue
		}
		path = realPath(path)
		out = append(out, toolbridge.Location{Path: path, Start: l.s.bytePos(path, rng.Start), End: l.s.bytePos(path, rng.End)})
	}
	return out
}

// locationList decodes Location | Location[] | LocationLink[].
type locationList []lspLocation

func (ll *locationList) UnmarshalJSON(b []byte) error {
	if strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		var one lspLocation
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*ll = []lspLocation{one}
		return nil
	}
	var many []lspLocation
	err := json.Unmarshal(b, &many)
	*ll = many
	return err
}

func (l language) Definition(ctx context.Context, path string, at toolbridge.Pos) ([]toolbridge.Location, error) {
	var res locationList
	err := l.feature(ctx, l.at("definition", path, at), &res)
	return l.locations(res), err
}

func (l language) References(ctx context.Context, path string, at toolbridge.Pos) ([]toolbridge.Location, error) {
	var res locationList
	err := l.feature(ctx, l.at("references", path, at), &res)
	return l.locations(res), err
}

func (l language) Hover(ctx context.Context, path string, at toolbridge.Pos) (string, error) {
	var res struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := l.feature(ctx, l.at("hover", path, at), &res); err != nil {
		return "", err
	}
	return hoverText(res.Contents), nil
}

// hoverText flattens MarkupContent | MarkedString | MarkedString[].
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, item := range list {
			if t := hoverText(item); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// symbolKinds names LSP's SymbolKind numbers.
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum",
	"interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

func (l language) symbols(raw []lspSymbol, path string) []toolbridge.Symbol {
	out := make([]toolbridge.Symbol, 0, len(raw))
	for _, sym := range raw {
		p, rng := path, sym.SelectionRange
		if sym.Location != nil { // a SymbolInformation
			if q, err := uriToPath(sym.Location.URI); err == nil {
				p = realPath(q)
			}
			rng = sym.Location.Range
		}
		out = append(out, toolbridge.Symbol{Name: sym.Name, Kind: kindName(sym.Kind), Container: sym.ContainerName, Path: p,
			Start: l.s.bytePos(p, rng.Start), Children: l.symbols(sym.Children, p)})
	}
	return out
}

func (l language) DocumentSymbols(ctx context.Context, path string) ([]toolbridge.Symbol, error) {
	var res []lspSymbol
	err := l.feature(ctx, languageFeatureParams{Kind: "documentSymbols", URI: l.s.uriOf(path)}, &res)
	return l.symbols(res, path), err
}

func (l language) WorkspaceSymbols(ctx context.Context, query string) ([]toolbridge.Symbol, error) {
	var res []lspSymbol
	err := l.feature(ctx, languageFeatureParams{Kind: "workspaceSymbols", Query: query}, &res)
	return l.symbols(res, ""), err
}

func (l language) Rename(ctx context.Context, path string, at toolbridge.Pos, newName string) ([]toolbridge.FileEdits, error) {
	p := l.at("rename", path, at)
	p.NewName = newName
	var res struct {
		Changes         map[string][]textEdit `json:"changes"`
		DocumentChanges []json.RawMessage     `json:"documentChanges"`
	}
	if err := l.feature(ctx, p, &res); err != nil {
		return nil, err
	}
	byURI := map[string][]textEdit{}
	if len(res.DocumentChanges) == 0 { // LSP: documentChanges wins when both are there
		for uri, es := range res.Changes {
			byURI[uri] = append(byURI[uri], es...)
		}
	}
	for _, raw := range res.DocumentChanges {
		var tde struct {
			Kind         string `json:"kind"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []textEdit `json:"edits"`
		}
		if err := json.Unmarshal(raw, &tde); err != nil {
			return nil, err
		}
		if tde.Kind != "" {
			return nil, toolbridge.Fail(toolbridge.CodeEditRejected, "the rename would also %s a file, which whale does not apply; nothing was changed — rename the symbol with multi_edit, and the file with apply_patch's *** Move to", tde.Kind)
		}
		byURI[tde.TextDocument.URI] = append(byURI[tde.TextDocument.URI], tde.Edits...)
	}
	var out []toolbridge.FileEdits
	for uri, es := range byURI {
		fpath, err := uriToPath(uri)
		if err != nil {
			return nil, err
		}
		fpath = realPath(fpath)
		fe := toolbridge.FileEdits{Path: fpath, Base: l.s.textOf(fpath)}
		for _, e := range es {
			fe.Edits = append(fe.Edits, toolbridge.TextEdit{Start: l.s.bytePos(fpath, e.Range.Start), End: l.s.bytePos(fpath, e.Range.End), NewText: e.NewText})
		}
		out = append(out, fe)
	}
	return out, nil
}
