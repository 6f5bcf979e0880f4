package lsp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/whale-ls/whale-ls/toolbridge"
)

// overlayDoc is one open editor buffer as the overlay keeps it.
type overlayDoc struct {
	uri        string
	path       string // real absolute path (symlinks resolved when it exists)
	languageID string
	version    int32
	text       string
}

// overlay is the store of open documents: the only source of "current
// version" and of buffer text. It is safe for concurrent use; waiters are
// woken on every change.
type overlay struct {
	mu     sync.Mutex
	byURI  map[string]*overlayDoc
	byPath map[string]*overlayDoc
	// changed is closed and replaced on every change, to wake waiters.
	changed chan struct{}
}

func newOverlay() *overlay {
	return &overlay{byURI: map[string]*overlayDoc{}, byPath: map[string]*overlayDoc{}, changed: make(chan struct{})}
}

// uriToPath converts a file:// URI to a clean absolute path.
func uriToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %s", uri)
	}
	p := filepath.FromSlash(u.Path)
	if p == "" {
		return "", fmt.Errorf("file URI without a path: %s", uri)
	}
	return filepath.Clean(p), nil
}

// pathToURI is the file:// URI of an absolute path (a drive letter gets
// the leading slash URIs put before it).
func pathToURI(p string) string {
	slashed := filepath.ToSlash(p)
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed
	}
	return (&url.URL{Scheme: "file", Path: slashed}).String()
}

// realPath resolves symlinks where the file exists, so editor documents and
// tool targets meet on the same name.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

func (o *overlay) notifyLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *overlay) open(uri, languageID string, version int32, text string) error {
	p, err := uriToPath(uri)
	if err != nil {
		return err
	}
	d := &overlayDoc{uri: uri, path: realPath(p), languageID: languageID, version: version, text: text}
	o.mu.Lock()
	defer o.mu.Unlock()
	if old := o.byURI[uri]; old != nil {
		delete(o.byPath, old.path)
	}
	o.byURI[uri] = d
	o.byPath[d.path] = d
	o.notifyLocked()
	return nil
}

// contentChange is one entry of didChange's contentChanges: with a range it
// replaces that range, without one it replaces the whole text.
type contentChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// change applies contentChanges in order and sets the new version.
func (o *overlay) change(uri string, version int32, changes []contentChange, enc string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := o.byURI[uri]
	if d == nil {
		return fmt.Errorf("didChange for %s, which is not open", uri)
	}
	text := d.text
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start := offsetOf(text, c.Range.Start, enc)
		end := offsetOf(text, c.Range.End, enc)
		if end < start {
			start, end = end, start
		}
		text = text[:start] + c.Text + text[end:]
	}
	d.text = text
	d.version = version
	o.notifyLocked()
	return nil
}

func (o *overlay) close(uri string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d := o.byURI[uri]; d != nil {
		delete(o.byURI, uri)
		if o.byPath[d.path] == d {
			delete(o.byPath, d.path)
		}
		o.notifyLocked()
	}
}

// get returns a copy of the document open at path.
func (o *overlay) get(path string) (overlayDoc, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d := o.byPath[path]; d != nil {
		return *d, true
	}
	return overlayDoc{}, false
}

// all returns copies of every open document, sorted by path.
func (o *overlay) all() []overlayDoc {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]overlayDoc, 0, len(o.byPath))
	for _, d := range o.byPath {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// waitUntil blocks until cond holds for the documents (checked after every
// change) or ctx ends; it returns whether cond held.
func (o *overlay) waitUntil(ctx context.Context, cond func(get func(path string) (overlayDoc, bool)) bool) bool {
	for {
		o.mu.Lock()
		ch := o.changed
		ok := cond(func(p string) (overlayDoc, bool) {
			if d := o.byPath[p]; d != nil {
				return *d, true
			}
			return overlayDoc{}, false
		})
		o.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

func (d overlayDoc) toolDocument() toolbridge.Document {
	return toolbridge.Document{Path: d.path, URI: d.uri, Version: d.version, Text: d.text}
}

// isFileURI reports whether uri names a local file.
func isFileURI(uri string) bool { return strings.HasPrefix(uri, "file:") }
