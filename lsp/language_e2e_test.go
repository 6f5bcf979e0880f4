package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// languageSession starts a server for an editor that answers language
// features with answer.
func languageSession(t *testing.T, files map[string]string, waitMs int, answer func(ctx context.Context, method string, params json.RawMessage) (any, error)) *session {
	t.Helper()
	s := start(t, writeFiles(t, files), sessionOptions{
		experimental: map[string]any{"whale": map[string]any{"languageFeatures": true}},
		initOptions:  map[string]any{"edits": map[string]any{"problemsWaitMs": waitMs}},
	})
	s.ed.mu.Lock()
	s.ed.language = answer
	s.ed.mu.Unlock()
	return s
}

// TestEditReportsTheProblemsItIntroduced: the editor's diagnostics (read
// from the file as it is on disk, as a language server would) gain an
// error after the edit; the result names that error only.
func TestEditReportsTheProblemsItIntroduced(t *testing.T) {
	var root string
	s := languageSession(t, map[string]string{"a.go": "package a\n\nvar x = 1 // ünïcode\n"}, 3000, func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "whale/diagnostics" {
			return nil, nil
		}
		b, _ := os.ReadFile(root + "/a.go")
		items := []map[string]any{{"uri": string(uri.File(root + "/a.go")), "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 7}}, "severity": 2, "message": "package comment missing", "source": "lint"}}
		if strings.Contains(string(b), "undefinedY") {
			items = append(items, map[string]any{"uri": string(uri.File(root + "/a.go")), "range": map[string]any{"start": map[string]any{"line": 2, "character": 8}, "end": map[string]any{"line": 2, "character": 18}}, "severity": 1, "message": "undefined: undefinedY", "source": "compiler", "code": "UndeclaredName"})
		}
		return map[string]any{"items": items}, nil
	})
	root = s.root
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.go", "search": "var x = 1", "replace": "var x = undefinedY"})
	if !env.OK || !strings.Contains(env.Text, "The change introduced 1 problem:\n  a.go:3: error: undefined: undefinedY (compiler UndeclaredName)") || strings.Contains(env.Text, "package comment") {
		t.Errorf("edit = %s %q, want the new error only", env.Code, env.Text)
	}
}

// TestProblemsSettleOnThePublishedCount: an editor that counts each
// file's publications under "published" (keyed by URI) ends the wait of a
// clean edit as soon as the count moved, long before the bound.
func TestProblemsSettleOnThePublishedCount(t *testing.T) {
	var root string
	var reads int
	s := languageSession(t, map[string]string{"a.go": "package a\n\nvar x = 1\n"}, 20000, func(_ context.Context, method string, _ json.RawMessage) (any, error) {
		if method != "whale/diagnostics" {
			return nil, nil
		}
		reads++ // the fake editor answers in order: no lock needed
		count := 1
		if reads > 1 { // a language server answered after the change
			count = 2
		}
		return map[string]any{"items": []any{}, "published": map[string]int{string(uri.File(root + "/a.go")): count}}, nil
	})
	root = s.root
	t0 := time.Now()
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.go", "search": "var x = 1", "replace": "var x = 2"})
	if !env.OK || !strings.Contains(env.Text, "No new problems in the changed files.\n") {
		t.Errorf("edit = %s %q, want no new problems", env.Code, env.Text)
	}
	if took := time.Since(t0); took > 10*time.Second {
		t.Errorf("the edit took %s: the published count did not end the wait", took)
	}
}

// TestProblemsWaitWhenTheEditorNeverAnswers: diagnostics requests that
// are never answered do not hold the edit past the bound.
func TestProblemsWaitWhenTheEditorNeverAnswers(t *testing.T) {
	s := languageSession(t, map[string]string{"a.txt": "a\n"}, 300, func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
		select { // far past the server's bound, but not forever: the fake editor answers in order
		case <-ctx.Done():
		case <-time.After(3 * time.Second):
		}
		return map[string]any{"items": []any{}}, nil
	})
	env := s.exec(ctxT(t), "edit", map[string]any{"file_path": "a.txt", "search": "a", "replace": "b"})
	if !env.OK || strings.Contains(env.Text, "problem") {
		t.Errorf("edit = %s %q, want applied with no problems note", env.Code, env.Text)
	}
}

// TestLanguageToolsOverTheWire: the tools are listed only with the
// capability; definition sends the symbol's position in UTF-16 and maps the
// editor's answer back to path:line.
func TestLanguageToolsOverTheWire(t *testing.T) {
	plain := start(t, writeFiles(t, nil), sessionOptions{})
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if _, err := plain.conn.Call(ctxT(t), "whale/tools", nil, &tools); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "definition" || tool.Name == "rename" {
			t.Errorf("%s is listed for an editor without languageFeatures", tool.Name)
		}
	}

	var asked map[string]any
	var root string
	s := languageSession(t, map[string]string{"a.go": "package a\n\n// é𝄞\nfunc Open() {}\n", "b.go": "package a\n\nvar _ = /* 𝄞 */ Open\n"}, 0, func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "whale/languageFeature" {
			return map[string]any{"items": []any{}}, nil
		}
		json.Unmarshal(params, &asked)
		return []map[string]any{{"uri": string(uri.File(root + "/a.go")), "range": map[string]any{"start": map[string]any{"line": 3, "character": 5}, "end": map[string]any{"line": 3, "character": 9}}}}, nil
	})
	root = s.root
	env := s.exec(ctxT(t), "definition", map[string]any{"file_path": "b.go", "line": 3, "symbol": "Open"})
	if !env.OK || env.Text != "Definition of Open:\na.go:4: func Open() {}" {
		t.Errorf("definition = %s %q", env.Code, env.Text)
	}
	pos, _ := asked["position"].(map[string]any)
	if asked["kind"] != "definition" || pos["line"] != float64(2) || pos["character"] != float64(17) {
		t.Errorf("whale/languageFeature params = %v, want definition at line 2, UTF-16 character 17 (after the surrogate pair)", asked)
	}
}
