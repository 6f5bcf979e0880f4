// Package syncbuf is a bytes.Buffer that goroutines may write to at once,
// for tests and benchmarks that collect a log written from elsewhere.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer serializes Write and String; the zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
