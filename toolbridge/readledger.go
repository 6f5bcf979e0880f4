package toolbridge

import (
	"crypto/sha256"
	"sync"
)

// ReadLedger remembers, per absolute path, the hash of the content a model
// last read, so that an edit can say "the file changed since you read it".
type ReadLedger struct {
	mu   sync.Mutex
	seen map[string][sha256.Size]byte
}

// Record notes that the model has just read content from path.
func (l *ReadLedger) Record(path string, content []byte) {
	l.RecordSum(path, sha256.Sum256(content))
}

// RecordSum is Record for a caller that hashed the content while streaming.
func (l *ReadLedger) RecordSum(path string, sum [sha256.Size]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string][sha256.Size]byte{}
	}
	l.seen[path] = sum
}

// ChangedSinceRead reports whether the model read path before and current
// differs from what it read then. A path never read reports false.
func (l *ReadLedger) ChangedSinceRead(path string, current []byte) bool {
	l.mu.Lock()
	sum, ok := l.seen[path]
	l.mu.Unlock()
	return ok && sum != sha256.Sum256(current)
}
